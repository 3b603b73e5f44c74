"""Tuned block-tiling configurations, per GPU: the user's cache first, then the ones shipped in assets/."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from gemmviz.core.results import write_atomic

SHIPPED = Path(__file__).resolve().parent.parent.parent / "assets" / "tuned"


def cache_base() -> Path:
    """gemmviz's cache folder: $GEMMVIZ_CACHE_DIR, else $XDG_CACHE_HOME/gemmviz, else ~/.cache/gemmviz."""
    return Path(
        os.environ.get("GEMMVIZ_CACHE_DIR")
        or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "gemmviz")
    )


def user_tuning_file() -> Path:
    return cache_base() / "tuned.json"


def _read(path: Path) -> dict:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def tuned_entry(variant: str, gpu: str) -> dict | None:
    """{"config": {...}, "gflops": ..., "size": ..., "date": ..., "configs_tried": ...} or None."""
    for path in [user_tuning_file(), *sorted(SHIPPED.glob("*.json"))]:
        entry = _read(path).get(gpu, {}).get(variant)
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
