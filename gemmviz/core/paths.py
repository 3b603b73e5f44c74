"""Where gemmviz's files live: shipped data (kernels, assets) and the user's cache and config folders.

Shipped data is found with importlib.resources: the wheel carries `kernels/` and `assets/` as the packages
`gemmviz.kernels` and `gemmviz.assets` (see pyproject.toml), and an editable install maps them to the
repository's folders. Only a bare source tree on PYTHONPATH (no install at all, as on the GPU machine)
falls back to the repository layout beside the package.
"""

from __future__ import annotations

import importlib.resources
import os
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


def kernel_source(name: str) -> str:
    """The text of kernels/<name>."""
    return shipped("kernels").joinpath(name).read_text(encoding="utf-8")


def asset_files(folder: str, suffix: str = ".json") -> list[Traversable]:
    """Files in assets/<folder> ending in `suffix`, sorted by name (empty when the folder is missing)."""
    base = shipped("assets").joinpath(folder)
    if not base.is_dir():
        return []
    return sorted((f for f in base.iterdir() if f.is_file() and f.name.endswith(suffix)), key=lambda f: f.name)


def asset_path(folder: str, name: str) -> Path:
    """A real file-system path of a shipped asset (wheels install as plain files, so this is the file itself)."""
    return Path(str(shipped("assets").joinpath(folder).joinpath(name)))


def cache_dir() -> Path:
    """gemmviz's cache folder: $GEMMVIZ_CACHE_DIR, else the platform's user cache folder."""
    return Path(os.environ.get("GEMMVIZ_CACHE_DIR") or platformdirs.user_cache_dir("gemmviz", appauthor=False))


def config_dir() -> Path:
    """gemmviz's config folder (settings, recovery files): $GEMMVIZ_CONFIG_DIR, else the platform's."""
    return Path(os.environ.get("GEMMVIZ_CONFIG_DIR") or platformdirs.user_config_dir("gemmviz", appauthor=False))
