"""How long the window takes to open a large session: load, the charts, the table, the speedup menus, the
roofline and the comparison, and the first paint, for a generated session of N results (default: the loader's
limit, core/session/bounds.MAX_RESULTS).

    QT_QPA_PLATFORM=offscreen python3 benchmarks/large_session.py [results] [distinct|same]

`distinct` (the default, the hardest case) gives every result its own size, so every chart has N points and
the speedup menu N sizes; `same` repeats one size and series. A session over the limit is refused at once,
naming the limit. Timing depends on the machine and its load: a benchmark, not a unit test.
"""

from __future__ import annotations

import functools
import json
import random
import sys
import tempfile
import time
from pathlib import Path

from gemmviz.core.session.bounds import MAX_RESULTS


def make_session(n: int, distinct: bool = True, seed: int = 0) -> dict:
    """A valid session of `n` GPU tiled results (tile 8/16/32), five samples each."""
    rng = random.Random(seed)
    sizes = [2**i for i in range(5, 14)]
    results = []
    for i in range(n):
        s = rng.choice(sizes) if distinct else 1024
        results.append(
            {
                "variant": "gpu-tiled",
                "params": {"tile": rng.choice([8, 16, 32]) if distinct else 16},
                "m": s,
                "n": s,
                "k": s + i if distinct else s,
                "backend": "cuda",
                "precision": "fp32",
                "valid": True,
                "status": "ok",
                "samples_ms": [1.0 + rng.random() for _ in range(5)],
                "warmup": 1,
                "repeats": 5,
            }
        )
    return {
        "schema": "gemmviz.session",
        "schema_version": 3,
        "kind": "measured",
        "label": f"{n} results",
        "created": "2026-12-01",
        "environment": {},
        "settings": {},
        "results": results,
    }


def main() -> None:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from gemmviz.backends.cpu import CpuBackend
    from gemmviz.ui.window import MainWindow

    n = int(sys.argv[1]) if len(sys.argv) > 1 else MAX_RESULTS
    distinct = (sys.argv[2] if len(sys.argv) > 2 else "distinct") == "distinct"
    folder = Path(tempfile.mkdtemp())
    path = folder / "large.json"
    path.write_text(json.dumps(make_session(n, distinct)))
    app = QApplication(sys.argv[:1])
    settings = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow({"cpu": CpuBackend()}, settings=settings, load_recorded_without_gpu=False)
    window.show()
    while not window.workspace.environment:
        app.processEvents()
        time.sleep(0.01)
    parts: dict[str, float] = {}

    def timed(obj, name: str, label: str) -> None:
        f = getattr(obj, name)

        @functools.wraps(f)
        def g(*a, **k):
            t = time.perf_counter()
            try:
                return f(*a, **k)
            finally:
                parts[label] = parts.get(label, 0.0) + time.perf_counter() - t

        setattr(obj, name, g)

    tab = window.charts_tab
    for obj, name, label in (
        (window.workspace, "open", "load"),
        (tab.time_chart, "set_results", "time chart"),
        (tab.gflops_chart, "set_results", "GFLOP/s chart"),
        (tab.table, "set_results", "table"),
        (tab, "_set_speedup_results", "speedup"),
        (window.roofline_tab, "refresh", "roofline"),
        (window.compare, "set_results", "compare"),
    ):
        timed(obj, name, label)
    start = time.perf_counter()
    opened = window.files.open_session(path)
    app.processEvents()  # the first paint
    total = time.perf_counter() - start
    print(
        f"{n:,} results ({'distinct sizes' if distinct else 'one size'}): "
        f"{'opened' if opened else 'refused'} in {total:.2f} s"
    )
    for label, seconds in parts.items():
        print(f"  {label}: {seconds:.2f} s")
    if not opened:
        print(f"  {window.last_error_text}")
    window.close()


if __name__ == "__main__":
    main()
