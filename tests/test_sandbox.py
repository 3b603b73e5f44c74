"""A hand-in runs in a sandbox (issue 46, items 1 and 4; issue 43's file names): the compiler and the emulator
in children with a memory and a time limit that the verdict names, a process group that is ended whole,
#includes only of CUDA headers and of files inside the hand-in's folder, any file name, and comment
stripping in linear time."""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from pathlib import Path

import pytest

from gemmviz.backends import exercise as ex
from gemmviz.backends import sandbox
from gemmviz.core.exercise.exercises import ExerciseError, check_signature, find_exercise, strip_comments
from gemmviz.core.exercise.includes import check_includes
from gemmviz.core.messages import render

DATA = Path(__file__).parent / "data" / "exercises"
NVCC = shutil.which("nvcc") or (Path("/usr/local/cuda/bin/nvcc") if Path("/usr/local/cuda/bin/nvcc").exists() else None)
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc not installed")
MACRO_BOMB = """#define A(x) x x x x x x x x x x x x x x x x
#define B(x) A(A(x))
#define C(x) B(B(x))
#define D(x) C(C(x))
__device__ int bomb() { return D(+1); }
"""


@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.setitem(sys.modules, "pycuda", None)  # as on a laptop without PyCUDA, even on a GPU machine


def verdicts(record: dict) -> dict:
    return {v["goal"]: (v["status"], render(v["detail"], "en")) for v in record["verdicts"]}


# --- the children's limits ------------------------------------------------------------------------------------


def test_a_child_past_the_memory_limit_is_stopped_and_says_so():
    grab = "b = bytearray(2 << 30); print(len(b))"
    t0 = time.monotonic()
    run = ex.run_child([sys.executable, "-c", grab], 30, threading.Event(), memory_bytes=64 << 20)
    assert run.stopped == "memory" and run.returncode != 0 and time.monotonic() - t0 < 10
    assert sandbox.stopped_text("memory", sandbox.Limits(30, 1 << 30)) == "stopped: more than 1 GiB of memory"


