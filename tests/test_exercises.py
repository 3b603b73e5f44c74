"""Exercises without a GPU: the exercise files, the student's source checks, the CLI, and the recorded
checks (tests/data/exercises/records/, made on the H200 by tools/exercise_records.py) replayed through the
verdicts, the causes, the record loader and the report."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
import threading
import time
from pathlib import Path

import pytest

from gemmviz.backends.exercise import Cancelled, run_child
from gemmviz.cli.main import main
from gemmviz.core.exercise.check import finish, parse_nvcc, parse_sanitizer
from gemmviz.core.exercise.exercises import (
    ExerciseError,
    check_signature,
    find_exercise,
    parse_exercise,
    read_source,
    shipped_exercises,
)
from gemmviz.core.exercise.record import CheckFileError, load_check, validate_check
from gemmviz.core.exercise.report import report_text
from gemmviz.core.messages import render
from tests.checks.exercises import shipped_exercises_load_in_both_languages

DATA = Path(__file__).parent / "data" / "exercises"
EXPECTED = {k: v for k, v in json.loads((DATA / "expected.json").read_text(encoding="utf-8")).items() if k[0] != "_"}
NVCC = shutil.which("nvcc") or (Path("/usr/local/cuda/bin/nvcc") if Path("/usr/local/cuda/bin/nvcc").exists() else None)


def test_shipped_exercises_load_in_both_languages():
    shipped_exercises_load_in_both_languages()


GOOD = (DATA.parents[2] / "assets" / "exercises" / "tiled.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (('format = "gemmviz-exercise"', 'format = "lesson"'), "not a gemmviz exercise"),
        (("threads = [16, 16]", "threads = [64, 64]"), "at most 1024"),
        (("threads = [16, 16]", "threads = [16]"), "'threads'"),
        (('reference = "gpu-tiled"', 'reference = "cublas"'), "'reference'"),
        (("reference_params = { tile = 16 }", "reference_params = { tile = 7 }"), "no tile = 7"),
        (("speed_goal = 0.8", "speed_goal = nan"), "speed_goal"),
        (("speed_goal = 0.8", "speed_goal = -1"), "speed_goal"),
        (('starter = "tiled.cu"', 'starter = "../../etc/passwd.cu"'), "no folders"),
        (('kernel = "gemm_tiled"', 'kernel = "gemm tiled; system()"'), "'kernel'"),
        (("defines = { TILE = 16 }", 'defines = { "TILE=1 -o /tmp/x" = 16 }'), "defines"),
        (("version = 1", "version = 99"), "version 99"),
        (('name = "tiled"', 'name = "Tiled/../x"'), "'name'"),
    ],
)
def test_a_bad_exercise_file_is_refused_naming_the_field(change, words, tmp_path):
    text = GOOD.replace(*change)
    assert text != GOOD
    with pytest.raises(ExerciseError, match=None) as info:
        parse_exercise(text, "my.toml", tmp_path)
    assert words in str(info.value) and "my.toml" in str(info.value)


def test_an_exercise_with_fewer_chinese_hints_is_refused(tmp_path):
    text = GOOD.replace('    "每个线程都必须到达两个屏障', '    # "').replace('不要包住整个循环。",', "")
    with pytest.raises(ExerciseError, match="as many hints"):
        parse_exercise(text, "x.toml", tmp_path)


def test_not_valid_toml_and_huge_files_are_refused(tmp_path):
    with pytest.raises(ExerciseError, match="not valid TOML"):
        parse_exercise("name = [", "x.toml", tmp_path)
    big = tmp_path / "big.toml"
    big.write_bytes(b"#" * 100_000)
    with pytest.raises(ExerciseError, match="cannot read"):
        find_exercise(str(big))
    with pytest.raises(ExerciseError, match="no exercise named 'nope'"):
        find_exercise("nope")


@pytest.mark.parametrize(
    ("source", "words"),
    [
        ("int main() { return 0; }", "not a CUDA kernel"),
        ("__global__ void gemm_tiled(const float* A, const float* B, float* C, int M, int N, int K) {}", 'extern "C"'),
        ('extern "C" __global__ void other(float* C) {}', "no kernel named gemm_tiled"),
        ('extern "C" __global__ void gemm_tiled(float* C, int M) {}', "must take"),
        (
            'extern "C" __global__ void gemm_tiled(const float* A, const float* B, const float* C, int M, int N, int K) {}',
            "must take",
        ),
    ],
)
def test_a_source_that_is_not_the_exercise_kernel_gets_a_clear_message(source, words):
    with pytest.raises(ExerciseError) as info:
        check_signature(source, find_exercise("tiled"))
    assert words in str(info.value)


def test_huge_binary_and_non_utf8_sources_are_refused(tmp_path):
    (tmp_path / "huge.cu").write_bytes(b"//" + b"x" * 300_000)
    (tmp_path / "bin.cu").write_bytes(b"\x7fELF\0\0\0")
    (tmp_path / "latin.cu").write_bytes(b"// caf\xe9\n")
    with pytest.raises(ExerciseError, match="larger than 256 KiB"):
        read_source(tmp_path / "huge.cu")
    with pytest.raises(ExerciseError, match="binary"):
        read_source(tmp_path / "bin.cu")
    with pytest.raises(ExerciseError, match="not UTF-8"):
        read_source(tmp_path / "latin.cu")
    with pytest.raises(ExerciseError, match="folder"):
        read_source(tmp_path)


def test_nvcc_messages_are_mapped_to_the_students_lines():
    log = (
        '/home/s/tiled.cu(23): error: identifier "colum" is undefined\n'
        '/usr/include/x.h(5): warning #177-D: unused\n1 error detected in the compilation of "tiled.cu".'
    )
    found = parse_nvcc(log, "tiled.cu")
    assert found[0] == {"line": 23, "severity": "error", "message": 'identifier "colum" is undefined'}
    assert found[1]["line"] is None and "x.h" in found[1]["message"]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_recorded_check_gets_its_verdicts_and_cause(name):
    record = load_check(DATA / "records" / f"{name}.check.json")
    want = EXPECTED[name]
    got = {v["goal"]: v["status"] for v in record["verdicts"]}
    assert {g: got[g] for g in want["goals"]} == want["goals"]
    if want["cause"] is None:
        assert record["cause"] is None and all(s == "pass" for s in got.values())
    else:
        for words in want["cause"]:
            assert words in record["cause"], record["cause"]
    text = report_text(record)
    assert "likeliest cause" in text if want["cause"] else "likeliest cause" not in text


@pytest.mark.parametrize("name", ["tiled_nosync", "naive_noguard", "tiled_or"])
def test_recorded_sanitizer_logs_parse_to_the_recorded_findings(name):
    record = json.loads((DATA / "records" / f"{name}.check.json").read_text(encoding="utf-8"))
    source = Path(record["file"]).name
    for tool, part in record["sanitizer"].items():
        if isinstance(part, dict) and part.get("log"):
            found = parse_sanitizer(tool, part["log"], source)
            assert [(f["kind"], f["line"]) for f in found] == [(f["kind"], f["line"]) for f in part["findings"]]


def test_the_error_map_and_first_wrong_element_are_kept():
    record = load_check(DATA / "records" / "naive_swapped.check.json")
    wrong = [s for s in record["shapes"] if s["status"] == "wrong"]
    assert wrong and all(s["error_map"]["wrong"] and s["first_wrong"] for s in wrong)
    assert next(s for s in record["shapes"] if s["shape"] == [1, 1, 1])["status"] == "ok"  # 1x1: A·Bᵀ = A·B


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        (lambda r: r.update(format="gemmviz-session"), "not a gemmviz exercise check"),
        (lambda r: r.update(version=7), "check version 7"),
        (lambda r: r["shapes"][0].update(shape=[10**9, 1, 1]), "'check.shapes[0].shape[0]' must be a whole number"),
        (lambda r: r["shapes"][0].update(status="great"), "'check.shapes[0].status' must be one of"),
        (lambda r: r["timing"]["yours"].update(median_ms=-1), "median_ms"),
        (lambda r: r["timing"]["yours"].update(median_ms=1e308), "median_ms"),
        (lambda r: r["timing"]["yours"].update(median_ms=5e-324), "median_ms"),
        (lambda r: r["counters"]["yours"].update(x=float("nan")), "counters.yours.x"),
        (lambda r: r["shapes"][0].update(error_map={"cell": [1, 1], "wrong": [[0] * 100000]}), "error map"),
        (lambda r: r["shapes"][0].update(error_map={"cell": [1, 1], "wrong": [[]]}), "rows are not empty"),
        (lambda r: r.update(shapes=[r["shapes"][0]] * 1000), "at most 32"),
        (lambda r: r["sanitizer"]["memcheck"].update(findings=[{"kind": "k", "message": "x", "line": -4}]), "line"),
        (lambda r: r["sanitizer"]["memcheck"].update(findings=[{"message": "x"}]), "kind' is missing"),
        (lambda r: r["sanitizer"]["racecheck"].update(errors="many"), "racecheck.errors"),
        (lambda r: r["compile"].update(diagnostics=[{"message": "x"}]), "severity' is missing"),
        (lambda r: r["compile"].update(diagnostics=[{"severity": "error", "message": "x", "line": "9"}]), "line"),
        (lambda r: r.update(compile=[1]), "'check.compile' must be an object"),
        (lambda r: r.update(environment={"cc": 9}), "environment.cc"),
        (lambda r: r.update(not_run="abc"), "not_run"),
        (lambda r: r.update(speed_goal=0), "speed_goal"),
        (lambda r: r.update(speed_goal=None), "speed_goal"),
        (lambda r: r["timing"].update(shape=7), "timing.shape"),
        (lambda r: r["counters"].update(shape="a"), "counters.shape"),
        (lambda r: r.update(recorded_reference={"gpu": "x"}), "recorded_reference.session' is missing"),
        (lambda r: r["shapes"][0].update(timeout_s="10"), "timeout_s"),
        (lambda r: r.update(file="x" * 5000), "'check.file'"),
    ],
)
def test_a_hostile_check_record_is_refused(edit, words):
    record = json.loads((DATA / "records" / "tiled_good.check.json").read_text(encoding="utf-8"))
    edit(record)
    with pytest.raises(CheckFileError, match=None) as info:
        validate_check(record)
    assert words in str(info.value)


@pytest.mark.parametrize("text", ["{not json", "[" * 200_000, '{"version": 1' + "0" * 5000 + "}", "\ufeff{}"])
def test_a_corrupt_check_file_is_refused(tmp_path, text):
    bad = tmp_path / "x.check.json"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(CheckFileError):
        load_check(bad)


def test_unknown_fields_are_refused_and_a_long_path_is_kept():
    record = json.loads((DATA / "records" / "tiled_good.check.json").read_text(encoding="utf-8"))
    record["shapes"][0]["reason"] = None
    record["file"] = "/" + "d" * 3000 + "/tiled.cu"
    assert validate_check(record)["file"] == record["file"]
    record["sanitizer"]["evil"] = {"findings": 5}
    with pytest.raises(CheckFileError, match="'check.sanitizer.evil' is not a field"):
        validate_check(record)


def test_the_report_shows_no_terminal_control_characters():
    record = json.loads((DATA / "records" / "tiled_or.check.json").read_text(encoding="utf-8"))
    record["source"] = record["source"].replace("sum;", "sum; // \x1b]0;PWNED\x07\x1b[2J")
    record["file"] = "\x1b[31mred.cu"
    record["source_sha256"] = hashlib.sha256(record["source"].encode()).hexdigest()  # the changed source's
    text = report_text(validate_check(record))
    assert "\x1b" not in text and "\x07" not in text and "red.cu" in text


def test_cli_lists_starts_and_hints(tmp_path, capsys):
    assert main(["exercise", "--list"]) == 0
    assert "tiled\t" in capsys.readouterr().out
    assert main(["exercise", "start", "tiled", str(tmp_path / "w")]) == 0
    assert (tmp_path / "w" / "tiled.cu").read_text(encoding="utf-8") == find_exercise("tiled").starter_text()
    assert "shared memory" in (tmp_path / "w" / "tiled.md").read_text(encoding="utf-8")
    (tmp_path / "w" / "tiled.cu").write_text("// my work", encoding="utf-8")
    assert main(["exercise", "start", "tiled", str(tmp_path / "w")]) == 1  # never over the student's work
    assert (tmp_path / "w" / "tiled.cu").read_text(encoding="utf-8") == "// my work"
    assert "already there" in capsys.readouterr().err
    assert main(["exercise", "hint", "tiled", "2", "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    assert "hint 2/4" in out and "hint 3/4" not in out
    assert main(["exercise", "hint", "tiled", "9"]) == 2
    assert main(["exercise"]) == 2
    assert main(["exercise", "start", "nope"]) == 2


def test_cli_show_prints_a_recorded_check(capsys):
    assert main(["exercise", "show", str(DATA / "records" / "tiled_conflicts.check.json")]) == 0
    out = capsys.readouterr().out
    assert "FAIL  speed" in out and "bank-conflicted" in out and "2.11 ms" in out


@pytest.mark.skipif(NVCC is None, reason="nvcc not installed")
def test_check_without_a_gpu_compiles_and_says_what_it_cannot_do(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "pycuda", None)  # as on a laptop without PyCUDA
    work = tmp_path / "w"
    work.mkdir()
    shutil.copy(DATA / "tiled_good.cu", work / "tiled.cu")
    assert main(["exercise", "check", str(work / "tiled.cu"), "--no-emulate"]) == 1  # tests/test_emulator.py: without
    out = capsys.readouterr().out
    assert "PASS  compiles" in out and "skip  correct" in out and "no GPU" in out
    assert f"gemmviz exercise check {work / 'tiled.cu'}" in out and "recorded on NVIDIA H200" in out
    saved = load_check(work / "tiled.check.json")
    assert saved["no_gpu"] and saved["recorded_reference"]["rows"]
    assert sorted(p.name for p in work.iterdir()) == ["tiled.check.json", "tiled.cu"]  # nothing else written


@pytest.mark.skipif(NVCC is None, reason="nvcc not installed")
def test_check_shows_a_compile_error_at_the_students_line(tmp_path, capsys):
    shutil.copy(DATA / "naive_compile_error.cu", tmp_path / "naive.cu")
    assert main(["exercise", "check", str(tmp_path / "naive.cu"), "--json"]) == 1
    record = json.loads(capsys.readouterr().out)
    first = record["verdicts"][0]
    assert {k: first[k] for k in ("goal", "status", "detail")} == {
        "goal": "compiles",
        "status": "fail",
        "detail": 'line 8: identifier "colum" is undefined',
    }
    assert render(first["message"], "zh") == '第 8 行：identifier "colum" is undefined'
    assert finish(record)["cause"].startswith("nvcc: line 8")


def test_check_refuses_an_unwritable_record_before_any_work(tmp_path, capsys):
    shutil.copy(DATA / "tiled_good.cu", tmp_path / "tiled.cu")
    assert main(["exercise", "check", str(tmp_path / "tiled.cu"), "--out", str(tmp_path / "no" / "x.json")]) == 1
    assert "x.json" in capsys.readouterr().err


def test_a_child_past_its_limit_or_cancelled_is_killed(tmp_path):
    sleeper = [sys.executable, "-c", 'import time; print(\'{"event": "up"}\', flush=True); time.sleep(60)']
    run = run_child(sleeper, 0.5, threading.Event())
    assert run.timed_out and run.events == [{"event": "up"}]
    cancel = threading.Event()
    ended = []

    def go():
        try:
            run_child(sleeper, 60, cancel)
        except Cancelled:
            ended.append(time.monotonic())

    worker = threading.Thread(target=go)
    worker.start()
    time.sleep(0.3)  # let the child start (cancelling at any point must work; this only makes it a running one)
    asked = time.monotonic()
    cancel.set()
    worker.join(10)
    assert ended and ended[0] - asked < 1.5


def test_start_never_replaces_the_task_or_a_link_without_force(tmp_path, capsys):
    work = tmp_path / "w"
    work.mkdir()
    (work / "tiled.md").write_text("my notes", encoding="utf-8")
    assert main(["exercise", "start", "tiled", str(work)]) == 1
    assert (work / "tiled.md").read_text(encoding="utf-8") == "my notes" and not (work / "tiled.cu").exists()
    elsewhere = tmp_path / "elsewhere.md"
    elsewhere.write_text("keep", encoding="utf-8")
    (work / "tiled.md").unlink()
    (work / "tiled.md").symlink_to(elsewhere)
    assert main(["exercise", "start", "tiled", str(work)]) == 1
    assert elsewhere.read_text(encoding="utf-8") == "keep"
    assert "already there" in capsys.readouterr().err


@pytest.mark.parametrize("link", ["tiled.check.json", "link.json"])
def test_the_record_never_replaces_the_students_kernel(tmp_path, capsys, link):
    shutil.copy(DATA / "tiled_good.cu", tmp_path / "tiled.cu")
    (tmp_path / link).symlink_to(tmp_path / "tiled.cu")
    extra = [] if link == "tiled.check.json" else ["--out", str(tmp_path / link)]
    assert main(["exercise", "check", str(tmp_path / "tiled.cu"), *extra]) == 1
    assert (tmp_path / "tiled.cu").read_text(encoding="utf-8") == (DATA / "tiled_good.cu").read_text(encoding="utf-8")
    assert "link" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "words"),
    [(["--out", ""], "empty file name"), (["--seed", "-1"], "--seed"), (["--seed", str(2**64)], "--seed")],
)
def test_check_refuses_bad_options_before_any_work(tmp_path, capsys, args, words):
    shutil.copy(DATA / "tiled_good.cu", tmp_path / "tiled.cu")
    assert main(["exercise", "check", str(tmp_path / "tiled.cu"), *args]) == 2
    assert words in capsys.readouterr().err


@pytest.mark.parametrize(
    ("source", "ok"),
    [
        (
            'extern "C" {\n__global__ void gemm_tiled(const float* A, const float* B, float* C, int M, int N, int K) {}\n}',
            True,
        ),
        (
            'extern "C" __global__ void gemm_tiled(const float A[], const float B[], float C[], int M, int N, int K) {}',
            True,
        ),
        (
            'extern "C" __global__ void gemm_tiled(const double* A, const double* B, double* C, int M, int N, int K) {}',
            False,
        ),
        (
            '// extern "C" __global__ void gemm_tiled(const float* A, const float* B, float* C, int M, int N, int K)\n'
            'extern "C" __global__ void my_kernel(float* C) {}',
            False,
        ),
    ],
)
def test_signatures_in_blocks_arrays_types_and_comments(source, ok):
    exercise = find_exercise("tiled")
    if ok:
        check_signature(source, exercise)
    else:
        with pytest.raises(ExerciseError):
            check_signature(source, exercise)


def test_utf16_sources_are_named_as_such(tmp_path):
    (tmp_path / "u16.cu").write_bytes("// kernel\n".encode("utf-16"))
    with pytest.raises(ExerciseError, match="UTF-16"):
        read_source(tmp_path / "u16.cu")


def test_preprocessor_errors_and_echoed_lines():
    from gemmviz.core.exercise.check import diagnostic_log

    log = (
        "tiled.cu:3:2: error: #error stop here\n"
        'tiled.cu(9): error: identifier "x" is undefined\n      root:x:0:0:root:/root:/bin/bash\n       ^\n'
    )
    found = parse_nvcc(log, "tiled.cu")
    assert [(d["line"], d["message"]) for d in found] == [(3, "#error stop here"), (9, 'identifier "x" is undefined')]
    assert "root:x" not in diagnostic_log(log)


def test_source_lines_are_counted_as_nvcc_counts_them():
    from gemmviz.core.exercise.check import source_lines

    lines = source_lines("a\u2028b\x0cc\nd\x1b[2J")
    assert lines == ["a\\u2028b\\x0cc", "d\\x1b[2J"]  # shown as visible escapes (core/text.printable)


@pytest.mark.skipif(NVCC is None, reason="nvcc not installed")
def test_a_compile_reading_stdin_ends_at_once(tmp_path):
    """nvcc gets no stdin: an #include "/dev/stdin" reads nothing instead of waiting for the terminal."""
    from gemmviz.backends.exercise import compile_student

    src = tmp_path / "tiled.cu"
    src.write_text('#include "/dev/stdin"\n' + (DATA / "tiled_good.cu").read_text(encoding="utf-8"), encoding="utf-8")
    t0 = time.monotonic()
    out = compile_student(src, find_exercise("tiled"), "sm_90", tmp_path, threading.Event())
    assert time.monotonic() - t0 < 60 and "error" not in (out.get("error") or "")


