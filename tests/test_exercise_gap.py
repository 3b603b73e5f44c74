"""Issue 34, item 4: the gap view works for an exercise check. A check whose counters hold the gap metrics (a
check made with this gemmviz on a GPU: backends/exercise.py asks ncu for them) gets the waterfall of where the
time to the reference goes, in the CLI report and in the Exercise tab; an older check says why it has none.

The counters used here are real: two kernels' gap metrics from the H200 gap file this package ships
(assets/sessions/h200-2026-12-02d-gap.json, gpu-cpasync and cuBLAS at 1024³), put into a tiled check record
in place of its own counters."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from gemmviz.backends.exercise import check_metrics, unknown_gap_metric
from gemmviz.core.exercise.gap import check_gap
from gemmviz.core.exercise.report import report_text
from gemmviz.core.hardware.gap import GAP_METRICS, load_gap_file
from gemmviz.core.messages import render
from gemmviz.core.paths import asset_path

RECORDS = Path(__file__).parent / "data" / "exercises" / "records"


def _record_with_gap_metrics() -> dict:
    record = json.loads((RECORDS / "tiled_good.check.json").read_text(encoding="utf-8"))
    f = load_gap_file(asset_path("sessions", "h200-2026-12-02d-gap.json"))
    mine, theirs = f.kernel("gpu-cpasync@1024³"), f.kernel("cublas@1024³")
    record = copy.deepcopy(record)
    record["counters"] = {"shape": [1024, 1024, 1024], "yours": dict(mine.metrics), "reference": dict(theirs.metrics)}
    return record


def test_a_check_with_the_gap_metrics_gets_the_waterfall_in_the_report():
    record = _record_with_gap_metrics()
    g, why = check_gap(record)
    assert why is None and g is not None
    assert g.a.label == Path(record["file"]).name and g.b.label == record["reference"]
    assert g.timing == "ncu" and abs(sum(p.ns for p in g.parts) - g.gap_ns) < 1e-6 * abs(g.gap_ns)  # they sum to it
    for lang in ("en", "zh"):
        text = report_text(record, lang)
        head = g.headline.text(lang)
        assert head in text, lang


def test_an_older_check_says_why_it_has_no_gap_in_both_languages():
    record = json.loads((RECORDS / "naive_good.check.json").read_text(encoding="utf-8"))  # 2026-12-01: 19 counters
    g, why = check_gap(record)
    assert g is None
    assert "gap metrics" in render(why, "en") and "差距指标" in render(why, "zh")
    broken = json.loads((RECORDS / "naive_compile_error.check.json").read_text(encoding="utf-8"))
    g, why = check_gap(broken)
    assert g is None and render(why, "en").startswith("no gap view")


def test_the_check_asks_ncu_for_the_gap_metrics_and_drops_one_this_gpu_lacks():
    metrics = check_metrics()
    assert set(GAP_METRICS) <= set(metrics) and len(metrics) == len(set(metrics)) <= 64  # the record's limit
    lacking = GAP_METRICS[-1]
    assert unknown_gap_metric(f"==ERROR== Failed to find metric {lacking}\n", metrics) == lacking
    assert unknown_gap_metric("==ERROR== Failed to find metric dram__bytes_read.sum\n", metrics) is None


@pytest.mark.usefixtures("qapp")
def test_the_exercise_tab_draws_the_gap_or_says_why_not(qtbot):
    from gemmviz.ui.exercise.gap import ExerciseGap

    view = ExerciseGap("en")
    qtbot.addWidget(view)
    view.show_record(_record_with_gap_metrics())
    assert not view.isHidden() and not view.chart.isHidden() and view.chart.gap is not None
    assert view.note.isHidden()
    view.resize(900, 700)
    view.chart.grab()  # painted: its source line names the check's GPU and day (a None header raised here)
    assert view.chart.header.gpu == "NVIDIA H200" and view.chart.header.date == "2026-12-02"
    # at its own height every bar keeps its row and label (drawn with its sentences inside, the chart left the
    # bars no room at 720p in projector type); the sentences are under it, each once
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QImage, QPainter

    g = view.chart.gap
    image = QImage(600, view.chart.minimumHeight(), QImage.Format.Format_RGB32)
    texts: list = []
    painter = QPainter(image)
    view.chart.draw(painter, QRectF(image.rect()), texts)
    painter.end()
    drawn = [t for t, _ in texts]
    assert all(p.label.text("en") in drawn for p in g.parts), drawn
    assert all(view.sentences.text().count(p.sentence.text("en")) == 1 for p in g.parts)
    view.show_record(json.loads((RECORDS / "naive_good.check.json").read_text(encoding="utf-8")))
    assert view.chart.isHidden() and not view.note.isHidden() and "gap metrics" in view.note.text()
    view.show_record(json.loads((RECORDS / "naive_compile_error.check.json").read_text(encoding="utf-8")))
    assert view.isHidden()  # nothing was profiled: nothing to say here


def _ncu_csv(metrics: list[str], values: dict[str, float]) -> str:
    """Two rows (the student's kernel, then the reference) of ncu's raw CSV page for `metrics`."""
    head = ["ID", "Kernel Name", "Block Size", "Grid Size", "Device", "CC", *metrics]
    units = ["", "", "", "", "", "", *["" for _ in metrics]]
    rows = [head, units]
    for i, name in enumerate(("gemm_tiled", "tiled_reference")):
        rows.append(
            [str(i), name, "(16, 16, 1)", "(64, 64, 1)", "0", "9.0", *(str(values[m] * (i + 1)) for m in metrics)]
        )
    return "\n".join(",".join(f'"{c}"' for c in row) for row in rows) + "\n"


def test_profile_step_keeps_the_gap_metrics_ncu_prints_and_retries_without_one_it_lacks(tmp_path, monkeypatch):
    """The bug the H200 found on 2026-12-02: the check asked ncu for the gap metrics but kept only gemmviz's
    19 counters of its report (19 in each record); every metric asked for is kept now."""
    from gemmviz.backends import exercise as ex
    from gemmviz.backends import exercise_steps as steps  # where profile_step looks its helpers up

    lacking = GAP_METRICS[-1]
    calls: list[list[str]] = []

    def fake_run_child(cmd, _limit, _cancel, _env=None, cwd=None):
        metrics = cmd[cmd.index("--metrics") + 1].split(",")
        calls.append(metrics)
        log = Path(cmd[cmd.index("--log-file") + 1])
        if lacking in metrics:
            log.write_text(f"==ERROR== Failed to find metric {lacking}\n")
            return ex.ChildRun([], 1, "", False)
        log.write_text(_ncu_csv(metrics, {m: 1.0 + i for i, m in enumerate(metrics)}))
        return ex.ChildRun([], 0, "", False)

    monkeypatch.setattr(steps, "run_child", fake_run_child)
    monkeypatch.setattr("gemmviz.backends.profile.find_ncu", lambda: "ncu")
    spec = {"kernel": "gemm_tiled", "source": "x.cu", "block": [16, 16, 1]}
    monkeypatch.setattr(steps, "child_argv", lambda spec, folder: ["python3", "child.py"])
    out = ex.profile_step(spec, ex.CheckOptions(), tmp_path, "tiled_reference")
    assert len(calls) == 2 and lacking in calls[0] and lacking not in calls[1]
    kept = set(out["yours"])
    assert kept == set(calls[1]) and set(GAP_METRICS) - {lacking} <= kept
    assert set(out["reference"]) == kept


def test_the_h200s_own_check_of_the_bank_conflicted_kernel_explains_its_gap():
    """A real check with the gap metrics (tools/exercise_records.py on the H200, 2026-12-02 10:31 UTC,
    benchmarks/h200_record_2026_12_02e.sh at git 0d8610e): the transposed-tile kernel is 2.68x slower than gpu-tiled, and the
    waterfall puts most of the gap on the shared-memory stalls that bank conflicts cause."""
    record = json.loads((RECORDS / "banks_conflicts.check.json").read_text(encoding="utf-8"))
    g, why = check_gap(record)
    assert why is None and g is not None and g.timing == "ncu" and g.gap_ns > 0
    assert abs(sum(p.ns for p in g.parts) - g.gap_ns) < 1e-6 * g.gap_ns  # the bars sum to the gap
    biggest = sorted(g.parts, key=lambda p: -p.ns)[:2]
    assert {p.name for p in biggest} == {"stall:mio_throttle", "stall:short_scoreboard"}, [p.name for p in g.parts]
    # ncu's L2 hit rate read 109% for the reference: said to be unreliable, not shown as a rate
    en, zh = "\n".join(report_text(record, "en").splitlines()), report_text(record, "zh")
    assert "L2 hit rate: ncu read 100% and 109%, outside 0–100%, so not a reliable measure here" in en
    assert "L2 hit rate: 100" not in en and "超出 0–100%" in zh
    tiled = json.loads((RECORDS / "tiled_good.check.json").read_text(encoding="utf-8"))
    assert check_gap(tiled)[0] is not None  # the correct tiled kernel's H200 check has them too
