"""Tuned block-tiling configurations, per GPU: the user's cache first, then the ones shipped in assets/tuned."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from gemmviz.core import paths
from gemmviz.core.fileio import InputFileError, parse_json, read_regular, write_atomic
from gemmviz.core.kernels.variants import VARIANTS

log = logging.getLogger("gemmviz")


def user_tuning_file() -> Path:
    return paths.cache_dir() / "tuned.json"


MAX_TUNING_BYTES = 4 << 20  # a few KiB per GPU


def _read(source: Path | Traversable) -> dict[str, Any]:
    """The JSON object in a file (a Path or a shipped resource), or {} if it is missing, cannot be read (not a
    regular file, over the size limit) or is not an object; a file that exists but is refused is logged."""
    try:
        text = read_regular(str(source), MAX_TUNING_BYTES).decode("utf-8")
        data = parse_json(text)
    except InputFileError as exc:
        if Path(str(source)).exists():
            log.warning("tuning: %s: %s; not used", source, exc)
        return {}
    except (ValueError, RecursionError) as exc:
        log.warning("tuning: %s: %s; not used", source, str(exc).splitlines()[0][:200])
        return {}
    if not isinstance(data, dict):
        log.warning("tuning: %s: not a JSON object; not used", source)
        return {}
    return data


def config_problem(variant: str, config: object, default: Mapping[str, int]) -> str | None:
    """Why a tuned `config` must not be compiled (not the variant's keys, not whole numbers, not one of the
    configurations its tuning space holds), or None."""
    if not isinstance(config, dict) or set(config) != set(default):
        return f"its keys are not {', '.join(default)}"
    if any(isinstance(v, bool) or not isinstance(v, int) for v in config.values()):
        return "its values are not all whole numbers"
    if dict(config) == dict(default):
        return None
    space = VARIANTS[variant].tune_space if variant in VARIANTS else None
    if space is None or dict(config) not in space():
        return "it is not one of the variant's tuning configurations"
    return None


def tuned_entry(variant: str, gpu: str, default: Mapping[str, int] | None = None) -> dict | None:
    """{"config": {...}, "gflops": ..., "size": ..., "date": ..., "configs_tried": ...} or None: the first
    source with an entry for `variant` on `gpu` whose config passes config_problem (when `default` is given);
    one that does not is skipped with a log line."""
    for source in [user_tuning_file(), *paths.asset_files("tuned")]:
        per_gpu = _read(source).get(gpu)
        entry = per_gpu.get(variant) if isinstance(per_gpu, dict) else None
        if not isinstance(entry, dict) or not isinstance(entry.get("config"), dict):
            continue
        problem = config_problem(variant, entry["config"], default) if default is not None else None
        if problem:
            log.warning("tuning: %s: %s on %s: %s; not used", source, variant, gpu[:80], problem)
            continue
        return entry
    return None


def tuned_config(variant: str, gpu: str, default: Mapping[str, int]) -> tuple[dict[str, int], bool]:
    """The config to compile for this GPU, and whether it came from a tuning run."""
    entry = tuned_entry(variant, gpu, default)
    if entry is None:
        return dict(default), False
    return dict(entry["config"]), True


def save_tuned(variant: str, gpu: str, entry: dict, path: Path | None = None) -> Path:
    path = path or user_tuning_file()
    data = _read(path)
    if not isinstance(data.get(gpu), dict):
        data[gpu] = {}
    data[gpu][variant] = entry
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(data, indent=1, sort_keys=True, allow_nan=False))
    return path
