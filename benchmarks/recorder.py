"""One recorder for the GPU machine: named recipes run in one device call under one time budget.

    source .device/env.sh && python3 benchmarks/recorder.py RECIPE[=ARG] ... [--budget 570]

Each recipe is a command (or a few) with its own time limit, cut to what is left of the budget, so one device
call (at most 10 minutes) ends in time and returns what finished. Everything goes under $OUT (or --out):
`recorder.json` names the GPU, the CPU, the date, the commit and each recipe's command, exit status and
seconds; each recipe writes its own files beside it. Dates and results belong in those files, not in the
recipes: the same recipe serves every day and every GPU.

Recipes (ARG where one is taken):
  info                 nvidia-smi's name, driver, clocks and temperature; the CPU
  bench-sizes=SIZES    the bench's protocol for every GPU variant at SIZES (default 1024,4096) and 2048x3072x4096
  bench                the session's bench: every registry variant at the recorded sizes, kernel-only timing
                       (benchmarks/record_h200.py --part bench --no-ceilings; its protocol and sizes)
  rungs=VARIANTS       the bench's protocol and sizes for the variants named (default: gpu-cpasync-any,
                       gpu-wgmma-tf32 and cuBLAS FP32/TF32) into rungs.json, to replace their results in a session
  ceilings             `gemmviz ceilings`: DRAM copy, L2 and shared bandwidth (kernels/membw.cu), FP32, TF32
  sanitize=VARIANTS    compute-sanitizer memcheck and racecheck of the variants at odd shapes
  sanitize-options=TF32_OPTIONS
                       compute-sanitizer memcheck and racecheck of the option builds (not in the registry) at odd
                       shapes: every fp32_round3 option (TMA, thread-block-cluster, split-barrier builds) and the
                       tf32_round3 options named (default the leads'), verified, not timed, into sanitize-options/
  gap=VARIANTS[@SIZES] `gemmviz profile --gap` (ncu) of the variants at SIZES (default 1000^3, 1024^3 ... 8192^3)
  l2-order             benchmarks/l2_order.py (GROUP_M and Hilbert orders beside cuBLAS) and their L2 hit rates
  fp32-round3=SIZES    benchmarks/fp32_round3.py: the FP32 rung's Stream-K, tile and order options beside cuBLAS
                       (default: issue 48's seven sizes), verified at odd shapes, one process per size
  tf32-round3=OPTIONS  benchmarks/tf32_round3.py: gpu-wgmma-tf32's persistent / cluster / Hilbert options beside
                       cuBLAS TF32, each verified at odd shapes first (OPTIONS: comma-separated names, default all)
  leads=OPTIONS        what the technique sweep pointed to, timed: tf32_round3.py's OPTIONS (default the TF32 options
                       that read past the registry by one launch) at 1000^3, 1024^3 and the odd shapes; `gemmviz tune`
                       of gpu-cpasync-any at 4096^3 into tuned.json (a GPU with no assets/tuned/ file)
  techniques=SIZES     benchmarks/technique_table.py sweep: every fp32_round3 / tf32_round3 option, the shipped
                       configurations and cuBLAS FP32/TF32, one checked launch each under ncu (duration, L2 hit
                       rate, idle SMs), one process per size (default: issue 48's seven sizes), into techniques/
  traces-small=SIZE    benchmarks/traces_small.py: block traces of gpu-cpasync-any at SIZE³ (default 1024) in the
                       small-size fix's builds (128×128 tiles, 64×64 + split-K, Stream-K, the shipped split-K),
                       as $OUT/GPU-DATE-traces-small-SIZE.json.gz, a session the Hardware tab's "Last wave:
                       before / after" draws (shipped: copied into assets/sessions/; under a minute)
  tests=FILES          pytest -m gpu over the comma-separated test files (default: every gpu test file)
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
ODD_SHAPES = "257x383x200,33x17x65,1001x999x1003,1100x2100x40,1100x2101x40"
# the TF32 options the technique sweep pointed to (one cold launch each read past the registry)
LEADS = "registry,128x64 (1 consumer),128x64 persistent x2 sk,192 persistent x2 hilbert,128 persistent x2"


def gpu_test_files() -> str:
    """Every test file that marks a test `gpu` (a new one is run with no change here), comma-separated."""
    files = sorted(p for p in (ROOT / "tests").glob("test_*.py") if "mark.gpu" in p.read_text())
    return ",".join(str(p.relative_to(ROOT)) for p in files)


def recipe_commands(name: str, arg: str | None, out: Path) -> list[tuple[list[str], float, str | None]]:
    """(argv, its own limit in seconds, file its stdout goes to) for each step of a recipe."""
    if name == "info":
        query = "name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu"
        return [(["nvidia-smi", f"--query-gpu={query}", "--format=csv"], 20, "gpu.txt")]
    if name == "bench":
        return [([PY, "benchmarks/record_h200.py", "--part", "bench", "--no-ceilings", "--out", str(out)], 480, None)]
    if name == "bench-sizes":
        # the bench's protocol for every GPU variant at the sizes given: a second GPU's session in a shorter call
        from record_h200 import bench_args

        from gemmviz.core.kernels.variants import VARIANTS

        gpu = [v.name for v in VARIANTS.values() if v.backend == "cuda"]
        return [
            (
                [PY, "-m", "gemmviz", *bench_args(gpu, arg or "1024,4096", ("2048x3072x4096",), out / "bench.json")],
                420,
                "bench.txt",
            )
        ]
    if name == "rungs":
        # the recording's protocol and sizes for the rungs named (those that changed since the shipped session),
        # with their baselines measured beside them; merged into a session offline (record_h200.py --replace)
        from record_h200 import MNK, SIZES, bench_args

        from gemmviz.core.kernels.variants import VARIANTS

        variants = (arg or "gpu-cpasync-any,gpu-wgmma-tf32,cublas,cublas-tf32").split(",")
        args = bench_args(variants, SIZES, MNK, out / "rungs.json")
        for flag in ("--tile", "--block"):  # the protocol's tile and block choices, for variants that have them
            if not any(VARIANTS[v].param_choices.get(flag[2:]) for v in variants):
                i = args.index(flag)
                del args[i : i + 2]
        return [([PY, "-m", "gemmviz", *args], 300, "rungs.txt")]
    if name == "ceilings":
        return [([PY, "-m", "gemmviz", "ceilings", "--save-to", str(out / "ceilings.json")], 90, "ceilings.txt")]
    if name == "sanitize":
        variants = arg or "gpu-cpasync-any,gpu-wgmma-tf32"
        return [
            (
                [
                    "compute-sanitizer",
                    "--tool",
                    tool,
                    "--error-exitcode",
                    "3",
                    PY,
                    "tools/sanitize_job.py",
                    variants,
                    ODD_SHAPES,
                ],
                90,
                f"sanitize-{tool}.txt",
            )
            for tool in ("memcheck", "racecheck")
        ]
    if name == "sanitize-options":
        where = out / "sanitize-options"
        where.mkdir(exist_ok=True)
        fp32 = [PY, "benchmarks/fp32_round3.py", "--sizes", "", "--tag", "sanitize", "--out", str(where)]
        tf32 = [PY, "benchmarks/tf32_round3.py", "--shapes", "", "--options", arg or LEADS, "--out", str(where)]
        return [
            (["compute-sanitizer", "--tool", tool, "--error-exitcode", "3", *argv], 150, f"sanitize-{tool}-{rung}.txt")
            for tool in ("memcheck", "racecheck")
            for rung, argv in (("fp32", fp32), ("tf32", tf32))
        ]
    if name == "gap":
        variants, _, sizes = (arg or "").partition("@")
        variants = variants or "gpu-cpasync,gpu-cpasync-any,cublas,gpu-wgmma-tf32,cublas-tf32"
        argv = [PY, "-m", "gemmviz", "profile", "--variants", variants, "--sizes", sizes or "1000,1024,2048,4096,8192"]
        argv += ["--gap", "--seed", "11", "--quiet", "--out", str(out / "gap-session.json")]
        return [(argv, 360, "gap.txt")]
    if name == "l2-order":
        ncu = [
            "ncu",
            "--clock-control",
            "none",
            "--metrics",
            "lts__t_sector_hit_rate.pct",
            "-k",
            "regex:gemm_cpasync_any",
        ]
        return [
            ([PY, "benchmarks/l2_order.py", "--sizes", arg or "1024,2048,4096,8192"], 240, "l2_order.txt"),
            ([*ncu, "--csv", PY, "benchmarks/l2_order.py", "--sizes", "4096,8192", "--once"], 150, "l2_order_ncu.csv"),
        ]
    if name == "fp32-round3":
        script = [PY, "benchmarks/fp32_round3.py", "--out", str(out)]
        sizes = (arg or "1024,1000,2000x3000x1000,2048x3072x4096,2048,4096,8192").split(",")
        steps: list[tuple[list[str], float, str | None]] = [
            ([*script, "--sizes", "", "--tag", "odd"], 90, "fp32_round3-odd.txt")
        ]
        steps += [([*script, "--odd", "", "--sizes", s, "--tag", s], 60, f"fp32_round3-{s}.txt") for s in sizes]
        return [*steps, ([*script, "--table", "--markdown"], 20, "fp32_round3-table.md")]
    if name == "tf32-round3":
        argv = [PY, "benchmarks/tf32_round3.py", "--out", str(out)] + (["--options", arg] if arg else [])
        return [(argv, 240, "tf32_round3.txt")]
    if name == "leads":
        # what the technique sweep pointed to, timed: the TF32 options that read past the registry by one cold
        # launch (128x64 tiles at 1000/1024^3, 192-row clusters at the odd shapes), and the FP32 rung's tuned
        # configuration on a GPU that ships none (assets/tuned/GPU.json)
        tf32 = [PY, "benchmarks/tf32_round3.py", "--out", str(out), "--options", arg or LEADS]
        tf32 += ["--shapes", "1000,1024,2000x3000x1000,2048x3072x4096"]
        tune = [PY, "-m", "gemmviz", "tune", "--variants", "gpu-cpasync-any", "--size", "4096", "--repeats", "10"]
        tune += ["--quiet", "--csv", str(out / "tune.csv"), "--save-to", str(out / "tuned.json")]
        return [(tf32, 240, "leads-tf32.txt"), (tune, 240, "leads-tune.txt")]
    if name == "techniques":
        # the builds (at most 120 s), then at most 80 s for each size's process under ncu; never more than one
        # device call holds (the sweep plans its sizes in its budget: the recorder's timeout would cut it blind)
        sizes = len(arg.split(",")) if arg else 7
        budget = min(120 + 80 * sizes, 540)
        argv = [PY, "benchmarks/technique_table.py", "sweep", "--out", str(out / "techniques")]
        argv += ["--budget", str(budget), "--per-size", "80"]
        return [(argv + (["--sizes", arg] if arg else []), budget + 30, "techniques.txt")]
    if name == "traces-small":
        argv = [PY, "benchmarks/traces_small.py", "--size", arg or "1024", "--out", str(out)]
        return [(argv, 90, "traces_small.txt")]
    if name == "tests":
        files = (arg or gpu_test_files()).split(",")
        return [
            ([PY, "-m", "pytest", "-m", "gpu", "-q", "-p", "no:cacheprovider", f], 400, f"pytest-{Path(f).stem}.txt")
            for f in files
        ]
    raise SystemExit(f"no recipe {name!r}: see benchmarks/recorder.py's docstring")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("recipes", nargs="+", help="RECIPE or RECIPE=ARG, run in the order given")
    ap.add_argument("--budget", type=float, default=570, help="seconds for all recipes together (default 570)")
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp/recorder"))
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("GEMMVIZ_CACHE_DIR", "/tmp/gemmviz-cache")
    os.environ["PYTHONUNBUFFERED"] = "1"
    start = time.monotonic()
    # the device's copy carries the working tree, not the history: the caller names the commit it copied
    commit = (
        os.environ.get("GEMMVIZ_COMMIT")
        or subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    )
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")), "?")
    record = {
        "date": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "commit": commit or None,
        "cpu": f"{cpu} ({os.cpu_count()} cores)",
        "budget_s": a.budget,
        "steps": [],
    }
    failed = 0
    for spec in a.recipes:
        name, _, arg = spec.partition("=")
        for argv, limit, stdout_name in recipe_commands(name, arg or None, out):
            left = a.budget - (time.monotonic() - start)
            if left < 10:
                record["steps"].append({"recipe": name, "command": shlex.join(argv), "status": "no time left"})
                failed += 1
                continue
            t0 = time.monotonic()
            sink = (out / stdout_name).open("w") if stdout_name else None
            try:
                p = subprocess.run(argv, cwd=ROOT, stdout=sink, stderr=subprocess.STDOUT, timeout=min(limit, left))
                status: str | int = p.returncode
            except subprocess.TimeoutExpired:
                status = f"stopped after {min(limit, left):.0f} s"
            except OSError as exc:  # the tool is not on this machine (nvidia-smi, ncu, compute-sanitizer)
                status = f"could not start: {exc}"
            finally:
                if sink:
                    sink.close()
            secs = round(time.monotonic() - t0, 1)
            failed += status != 0
            record["steps"].append({"recipe": name, "command": shlex.join(argv), "status": status, "seconds": secs})
            print(f"[{time.monotonic() - start:6.0f} s] {name}: {status} in {secs} s", flush=True)
            if stdout_name:
                tail = (out / stdout_name).read_text(errors="replace").splitlines()[-6:]
                print("    " + "\n    ".join(tail), flush=True)
    (out / "recorder.json").write_text(json.dumps(record, indent=1) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
