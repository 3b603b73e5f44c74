"""Tuned block-tiling configurations, per GPU: the user's cache first, then the ones shipped in assets/tuned."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from gemmviz.core import paths
from gemmviz.core.fileio import write_atomic


def user_tuning_file() -> Path:
    return paths.cache_dir() / "tuned.json"


def _read(text_of) -> dict:
    """The JSON object in a file (a Path or a shipped resource), or {} if it is missing or not an object."""
    try:
        data = json.loads(text_of.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def tuned_entry(variant: str, gpu: str) -> dict | None:
    """{"config": {...}, "gflops": ..., "size": ..., "date": ..., "configs_tried": ...} or None."""
    for source in [user_tuning_file(), *paths.asset_files("tuned")]:
        entry = _read(source).get(gpu, {}).get(variant)
        if isinstance(entry, dict) and isinstance(entry.get("config"), dict):
            return entry
    return None


def tuned_config(variant: str, gpu: str, default: Mapping[str, int]) -> tuple[dict[str, int], bool]:
    """The config to compile for this GPU, and whether it came from a tuning run."""
    entry = tuned_entry(variant, gpu)
    if entry is None or set(entry["config"]) != set(default):
        return dict(default), False
    return {k: int(v) for k, v in entry["config"].items()}, True


def save_tuned(variant: str, gpu: str, entry: dict, path: Path | None = None) -> Path:
    path = path or user_tuning_file()
    data = _read(path)
    data.setdefault(gpu, {})[variant] = entry
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(data, indent=1, sort_keys=True))
    return path