def test_a_child_that_ignores_sigterm_is_killed_with_its_whole_group(tmp_path, monkeypatch):
    """SIGTERM to the group at the time limit, then SIGKILL: a grandchild that ignores both ends with it."""
    monkeypatch.setattr(sandbox, "GRACE_S", 0.3)
    pid_file = tmp_path / "grandchild"
    code = (
        "import signal, subprocess, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "p = subprocess.Popen([sys.executable, '-c', 'import signal, time; "
        "signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(p.pid))\n"
        "time.sleep(60)\n"
    )
    t0 = time.monotonic()
    run = ex.run_child([sys.executable, "-c", code], 2.0, threading.Event())
    assert run.stopped == "time" and run.timed_out and time.monotonic() - t0 < 2.0 + sandbox.GRACE_S + 3
    grandchild = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while _alive(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(grandchild)
    assert sandbox.stopped_text("time", sandbox.Limits(60, 1 << 30)) == "stopped after 60 s"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@needs_nvcc
def test_a_macro_that_expands_to_four_billion_tokens_stops_at_the_memory_limit_on_nvcc(tmp_path, no_gpu):
    src = tmp_path / "bomb.cu"
    src.write_text(MACRO_BOMB + (DATA / "naive_good.cu").read_text("utf-8"), encoding="utf-8")
    t0 = time.monotonic()
    record = ex.check_exercise(src, find_exercise("naive"), ex.CheckOptions(emulate=False))
    status, detail = verdicts(record)["compiles"]
    assert status == "fail" and "stopped: more than 1 GiB of memory while compiling" in detail, detail
    assert time.monotonic() - t0 < 30  # 20 s and 3.9 GB before, or 700 s and 7.5 GB through NVRTC


@needs_nvcc
def test_nvcc_reading_dev_zero_stops_at_the_memory_limit(tmp_path):
    """Behind the include check (which refuses it by name): the compile's own limit, 4.2 GB before."""
    src = tmp_path / "zero.cu"
    src.write_text('#include "/dev/zero"\n', encoding="utf-8")
    out = ex.compile_student(src, find_exercise("naive"), "sm_90", tmp_path, threading.Event())
    assert not out["ok"] and out["error"].startswith("stopped: more than 1 GiB of memory while compiling")


def test_a_macro_bomb_stops_at_the_memory_limit_on_nvrtc_too(tmp_path, no_gpu, monkeypatch):
    pytest.importorskip("cuda.bindings.nvrtc")
    monkeypatch.setattr(ex, "find_cuda_tool", lambda name: None)
    src = tmp_path / "bomb.cu"
    src.write_text(MACRO_BOMB + (DATA / "naive_good.cu").read_text("utf-8"), encoding="utf-8")
    record = ex.check_exercise(src, find_exercise("naive"), ex.CheckOptions(accesses=False))
    status, detail = verdicts(record)["compiles"]
    assert status == "fail" and "stopped: more than 1 GiB of memory while compiling with NVRTC" in detail, detail


FAKE_NVRTC = """
class nvrtcResult:
    NVRTC_SUCCESS = 0


def nvrtcCreateProgram(source, name, count, headers, names):
    return 0, object()


def nvrtcCompileProgram(program, count, options):
    hog = bytearray(8 << 30)  # what a macro bomb does inside NVRTC: more memory than the check may have
    return (len(hog),)


def nvrtcDestroyProgram(program):
    return (0,)
"""


def test_nvrtc_compiles_in_a_child_under_the_memory_limit(tmp_path, no_gpu, monkeypatch):
    """Without nvcc, NVRTC compiled inside gemmviz's process (a macro bomb: 700 s and 7.5 GB, deaf to SIGTERM).
    A stand-in for NVRTC's wheels that takes 8 GiB is stopped at the limit, in a child: this process never loads
    it."""
    fake = tmp_path / "fake"
    (fake / "cuda" / "bindings").mkdir(parents=True)
    (fake / "cuda" / "__init__.py").write_text("", encoding="utf-8")
    (fake / "cuda" / "bindings" / "__init__.py").write_text("", encoding="utf-8")
    (fake / "cuda" / "bindings" / "nvrtc.py").write_text(FAKE_NVRTC, encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(fake), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setattr(ex, "find_cuda_tool", lambda name: None)
    src = tmp_path / "naive.cu"
    shutil.copy(DATA / "naive_good.cu", src)
    record = ex.check_exercise(src, find_exercise("naive"), ex.CheckOptions(accesses=False))
    status, detail = verdicts(record)["compiles"]
    assert status == "fail" and detail == "stopped: more than 1 GiB of memory while compiling with NVRTC", detail
    assert "cuda.bindings.nvrtc" not in sys.modules or "fake" not in str(sys.modules["cuda.bindings.nvrtc"])


ONE_THREAD = """format = "gemmviz-exercise"
version = 1
name = "one"
title = "one thread per block"
kernel = "gemm_naive"
starter = "naive.cu"
reference = "gpu-naive"
reference_params = { block = 16 }
threads = [1, 1]
block_tile = [1, 1]
speed_goal = 0.8
task = "C = A·B"
hints = ["h"]
"""
BIG_SHARED = """extern "C" __global__ void gemm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float pad[12288];  // 48 KiB
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    pad[threadIdx.x] = 0.0f;
    if (row < M && col < N) {
        float acc = pad[threadIdx.x];
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}
"""


@needs_nvcc
def test_48_kib_of_shared_memory_with_one_thread_per_block_stays_within_the_limit(tmp_path, no_gpu, monkeypatch):
    """5.4 GB before: 16,384 blocks' shared memory and its bookkeeping at once. The child's limit would stop it."""
    from gemmviz.core.exercise.exercises import load_exercise_file

    (tmp_path / "one.toml").write_text(ONE_THREAD, encoding="utf-8")
    (tmp_path / "naive.cu").write_text(BIG_SHARED, encoding="utf-8")
    (tmp_path / "big.cu").write_text(BIG_SHARED, encoding="utf-8")
    monkeypatch.setattr("gemmviz.backends.exercise_emulate.EMULATED_SHAPES", ((1, 1, 1), (100, 77, 129)))
    record = ex.check_exercise(
        tmp_path / "big.cu", load_exercise_file(tmp_path / "one.toml"), ex.CheckOptions(accesses=False)
    )
    assert verdicts(record)["correct"][0] == "pass", verdicts(record)["correct"]


@needs_nvcc
def test_an_emulated_run_past_its_time_is_stopped_and_the_verdict_says_after_how_long(tmp_path, no_gpu, monkeypatch):
    monkeypatch.setitem(ex.STEP_LIMITS_S, "emulate", 0.2)  # less than the child needs to start
    src = tmp_path / "naive.cu"
    shutil.copy(DATA / "naive_good.cu", src)
    record = ex.check_exercise(src, find_exercise("naive"), ex.CheckOptions(accesses=False))
    found = verdicts(record)
    assert found["compiles"][0] == "pass" and found["correct"][0] == "skipped"
    assert found["correct"][1].startswith("stopped after 0.2 s (the emulated run of your kernel)")


@needs_nvcc
@pytest.mark.parametrize(
    "line",
    ["__device__ float big[1 << 28];", 'if (row == 0 && col == 0) printf("%999999999d\\n", row);'],
    ids=["device-array-1-GiB", "printf-width"],
)
def test_a_hand_in_that_asks_for_gigabytes_stays_within_the_check_limit(tmp_path, no_gpu, line):
    """6.2 GB (a 1 GiB __device__ array) and 2 GB (a printf a billion characters wide) in gemmviz's own process
    before; now in the emulate child, whose peak resident memory the limit holds (whether the emulator refuses,
    stops or runs it)."""
    import resource

    good = (DATA / "naive_good.cu").read_text("utf-8")
    if line.startswith("__device__"):
        text = good.replace('extern "C"', line + '\nextern "C"', 1).replace("= sum;", "= sum + big[row];")
    else:
        text = good.replace("= sum;", "= sum; " + line)
    assert text != good
    src = tmp_path / "naive.cu"
    src.write_text(text, encoding="utf-8")
    t0, own_kib = time.monotonic(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    record = ex.check_exercise(src, find_exercise("naive"), ex.CheckOptions(accesses=False))
    assert time.monotonic() - t0 < 60 and record["compile"]["ok"]
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - own_kib < 200 * 1024  # nothing of it in here
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # every child this process waited for
    assert peak_kib * 1024 <= sandbox.MEMORY_LIMIT_BYTES + sandbox.BASE_BYTES


# --- file names -------------------------------------------------------------------------------------------------


@needs_nvcc
def test_any_file_name_compiles_and_messages_keep_the_users_name(tmp_path, no_gpu):
    """A name with a comma, spaces and quotes failed with 'ptxas fatal' (issue 43); a safely named copy compiles."""
    good = tmp_path / 'tiled, v2 "final".cu'
    shutil.copy(DATA / "naive_good.cu", good)
    record = ex.check_exercise(good, find_exercise("naive"), ex.CheckOptions(emulate=False))
    assert record["compile"]["ok"], record["compile"]
    bad = tmp_path / "mein kernel (1).cu"
    bad.write_text((DATA / "naive_good.cu").read_text("utf-8").replace("C[row * N + col] = ", "C[row * N + col] = x"))
    record = ex.check_exercise(bad, find_exercise("naive"), ex.CheckOptions(emulate=False))
    assert not record["compile"]["ok"]
    assert any(d["line"] and "identifier" in d["message"] for d in record["compile"]["diagnostics"])
    assert "mein kernel (1).cu" in record["compile"]["log"] and "mein_kernel" not in record["compile"]["log"]
    assert record["file"].endswith("mein kernel (1).cu")


# --- includes ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ('#include "/dev/zero"\n', "/dev/zero"),
        ('#include "/etc/passwd"\n', "/etc/passwd"),
        ('#include "../answer.cu"\n', "../answer.cu"),
        ("#include <../answer.cu>\n", "../answer.cu"),
        ('#define KEY "/etc/passwd"\n#include KEY\n', "KEY"),
        ("%:  inc\\\nlude </etc/passwd>\n", "/etc/passwd"),  # the digraph, and a line spliced in the word
        ('#/* a comment */include "/etc/passwd"\n', "/etc/passwd"),
        ('#include_next "/etc/passwd"\n', "/etc/passwd"),
        ('#include "link.h"\n', "leads to"),
        ('#include "mine.h"\n', "answer.cu"),  # a header of its own that includes what it may not
        ("#include <answer.cu>\n", "answer.cu"),  # not in the folder, not a CUDA header
        ("#include <cuda/../../../../../../../../etc/passwd>\n", "etc/passwd"),  # out of the toolkit's folder
        ('#include "cuda/../../../../../../../../etc/passwd"\n', "etc/passwd"),
    ],
)
def test_an_include_outside_the_folder_is_refused_by_name(tmp_path, text, names):
    hand_in = tmp_path / "hand-in"
    hand_in.mkdir()
    (tmp_path / "answer.cu").write_text("// the answer key\n", encoding="utf-8")
    (hand_in / "link.h").symlink_to(tmp_path / "answer.cu")
    (hand_in / "mine.h").write_text('#pragma once\n#include "../answer.cu"\n', encoding="utf-8")
    with pytest.raises(ExerciseError, match="a hand-in may include only|name made by a macro") as caught:
        check_includes(text + "__global__ void k() {}\n", hand_in, "k.cu")
    assert names in str(caught.value) and "k.cu:" in str(caught.value)


def test_cuda_headers_and_files_of_its_own_folder_are_included(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "tile.h").write_text('#include "../common.h"\n#define TILE 16\n', encoding="utf-8")
    (tmp_path / "common.h").write_text("#include <cuda_fp16.h>\n#include <cooperative_groups/reduce.h>\n")
    text = '#include <cstdio>\n#include "sub/tile.h"\n#include <cuda_runtime.h>\n// #include "/etc/passwd"\n'
    text += 'const char* s = "#include </etc/passwd>";\n'
    check_includes(text, tmp_path, "k.cu")


@needs_nvcc
def test_a_hand_in_compiles_with_a_header_from_its_folder_and_is_refused_one_from_outside(tmp_path, no_gpu):
    (tmp_path / "tile.h").write_text("#define ROW_OF(r) (r)\n", encoding="utf-8")
    src = tmp_path / "naive.cu"
    src.write_text('#include "tile.h"\n' + (DATA / "naive_good.cu").read_text("utf-8"), encoding="utf-8")
    assert ex.check_exercise(src, find_exercise("naive"), ex.CheckOptions(emulate=False))["compile"]["ok"]
    src.write_text(f'#include "{DATA / "naive_good.cu"}"\n' + src.read_text("utf-8"), encoding="utf-8")
    with pytest.raises(ExerciseError, match="naive.cu:1: #include"):
        ex.check_exercise(src, find_exercise("naive"), ex.CheckOptions(emulate=False))


@needs_nvcc
def test_a_folder_whose_name_a_shell_would_read_gives_its_headers_without_running_anything(tmp_path, no_gpu):
    """nvcc hands its options to a shell of its own: the folder reaches it as a link of a plain name."""
    folder = tmp_path / 'class $(touch PWNED) "q"'
    folder.mkdir()
    (folder / "tile.h").write_text("#define ROW_OF(r) (r)\n", encoding="utf-8")
    src = folder / "naive.cu"
    src.write_text('#include "tile.h"\n' + (DATA / "naive_good.cu").read_text("utf-8"), encoding="utf-8")
    assert ex.check_exercise(src, find_exercise("naive"), ex.CheckOptions(emulate=False))["compile"]["ok"]
    assert not list(tmp_path.rglob("PWNED")) and not list(Path.cwd().glob("PWNED"))


# --- comments -----------------------------------------------------------------------------------------------------


def test_comment_stripping_is_linear_and_leaves_string_literals_alone():
    text = 'printf("/* not a comment"); int keep; printf("*/"); // gone\n/* gone */ x'
    assert strip_comments(text) == 'printf("/* not a comment"); int keep; printf("*/");        \n           x'
    hostile = '"/* /* /* /* /* /* /* /* /* /*"\n' * 8000  # 250 KB: 70 s to refuse before
    t0 = time.monotonic()
    assert strip_comments(hostile) == hostile
    with pytest.raises(ExerciseError):
        check_signature(hostile, find_exercise("naive"))
    for unclosed in ('extern "C" { __global__ void gemm_naive(', 'extern "C" __global__ void __launch_bounds__('):
        with pytest.raises(ExerciseError):  # 13 s and 2 s to refuse: each '(' was scanned to the end of the file
            check_signature(unclosed * (250_000 // len(unclosed)), find_exercise("naive"))
    assert time.monotonic() - t0 < 5
    assert strip_comments("/* " * 50_000).strip() == ""


def test_the_child_environment_keeps_libraries_to_one_thread():
    env = sandbox.limited_env({"PATH": os.environ.get("PATH", "")})
    assert env["OPENBLAS_NUM_THREADS"] == "1" and env["PATH"] == os.environ.get("PATH", "")
