"""Time from process start to a shown, painted main window (the 'time to window' a user feels).

    python3 benchmarks/startup_time.py [runs]

Each run is a fresh `python -m gemmviz` process with GEMMVIZ_STARTUP_PROBE=1, which makes the app print
the monotonic time once the window has been exposed and painted, then quit. Prints the median and max.
"""

import os
import statistics
import subprocess
import sys
import time

runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
samples = []
for _ in range(runs):
    env = dict(os.environ, GEMMVIZ_STARTUP_PROBE="1")
    t0 = time.monotonic()
    out = subprocess.run([sys.executable, "-m", "gemmviz"], env=env, capture_output=True, text=True, timeout=120)
    shown = [line for line in out.stdout.splitlines() if line.startswith("window-shown ")]
    if not shown:
        sys.exit(f"the app did not report a shown window:\n{out.stdout}\n{out.stderr}")
    samples.append(float(shown[0].split()[1]) - t0)
print(f"time to shown window over {runs} runs: median {statistics.median(samples):.2f} s, max {max(samples):.2f} s")
print("samples:", ", ".join(f"{s:.2f}" for s in samples))
