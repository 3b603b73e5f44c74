"""Hostile input, round 7 (an outside sweep of every file kind and command): what it found, each fixed here.

1. `lesson --export DIR` deleted every step-NN*.png in DIR it had not just written: a teacher's own
   step-02-my-diagram.png went with a shorter lesson's export, rc 0.
2. `export S.json --chart trace -o S.json` replaced the session it read with a Chrome trace, rc 0.
3. `--clock-mhz 1e-300` (or 1.98, GHz typed for MHz) stretched a trace to 1e305 µs.
4. A lesson step whose results were all refused, or lacked the block trace its chart needs, exported an empty
   chart with no warning.
(Two windows sharing one recovery file: tests/test_close.py; stdout full with Python unbuffered:
tests/test_stdout_full.py.)
"""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")

from gemmviz.cli.main import main
from gemmviz.ui.lesson.render import SLIDE_RE, SLIDES_MANIFEST


def _export(out, lesson: str = "seed001-10min") -> list[str]:
    """The slides the export names as its own (step-NN.png), in order."""
    assert main(["lesson", lesson, "--export", str(out), "--size", "320x320"]) == 0
    return sorted(p.name for p in out.iterdir() if SLIDE_RE.fullmatch(p.name))


def test_a_lesson_export_removes_only_slides_it_wrote(qapp, tmp_path):
    out = tmp_path / "slides"
    out.mkdir()
    mine = {"step-02-my-diagram.png": b"mine", "step-10 (photo of whiteboard).png": b"mine", "step-99.png": b"mine"}
    for name, data in mine.items():
        (out / name).write_bytes(data)
    short = [n for n in _export(out) if n != "step-99.png"]  # the ten-minute lesson's slides, beside the teacher's
    assert all((out / name).read_bytes() == data for name, data in mine.items())
    long = [n for n in _export(out, "seed001") if n != "step-99.png"]  # the whole lesson: more slides
    assert len(long) > len(short) + 1
    (out / long[-1]).write_bytes(b"the teacher's edit")  # a slide of ours the teacher changed since
    assert [n for n in _export(out) if n != "step-99.png"] == [*short, long[-1]]  # the rest of the long one gone
    assert all((out / name).read_bytes() == data for name, data in mine.items())  # the teacher's files stay
    assert (out / long[-1]).read_bytes() == b"the teacher's edit"
    listed = (out / SLIDES_MANIFEST).read_text(encoding="utf-8").splitlines()
    assert [line.split()[0] for line in listed] == short  # the manifest names this export's slides only


@pytest.fixture
def traced(tmp_path):
    """A copy of the shipped H200 session with its pipeline trace beside it, as `export --chart trace` finds it."""
    import shutil

    from gemmviz.cli.export import shipped_session

    for name in ("h200-2026-12-02", "h200-2026-12-02-pipeline"):
        shutil.copy(shipped_session(name), tmp_path / f"{name}.json")
    return tmp_path


@pytest.mark.parametrize("victim", ["h200-2026-12-02.json", "h200-2026-12-02-pipeline.json"])
def test_a_trace_export_never_writes_over_a_file_it_reads(traced, victim, capsys):
    """`export S.json --chart trace -o S.json` replaced the measured session with a Chrome trace (rc 0); the same
    with the pipeline file it reads by default."""
    before = (traced / victim).read_bytes()
    argv = ["export", str(traced / "h200-2026-12-02.json"), "--chart", "trace", "-o", str(traced / victim)]
    assert main(argv) == 2
    assert "this command reads; write the trace elsewhere" in capsys.readouterr().err
    assert (traced / victim).read_bytes() == before
    link = traced / "link.json"  # through a link too
    link.symlink_to(traced / victim)
    assert main([*argv[:-1], str(link)]) == 2
    assert (traced / victim).read_bytes() == before


