"""The compare view with two GPUs (issue 47 item 4): two sessions of different GPUs side by side, each kernel's
time and ratio beside the ratio of the machines' measured bandwidths and FP32 peaks, and which one the kernel
follows.

The second GPU here is SYNTHETIC, made in the test from the shipped H200 session: its name says so, its ceilings
are invented (3,000 GB/s, the H200's FP32 peak) and its times are the H200's scaled per kernel. It is never
saved outside tmp_path and never shipped; the real H100 session is recorded on a GPU."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

pytest.importorskip("PySide6")

from gemmviz.core.numbers import times_text
from gemmviz.core.paths import asset_path
from gemmviz.core.session import machines
from gemmviz.core.session.results import Session, compare_sources
from gemmviz.core.session.workspace import Workspace

SYNTHETIC_GPU = "NVIDIA H100 (synthetic, test only)"
SYNTHETIC_GBS = 3000.0
SLOWER = {"gpu-naive": 4260.474580325572 / SYNTHETIC_GBS, "gpu-tiled": 1.2}  # others: the H200's times


def synthetic_h100(h200: Session) -> Session:
    s = Session.from_dict(h200.to_dict())
    s.label = "SYNTHETIC H100 (test only)"
    s.results = [r for r in s.results if r.m == 4096 and r.m == r.n == r.k and not r.block_trace]
    for r in s.results:
        r.samples_ms = [t * SLOWER.get(r.variant, 1.0) for t in r.samples_ms]
    cuda = s.environment["backends"]["cuda"]
    cuda["name"] = SYNTHETIC_GPU
    s.environment["ceilings"] = {
        **s.environment["ceilings"],
        "device": SYNTHETIC_GPU,
        "bandwidth_gbs": SYNTHETIC_GBS,
        "bandwidth_how": "synthetic: invented for a test",
    }
    return s


@pytest.fixture(scope="module")
def h200():
    return Session.load(asset_path("sessions", "h200-2026-12-02.json"))


@pytest.fixture
def two_gpus(h200, tmp_path):
    path = tmp_path / "synthetic-h100.json"
    synthetic_h100(h200).save(path)
    ws = Workspace()
    ws.open(asset_path("sessions", "h200-2026-12-02.json"))
    ws.open(path)
    return ws


def texts(table):
    return [
        [table.item(r, c).text() if table.item(r, c) else "" for c in range(table.columnCount())]
        for r in range(table.rowCount())
    ]


def test_machines_are_read_from_each_sessions_environment(h200):
    ref, other = machines.machine(h200.environment), machines.machine(synthetic_h100(h200).environment)
    assert ref.gpu == "NVIDIA H200" and ref.bandwidth_gbs == pytest.approx(4260.47, rel=1e-5)
    assert "device-to-device copy" in ref.bandwidth_how and ref.fp32_peak_gflops == pytest.approx(66908.16)
    assert other.gpu == SYNTHETIC_GPU and other.bandwidth_gbs == SYNTHETIC_GBS
    assert machines.machine({}) == machines.Machine(None, None, "", None, "")
    assert machines.machine({"ceilings": {"bandwidth_gbs": float("nan")}, "backends": "x"}).bandwidth_gbs is None
    bw = SYNTHETIC_GBS / 4260.474580325572
    assert machines.follows(bw, bw, 1.0) == machines.FOLLOWS_BANDWIDTH
    assert machines.follows(1.0, bw, 1.0) == machines.FOLLOWS_PEAK
    assert machines.follows(0.5, bw, 1.0) == machines.FOLLOWS_NEITHER
    assert machines.follows(1.0, 1.05, 1.0) == machines.FOLLOWS_BOTH
    assert machines.follows(None, bw, 1.0) is None


def test_the_compare_view_shows_two_gpus_side_by_side(qapp, two_gpus, tmp_path):
    from gemmviz.ui.charts.compare import ComparePanel

    panel = ComparePanel(two_gpus)
    panel.resize(1280, 720)
    panel.refresh()  # the sessions were opened before the panel followed the workspace
    index = panel.reference.findData(two_gpus.sessions[0].label)
    panel.reference.setCurrentIndex(index)
    gpus = texts(panel.machines)  # a column per machine, the reference first
    assert gpus == [["4,260 GB/s", "3,000 GB/s (0.70×)"], ["66,908 GFLOP/s", "66,908 GFLOP/s (1.00×)"]]
    assert "device-to-device copy" in panel.machines.item(0, 0).toolTip()
    assert SYNTHETIC_GPU in panel.machines.horizontalHeaderItem(1).toolTip()
    rows = {(row[0], row[1]): row for row in texts(panel.table)}
    headers = [panel.table.horizontalHeaderItem(c).text() for c in range(panel.table.columnCount())]
    # short names: the synthetic GPU's "NVIDIA H100 (synthetic, test only)" is "H100"
    assert headers == ["kernel", "size", "H200 ms", "H100 ms", "H100 vs H200", "follows"]
    naive = rows[("gpu-naive (block 16)", "4096³")]
    assert naive[4] == "1.42× slower" and naive[5] == "bandwidth"  # slower by the bandwidth ratio
    assert rows[("cublas", "4096³")][4] == "1.00×" and rows[("cublas", "4096³")][5] == "FP32 peak"
    assert rows[("gpu-tiled (tile 32)", "4096³")][5] == "neither"  # 1.2× slower: near neither ratio
    assert rows[("cpu-blas", "4096³")][5] == "—"  # a CPU kernel follows no GPU ratio
    shot = panel.grab()
    assert (shot.width(), shot.height()) == (1280, 720)
    image = shot.toImage()
    assert len({image.pixel(x, y) for x in range(0, 1280, 40) for y in range(0, 720, 40)}) > 3  # drawn, not blank
    panel.close()


def test_a_session_without_ceilings_takes_those_measured_on_its_gpu(qapp, h200):
    from gemmviz.ui.charts.compare import machine_of

    env = {k: v for k, v in h200.environment.items() if k != "ceilings"}
    m = machine_of(env)  # the shipped ceilings of the H200 (assets/ceilings/h200-2026-11-30.json)
    assert m.gpu == "NVIDIA H200" and m.bandwidth_gbs and "not in the session" in m.bandwidth_how
    env["backends"] = {"cuda": {"name": "NVIDIA Nothing Such"}}
    assert machine_of(env).bandwidth_gbs is None


# ------------------------------------------------------------------ the two shipped GPUs: H200 and H100


@pytest.fixture(scope="module")
def shipped_pair():
    ws = Workspace()
    h200 = ws.open(asset_path("sessions", "h200-2026-12-02.json")).label
    h100 = ws.open(asset_path("sessions", "h100-2026-12-07.json")).label
    return ws, h200, h100


def test_gpu_short_names():
    assert machines.short_name("NVIDIA H100 80GB HBM3") == "H100"
    assert machines.short_name("NVIDIA H200") == "H200"
    assert machines.short_name("NVIDIA A100-SXM4-80GB") == "A100"
    assert machines.short_name("NVIDIA GeForce RTX 4060") == "RTX 4060"
    assert machines.short_name("NVIDIA H100 PCIe") == "H100" and machines.short_name("") is None
    names = machines.short_names({"a": "NVIDIA H200", "b": "NVIDIA H200", "c": None}, {"a": "A", "b": "B", "c": "C"})
    assert names == {"a": "A", "b": "B", "c": "C"}  # two H200s keep their sessions' labels


def test_the_headline_holds_against_the_two_recorded_sessions(shipped_pair):
    """Whatever the headline says of the H200 and H100 recordings is checked pair by pair: each pair it counts
    under a verdict is nearer that ratio; its range is those pairs' range; pairs of different configurations
    are counted apart, never under a verdict; kernels measured on one GPU only are counted, not dropped."""
    ws, h200, h100 = shipped_pair
    results = ws.shown()
    ref, other = machines.machine(ws.environment_of(h100)), machines.machine(ws.environment_of(h200))
    _others, rows = compare_sources(results, h100, ws.source_of)
    found = machines.pairs(rows, h200)
    summary = machines.summarize(found, ref, other, machines.only_in(results, ws.source_of, h100, h200))
    bw, peak = summary.bandwidth, summary.peak
    assert bw == pytest.approx(4260.47 / 3030, rel=0.01) and peak == pytest.approx(1.0)
    gpu = [p for p in found if p.cuda]
    same = [p for p in gpu if p.same_config]
    assert summary.same == len(same) and len(summary.differing) == len(gpu) - len(same) > 0
    # cuBLAS picks its own kernel on each GPU, unrecorded: never "same kernel, same configuration"
    library = [p for p in gpu if p.series.startswith("cublas")]
    assert library and not any(p.same_config for p in library)
    for key, speeds in summary.verdicts.items():
        for s in speeds:
            near_bw, near_peak = abs(math.log(s / bw)), abs(math.log(s / peak))
            if key == machines.FOLLOWS_BANDWIDTH:
                assert near_bw < near_peak
            if key == machines.FOLLOWS_PEAK:
                assert near_peak < near_bw and near_peak <= math.log(machines.CLOSE)
    main = summary.main()
    speeds = summary.verdicts[main]
    text = machines.headline(summary, "H100", "H200")
    assert f"{min(speeds):.2f}–{max(speeds):.2f}×" in text
    if main == machines.FOLLOWS_PEAK:  # the claim "DRAM does not set their speed" needs distinct ratios
        assert "DRAM does not set" in text and abs(math.log(bw / peak)) > math.log(machines.CLOSE)
        assert f"({bw:.2f}×)" in text and f"({peak:.2f}×)" in text
    # what the recordings hold: every same-configuration GPU pair within 15% of the (equal) FP32 peaks
    assert main == machines.FOLLOWS_PEAK and len(speeds) == summary.same
    # configurations differ where the H200 ran its tuned ones: counted apart, with their range
    note = machines.details(summary, "H100", "H200")
    assert f"{len(summary.differing)} pairs ran different configurations" in note
    a, b = summary.only_reference, summary.only_other
    assert a + b > 0 and f"H100 {a}, H200 {b}" in note
    assert "张" not in machines.headline(summary, "H100", "H200", "zh") and "FP32" in machines.details(
        summary, "H100", "H200", "zh"
    )


def test_two_gpus_read_at_720p_in_projector_type(qtbot, shipped_pair):
    """The H200 and H100 at 1280×720 in projector type: short headers, the verdict column inside the table
    (no horizontal scroll bar), the headline computed, "configs differ" shown for pairs of other
    configurations with both configurations in the tooltip."""
    from PySide6.QtGui import QFont

    from gemmviz.ui.charts.compare import ComparePanel
    from gemmviz.ui.theme import PROJECTOR_LIGHT

    ws, h200, h100 = shipped_pair
    panel = ComparePanel(ws)
    qtbot.addWidget(panel)  # closed after the test, whatever it asserts
    font = QFont(panel.font())
    font.setPointSize(PROJECTOR_LIGHT.font_pt)
    panel.setFont(font)
    panel.resize(1260, 500)
    panel.show()
    panel.refresh()
    panel.reference.setCurrentIndex(panel.reference.findData(h200))
    panel.apply_theme(PROJECTOR_LIGHT)
    qtbot.waitExposed(panel)
    table = panel.table
    headers = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    assert headers == ["kernel", "size", "H200 ms", "H100 ms", "H100 vs H200", "follows"]
    header = table.horizontalHeader()
    right = header.sectionPosition(5) + header.sectionSize(5)
    assert right <= table.viewport().width() and not table.horizontalScrollBar().isVisible()
    assert not panel.machines.isVisible()  # the headline says the ratios
    assert panel.headline.text().startswith("Same kernel, same configuration: the H100 runs at")
    rows = texts(table)
    differ = [r for r in rows if r[5] == "configs differ"]
    assert differ and all(r[0].startswith(("gpu-", "cublas")) for r in differ)
    i = rows.index(differ[0])
    assert "BM" in table.item(i, 5).toolTip() and "H100:" in table.item(i, 5).toolTip()
    assert rows[0][0].startswith(("gpu-", "cublas"))  # the GPU kernels, which the headline is about, first
    from tests.legibility import check

    report = check(panel, 16)  # the projector's 16 px at 720p, nothing cut or drawn over another
    assert report.seen > 5 and report.all() == []  # the headline, the note, the combo, the headers
    panel.close()


def test_the_note_counts_every_other_verdict():
    s = machines.Summary(1.41, 1.0, {machines.FOLLOWS_PEAK: (1.0, 1.01), machines.FOLLOWS_NEITHER: (2.0,)}, (2.2,))
    note = machines.details(s, "H100", "H200")
    assert "“FP32 peak” for 2/3" in note and "The other 1: 1 neither." in note and "In one session" not in note
    assert "其余 1 对：1 对都不接近" in machines.details(s, "H100", "H200", "zh")
    assert machines.headline(machines.Summary(None, 1.0), "a", "b").startswith("No GPU kernel")


def test_seed001_answers_why_the_h200_is_faster_from_the_two_recordings(shipped_pair):
    """seed001's last step quotes the two recordings through {{gpus …}} (never typed in), in English and Chinese;
    what its slide and notes say is held against the sessions: the same-configuration GPU pairs all follow the
    FP32 peak ratio (the naive V1 too), the bandwidth ratio is distinct from it, pairs of other configurations
    exist and are counted apart."""
    from gemmviz.core.lesson import gpus
    from gemmviz.core.lesson.lessons import (
        LessonError,
        check_placeholders,
        fill_text,
        find_lesson,
        step_quoted,
    )

    ws, h200, h100 = shipped_pair
    pair = gpus.shipped_pair()
    assert pair is not None and pair.names() == ("H200", "H100")
    s = pair.summary
    assert set(s.verdicts) == {machines.FOLLOWS_PEAK} and s.differing  # what the notes say
    assert abs(math.log(s.bandwidth / s.peak)) > math.log(machines.CLOSE)
    assert gpus.figure("gpus speed gpu-warptile at 4096", "en") == "configs differ"  # tuned vs default
    naive = gpus.figure("gpus speed gpu-naive[block=32] at 4096", "en")
    assert naive == times_text(
        next(r for r in rows_of(ws, h100) if r["series"] == "gpu-naive (block 32)" and r["size"] == "4096³")["others"][
            h200
        ][1]
    )
    speeds = s.verdicts[machines.FOLLOWS_PEAK]
    for lang in ("en", "zh"):
        lesson = find_lesson("seed001", lang)
        step = lesson.steps[-1]
        assert "{{gpus same}}" in step.text and "{{gpus bandwidth}}" in step.text
        lacking: list[str] = []
        text = fill_text(step.text, [], lang, lacking)
        assert lacking == [] and f"{min(speeds):.2f}–{max(speeds):.2f}×" in text
        assert f"({s.bandwidth:.2f}×)" in text or f"（{s.bandwidth:.2f}×）" in text
        assert "H100" in step_quoted(step, lang) and "2026-12-07" in step_quoted(step, lang)
    assert [len(find_lesson("seed001-10min", lang).steps) for lang in ("en", "zh")] == [6, 6]  # the cut unchanged
    bad = find_lesson("seed001")
    bad = replace(bad, steps=(*bad.steps[:-1], replace(bad.steps[-1], text="{{gpus nothing}}")))
    with pytest.raises(LessonError, match="gpus takes one of"):
        check_placeholders(bad)


def rows_of(ws, reference):
    return compare_sources(ws.shown(), reference, ws.source_of)[1]


def test_one_session_open_says_how_to_compare(qapp):
    """The Compare tab with the one replayed session showed an empty table and "No kernel and size appears both in
    the reference and in another session": nothing said what to do."""
    from gemmviz.ui.charts.compare import ComparePanel

    ws = Workspace()
    ws.open(asset_path("sessions", "h200-2026-12-02.json"))
    panel = ComparePanel(ws)
    try:
        panel.refresh()
        note = panel.note.text()
        assert "Only one session is open" in note and "File ▸ Open recorded or published session" in note
    finally:
        panel.close()


def test_one_session_open_offers_the_other_gpus_recording_in_one_click(qapp):
    """The note said where the menu is; the teacher still had to find it on a projector. A button beside the
    reference opens the shipped recording of the other GPU, through the window's own File ▸ Open."""
    from gemmviz.ui.charts.compare import ComparePanel

    ws = Workspace()
    ws.open(asset_path("sessions", "h200-2026-12-02.json"))
    opened = []
    panel = ComparePanel(ws, open_session=lambda path: opened.append(path) or ws.open(path))
    try:
        panel.refresh()
        assert not panel.open_other.isHidden()
        assert panel.open_other.text() == "Open the H100 recording beside it"
        panel.open_other.click()
        assert [p.name for p in opened] == ["h100-2026-12-07.json"] and len(ws.sessions) == 2
        panel.refresh()  # what the workspace's event does in the window
        assert panel.open_other.isHidden() and panel.headline.text()  # two GPUs: the comparison itself
        bare = ComparePanel(ws)  # nothing to open files with: no button
        ws.close_all()
        ws.open(asset_path("sessions", "h200-2026-12-02.json"))
        bare.refresh()
        assert bare.open_other.isHidden()
        bare.close()
    finally:
        panel.close()
