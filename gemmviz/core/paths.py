"""Where gemmviz's files live: shipped data (kernels, assets) and the user's cache and config folders.

Shipped data is found with importlib.resources: the wheel carries `kernels/` and `assets/` as the packages
`gemmviz.kernels` and `gemmviz.assets` (see pyproject.toml), and an editable install maps them to the
repository's folders. Only a bare source tree on PYTHONPATH (no install at all, as on the GPU machine)
falls back to the repository layout beside the package.
"""

from __future__ import annotations

import importlib.resources
import os
import re
from importlib.resources.abc import Traversable
from pathlib import Path

import platformdirs

_SOURCE_TREE = Path(__file__).resolve().parents[2]


def shipped(kind: str) -> Traversable:
    """The shipped folder `kind` ("kernels" or "assets")."""
    try:
        return importlib.resources.files(f"gemmviz.{kind}")
    except ModuleNotFoundError:
        return _SOURCE_TREE / kind


_LOCAL_INCLUDE = re.compile(r'^#include "([A-Za-z0-9_]+\.cuh)"[^\n]*$', re.MULTILINE)


def kernel_source(name: str) -> str:
    """The text of kernels/<name>, with each `#include "x.cuh"` of a header in kernels/ replaced by its text
    (once; a header's `#pragma once` line dropped), so nvcc needs no include path and the kernel cache's key
    and the code view cover the header too (kernels/cpasync_core.cuh is shared by two kernels)."""
    text = shipped("kernels").joinpath(name).read_text(encoding="utf-8")
    seen: set[str] = set()

    def inline(match: re.Match) -> str:
        header = match.group(1)
        if header in seen or header == "trace.cuh":  # trace.cuh is inlined by the block-trace build itself
            return "" if header in seen else match.group(0)
        seen.add(header)
        body = shipped("kernels").joinpath(header).read_text(encoding="utf-8")
        return body.replace("#pragma once\n", "").rstrip("\n")

    return _LOCAL_INCLUDE.sub(inline, text)


def asset_files(folder: str, suffix: str = ".json") -> list[Traversable]:
    """Files in assets/<folder> ending in `suffix`, sorted by name (empty when the folder is missing)."""
    base = shipped("assets").joinpath(folder)
    if not base.is_dir():
        return []
    return sorted((f for f in base.iterdir() if f.is_file() and f.name.endswith(suffix)), key=lambda f: f.name)


def asset_path(folder: str, name: str) -> Path:
    """A real file-system path of a shipped asset (wheels install as plain files, so this is the file itself)."""
    return Path(str(shipped("assets").joinpath(folder).joinpath(name)))


FOLDER_VARIABLES = ("GEMMVIZ_CACHE_DIR", "GEMMVIZ_CONFIG_DIR")


def pin_folder_variables() -> None:
    """Make a relative $GEMMVIZ_CACHE_DIR or $GEMMVIZ_CONFIG_DIR absolute, from the folder gemmviz started in,
    before any child process (nvcc, a check's sandbox, run in folders of their own) inherits it."""
    for name in FOLDER_VARIABLES:
        value = os.environ.get(name)
        if value and not os.path.isabs(value):
            os.environ[name] = os.path.abspath(value)


def cache_dir() -> Path:
    """gemmviz's cache folder: $GEMMVIZ_CACHE_DIR, else the platform's user cache folder. Absolute: a relative
    value is taken from the folder gemmviz started in (nvcc, run from another folder, could not write into
    "relcache/…", and every correct hand-in was graded a compile failure)."""
    return Path(
        os.environ.get("GEMMVIZ_CACHE_DIR") or platformdirs.user_cache_dir("gemmviz", appauthor=False)
    ).absolute()


def config_dir() -> Path:
    """gemmviz's config folder (settings, recovery files): $GEMMVIZ_CONFIG_DIR, else the platform's; absolute,
    as cache_dir."""
    value = os.environ.get("GEMMVIZ_CONFIG_DIR") or platformdirs.user_config_dir("gemmviz", appauthor=False)
    return Path(value).absolute()
