"""Provenance shown (issue 47 item 3): the results table's % cuBLAS and % peak cells, the charts' tooltips, the
slides' footers and `gemmviz bench`'s table say which cuBLAS a percentage is of and the share of peak at the
measured clock; the shipped H200 session (recorded before gemmviz kept them) says what it does not record.

The "recorded" session here is synthetic: the shipped one with provenance written into it in the test (cuBLAS
13.1.0, an NVML clock of 1,755 MHz), never saved into assets."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")

from gemmviz.cli.common import results_table
from gemmviz.core.paths import asset_path
from gemmviz.core.session.results import Session
from gemmviz.core.session.workspace import Workspace

SIZE = (4096, 4096, 4096)


@pytest.fixture(scope="module")
def old():
    return Session.load(asset_path("sessions", "h200-2026-12-02.json"))


def synthetic(old: Session) -> Session:
    """The shipped session's 4096³ results as if recorded today (synthetic provenance, labelled so)."""
    s = Session.from_dict(old.to_dict())
    s.results = [r for r in s.results if (r.m, r.n, r.k) == SIZE]
    s.label = "synthetic H200 with provenance"
    for r in s.results:
        if r.backend == "cuda":
            r.cublas_version, r.sm_clock_nvml_mhz = "13.1.0", 1755.0
    return s


def rows_of(table):
    from gemmviz.ui.charts.table import COLUMNS

    model, keys = table.model_, [k for k, _t, _s in COLUMNS]
    out = {}
    for row in range(model.rowCount()):
        r = model.row_results[row]
        cells = {k: model.cell(row, keys.index(k)) for k in ("pct_of_cublas", "pct_of_peak")}
        out[(r.series, r.m)] = (r, cells)
    return out


def test_the_table_says_which_cublas_and_the_share_of_peak_at_the_measured_clock(qapp, old, tmp_path):
    from gemmviz.ui.charts.table import ResultsTable

    path = tmp_path / "synthetic.json"
    synthetic(old).save(path)
    ws = Workspace()
    ws.open(path)
    table = ResultsTable(gpu_of=ws.gpu_entry)
    table.set_results(ws.shown(), ws.source_of)
    rows = rows_of(table)
    r, cells = rows[("gpu-tiled (tile 32)", 4096)]
    tip = cells["pct_of_cublas"].tip
    assert f"{100 * old_ratio(ws.shown(), r):.1f}% of cuBLAS 13.1" in tip and "cuBLAS 13.1.0" in tip
    peak = 132 * 128 * 2 * 1755.0 / 1e3  # the H200's SMs × FP32 lanes × 2 × NVML's clock
    assert float(cells["pct_of_peak"].text) == pytest.approx(100 * r.gflops / peak, abs=0.05)
    assert "of the FP32 peak at 1,755 MHz" in cells["pct_of_peak"].tip and "NVML" in cells["pct_of_peak"].tip
    tf32, cells = rows[("gpu-wgmma-tf32", 4096)]
    peak = 132 * 2048 * 1755.0 / 1e3  # TF32 tensor cores: 2048 FLOP per SM per clock on Hopper
    assert float(cells["pct_of_peak"].text) == pytest.approx(100 * tf32.gflops / peak, abs=0.05)
    assert "of the TF32 peak" in cells["pct_of_peak"].tip


def old_ratio(results, r):
    from gemmviz.core.session.results import Baselines

    return Baselines([x for x in results if (x.m, x.n, x.k) == (r.m, r.n, r.k)]).speedup(r, "cublas")


def test_an_old_session_says_what_it_does_not_record(qapp, old):
    from gemmviz.ui.charts.table import ResultsTable

    ws = Workspace()
    ws.open(asset_path("sessions", "h200-2026-12-02.json"))
    table = ResultsTable(gpu_of=ws.gpu_entry)
    table.set_results(ws.shown(), ws.source_of)
    _r, cells = rows_of(table)[("gpu-tiled (tile 32)", 4096)]
    assert "% of cuBLAS (version not recorded)" in cells["pct_of_cublas"].tip
    assert "cuBLAS version not recorded" in cells["pct_of_cublas"].tip
    # its clock is the blocking kernel's (the only one it has), and it says so
    assert "the blocking kernel measured before each sample" in cells["pct_of_peak"].tip
    assert "SM clock during the samples not recorded (NVML)" in cells["pct_of_peak"].tip
    # without the session's GPU (a table given no gpu_of) the share of peak is not guessed
    bare = ResultsTable()
    bare.set_results(ws.shown(), ws.source_of)
    _r, cells = rows_of(bare)[("gpu-tiled (tile 32)", 4096)]
    assert cells["pct_of_peak"].text == "—" and "SMs and FP32 lanes" in cells["pct_of_peak"].tip