@pytest.mark.parametrize(("clock", "says"), [("1e-300", ""), ("1.98", "in GHz? 1.98 GHz is 1980 MHz"), ("0", "")])
def test_an_sm_clock_no_gpu_runs_at_is_refused(traced, tmp_path, clock, says, capsys):
    """--clock-mhz 1e-300 stretched the pipeline to 3e305 µs, and 1.98 (GHz typed for MHz) made it 1000× long."""
    out = tmp_path / "t.json"
    argv = ["export", str(traced / "h200-2026-12-02.json"), "--chart", "trace", "--clock-mhz", clock, "-o", str(out)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "an SM clock is from 100 to 10,000 MHz" in err and says in err
    assert not out.exists()


def test_a_lesson_step_of_refused_results_or_without_a_trace_is_warned_of(tmp_path, capsys):
    """A chart step of the CPU loop at 8192³ (refused in the H200 recording) exported an empty chart with no
    warning, as did an SM-trace step of a result with no block trace; a step naming no result was warned of."""
    import shutil

    from gemmviz.cli.export import shipped_session

    shutil.copy(shipped_session("h200-2026-12-02"), tmp_path / "h200-2026-12-02.json")  # beside the lesson
    lesson = tmp_path / "gaps.toml"
    lesson.write_text(
        'title = "T"\nsummary = "S"\nsession = "h200-2026-12-02.json"\n\n'
        '[[step]]\ntitle = "CPU loop at 8192"\ntext = "The CPU loop."\nview = "chart"\nchart = "gflops"\n'
        'series = ["cpu-naive"]\nsizes = [8192]\n\n'
        '[[step]]\ntitle = "Blocks on SMs"\ntext = "Where the blocks ran."\nview = "hardware"\n'
        'chart = "sm-trace"\nseries = ["gpu-naive[block=32]"]\nsizes = [4096]\n',
        encoding="utf-8",
    )
    assert main(["lesson", str(lesson), "--export", str(tmp_path / "out"), "--size", "320x320"]) == 0
    err = capsys.readouterr().err
    assert "step 1 (CPU loop at 8192): its 1 result(s) in" in err and "(refused): none is drawn" in err
    assert "step 2 (Blocks on SMs): none of its results in" in err and "has block traces" in err


def test_a_second_lesson_export_into_a_folder_being_written_is_refused(qapp, tmp_path, capsys):
    """Two exports into one folder at once both said they wrote it; the folder held whichever finished last."""
    import subprocess
    import sys

    from gemmviz.core import fileio

    out = tmp_path / "slides"
    out.mkdir()
    lock = fileio._lock_path(out / SLIDES_MANIFEST)  # what an export under way in another gemmviz holds
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import fcntl,sys;f=open({str(lock)!r},'w');fcntl.flock(f,2);print('held',flush=True);sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        assert main(["lesson", "seed001-10min", "--export", str(out), "--size", "320x320"]) == 1
    finally:
        holder.communicate("")
    assert "another gemmviz is writing it" in capsys.readouterr().err
    assert not any(p.name.startswith("step-") for p in out.iterdir())
    assert main(["lesson", "seed001-10min", "--export", str(out), "--size", "320x320"]) == 0  # once it is done


def test_an_animation_step_past_the_last_is_refused_with_its_line(tmp_path, capsys):
    """`step = 999999999999` in a lesson's animation showed the last step (9 of 9) and said nothing."""
    lesson = tmp_path / "far.toml"
    lesson.write_text(
        'title = "T"\nsummary = "S"\n\n[[step]]\ntitle = "Tiles"\ntext = "The tiles."\nview = "animation"\n'
        'animation = { variant = "gpu-tiled", tile = 16, mnk = "32", step = 999999999999 }\n',
        encoding="utf-8",
    )
    assert main(["lesson", str(lesson), "--export", str(tmp_path / "out"), "--size", "320x320"]) == 2
    err = capsys.readouterr().err
    assert "animation step 999,999,999,999 is past the animation's last: it has" in err and "far.toml" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["bench", "--variants", "cpu-blas", "--sizes", "8", "--quiet", "--out", "{tmp}/s.txt"],
        ["bench", "--variants", "cpu-blas", "--sizes", "8", "--quiet", "--csv", "{tmp}/s.txt"],
        ["animate", "--mnk", "32", "-o", "{tmp}/a.txt"],
        ["export", "h200-2026-12-02", "--chart", "time", "-o", "{tmp}/c.txt"],
        ["export", "h200-2026-12-02", "--chart", "trace", "-o", "{tmp}/t.txt"],
    ],
    ids=["bench-out", "bench-csv", "animate", "export", "trace"],
)
def test_an_output_named_with_the_wrong_suffix_is_a_usage_error_in_every_command(tmp_path, capsys, argv):
    """bench said exit 1 where export and animate said 2 for the same mistake: a name of the wrong suffix."""
    assert main([a.replace("{tmp}", str(tmp_path)) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gemmviz: error: ") and len(err.strip().splitlines()) == 1
    assert not any(tmp_path.iterdir())