def test_without_pycuda_the_check_names_the_one_install_command(tmp_path, monkeypatch):
    from gemmviz.backends.exercise import gpu_arch

    monkeypatch.setitem(sys.modules, "pycuda", None)  # as on a laptop without PyCUDA
    device, why = gpu_arch(tmp_path, threading.Event())
    assert device is None and 'pip install "gemmviz[cuda]"' in why and "pip install pycuda" not in why


def test_two_exercises_with_one_order_are_refused_naming_both_files(tmp_path, monkeypatch):
    from gemmviz.core.exercise import exercises

    shipped = exercises.exercise_files()
    mine = tmp_path / "zzsame.toml"
    mine.write_text(GOOD.replace('name = "tiled"', 'name = "zzsame"'), encoding="utf-8")
    (tmp_path / "tiled.cu").write_text("", encoding="utf-8")
    monkeypatch.setattr(exercises, "exercise_files", lambda: [*shipped, mine])
    with pytest.raises(ExerciseError, match=r"zzsame.toml: order = 3 is also tiled.toml's: each exercise has its own"):
        shipped_exercises()
    mine.write_text(GOOD.replace("order = 3", "order = 98"), encoding="utf-8")
    with pytest.raises(ExerciseError, match=r"zzsame.toml: name = 'tiled' is also tiled.toml's"):
        shipped_exercises()