def test_a_chart_point_says_its_percentage_of_which_cublas(qapp, old):
    from gemmviz.ui.charts.plots import GflopsChart

    for session, said in [(synthetic(old), "of cuBLAS 13.1"), (old, "of cuBLAS (version not recorded)")]:
        chart = GflopsChart()
        chart.set_results(session.results)
        r = next(x for x in session.results if x.series == "gpu-tiled (tile 32)" and (x.m, x.n, x.k) == SIZE)
        tip = chart.tip(r, "")
        assert f"{100 * old_ratio(session.results, r):.0f}% {said}" in tip
        assert ("cuBLAS 13.1.0" in tip) == (session is not old)
        cpu = next(x for x in session.results if x.backend == "cpu")
        assert "cuBLAS" not in chart.tip(cpu, "")
        chart.close()


def test_slide_footers_say_which_cublas(qapp, old, tmp_path):
    from gemmviz.ui.export.exporters import footer_text, session_origin, workspace_footer

    path = tmp_path / "synthetic.json"
    synthetic(old).save(path)
    ws = Workspace()
    ws.open(path)
    assert ", cuBLAS 13.1 · gemmviz" in workspace_footer(ws, ws.shown())
    no_cublas = [r for r in ws.shown() if not r.variant.startswith("cublas")]
    assert "cuBLAS" not in workspace_footer(ws, no_cublas)  # a slide without cuBLAS gives no percentage of it
    origin = session_origin(old, replay=True)
    assert footer_text([origin]).startswith("NVIDIA H200 2026-12-02 replayed, cuBLAS version not recorded · ")
    assert "未记录 cuBLAS 版本" in footer_text([origin], "zh")


def test_the_bench_table_says_which_cublas(old):
    at = [r for r in old.results if (r.m, r.n, r.k) == SIZE]
    assert results_table(at).endswith("% cuBLAS: of cuBLAS (version not recorded)")
    assert results_table(synthetic(old).results).endswith("% cuBLAS: of cuBLAS 13.1")
    assert "% cuBLAS:" not in results_table([r for r in at if r.backend == "cpu"])


def test_a_roofline_point_says_which_cublas(qapp, old):
    from gemmviz.core.hardware.roofline import roofline_points
    from gemmviz.ui.charts.roofline import RooflineChart

    for session, said in [(synthetic(old), "% of cuBLAS 13.1"), (old, "% of cuBLAS (version not recorded)")]:
        at = [r for r in session.results if (r.m, r.n, r.k) == SIZE]
        point = next(p for p in roofline_points(at, None) if p.result.series == "gpu-tiled (tile 32)")
        assert said in RooflineChart._tip(point, "")


def test_the_source_column_shows_only_where_two_sources_need_telling_apart(qapp):
    """One recorded session wrote "NVIDIA H200, 2026-12-02 (recorded)" in every row, 40% of a 720p table, the
    times past its edge; the column shows once a second source is open, and a copy keeps it either way."""
    from gemmviz.ui.charts.table import ResultsTable

    ws = Workspace()
    ws.open(asset_path("sessions", "h200-2026-12-02.json"))
    table = ResultsTable(gpu_of=ws.gpu_entry)
    table.set_results(ws.shown(), ws.source_of)
    assert table.isColumnHidden(0)
    assert table.selection_text().splitlines()[1].startswith("NVIDIA H200, 2026-12-02")
    ws.open(asset_path("sessions", "h100-2026-12-07.json"))
    table.set_results(ws.shown(), ws.source_of)
    assert not table.isColumnHidden(0)
    table.set_results([], ws.source_of)
    assert table.isColumnHidden(0)
