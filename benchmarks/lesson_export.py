"""How long `gemmviz lesson NAME --export DIR` takes: the slides (PNG and a PDF page each) and the handout, drawn
in this process after one warm-up export (imports and fonts loaded), the median of a few.

    QT_QPA_PLATFORM=offscreen python benchmarks/lesson_export.py [NAME] [WxH] [repeats]

Prints one line: lesson, size, the median and the range in seconds, the machine's load average."""

from __future__ import annotations

import contextlib
import io
import os
import statistics
import sys
import tempfile
import time


def main() -> None:
    name = sys.argv[1] if len(sys.argv) > 1 else "seed000"
    size = sys.argv[2] if len(sys.argv) > 2 else "1280x720"
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    from gemmviz.cli.main import main as gemmviz

    with tempfile.TemporaryDirectory() as tmp:
        times = []
        for i in range(repeats + 1):
            start = time.perf_counter()
            with contextlib.redirect_stdout(io.StringIO()):
                assert gemmviz(["lesson", name, "--export", f"{tmp}/{i}", "--size", size, "--projector"]) == 0
            if i:  # the first is the warm-up
                times.append(time.perf_counter() - start)
    load = os.getloadavg()[0]
    print(
        f"{name} {size}: median {statistics.median(times):.2f} s (min {min(times):.2f}, max {max(times):.2f}) "
        f"over {repeats} exports, load average {load:.1f}"
    )


if __name__ == "__main__":
    main()
