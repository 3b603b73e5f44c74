"""The compare view with two GPUs (issue 47 item 4): two sessions of different GPUs side by side, each kernel's
time and ratio beside the ratio of the machines' measured bandwidths and FP32 peaks, and which one the kernel
follows.

The second GPU here is SYNTHETIC, made in the test from the shipped H200 session: its name says so, its ceilings
are invented (3,000 GB/s, the H200's FP32 peak) and its times are the H200's scaled per kernel. It is never
saved outside tmp_path and never shipped; the real H100 session is recorded on a GPU."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")

from gemmviz.core.paths import asset_path
from gemmviz.core.session import machines
from gemmviz.core.session.results import Session
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
    assert gpus == [
        ["NVIDIA H200", SYNTHETIC_GPU],
        ["4,260 GB/s", "3,000 GB/s (0.70×)"],
        ["66,908 GFLOP/s", "66,908 GFLOP/s (1.00×)"],
    ]
    assert "device-to-device copy" in panel.machines.item(1, 0).toolTip()
    rows = {(row[0], row[1]): row for row in texts(panel.table)}
    headers = [panel.table.horizontalHeaderItem(c).text() for c in range(panel.table.columnCount())]
    assert headers[3:] == [
        "SYNTHETIC H100 (test only) (recorded)\nms",
        "× vs reference\n(SYNTHETIC H100 (test only) (recorded))",
        "follows\n(SYNTHETIC H100 (test only) (recorded))",
    ]
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
