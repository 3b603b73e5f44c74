"""`gemmviz profile --gap` and `--pipeline` without a GPU (issue 34, item 3): the fake CUDA backend, a fake ncu
that answers with the recorded H200 CSV plus the gap metrics of the SYNTHETIC fixture (tests/data/
make_gap_fixtures.py; not measurements), and a fake recorder of the instrumented Hopper kernel's stamps."""

from __future__ import annotations

import numpy as np
import pytest

from gemmviz.backends.pipeline import Stamps
from gemmviz.backends.profile import ProfileError
from gemmviz.cli.main import build_parser
from gemmviz.core.hardware import gap, pipeline_trace
from gemmviz.core.session.results import Session
from tests.data.make_gap_fixtures import gap_file
from tests.fake_ncu import ROWS, FakeNcu, run

SYNTHETIC = {k["variant"]: k["metrics"] for k in gap_file()["kernels"]}
TENSOR = "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active"


class GapNcu(FakeNcu):
    """The CSV's rows, each with the synthetic gap metrics of gpu-cpasync (those asked for); `rejects` names
    metrics this ncu does not know, refused as ncu refuses them."""

    def __init__(self, rejects=()):
        rows = [{**r, "counters": {**SYNTHETIC["gpu-cpasync"], **r["counters"]}} for r in ROWS]
        super().__init__(rows)
        self.rejects = list(rejects)

    def __call__(self, argv, kernel_regex, metrics, launch_count, cache_control="all"):
        unknown = [m for m in metrics if m in self.rejects]
        if unknown:
            self.metrics = getattr(self, "metrics", []) + [list(metrics)]
            why = f"ncu does not know the metric {unknown[0]} on this GPU (check `ncu --query-metrics`)"
            raise ProfileError(why, missing_metric=unknown[0])  # as run_profile raises it
        rows = super().__call__(argv, kernel_regex, metrics, launch_count, cache_control)
        return [{**r, "counters": {m: r["counters"].get(m) for m in metrics}} for r in rows]


ARGS = ["profile", "--variants", "gpu-tiled", "--sizes", "1024", "--tile", "16", "--repeats", "2", "--quiet"]


def test_gap_records_the_metrics_and_writes_the_gap_file(fake_gpu, tmp_path):
    out = tmp_path / "h200-2026-12-02.json"
    ncu = GapNcu(rejects=[TENSOR])
    assert run([*ARGS, "--gap", "--out", str(out)], ncu) == 0
    assert set(gap.GAP_METRICS) - {TENSOR, gap.DURATION} <= set(ncu.metrics[1])  # the counters pass asks for them
    assert TENSOR in ncu.metrics[1] and TENSOR not in ncu.metrics[2]  # refused once, then dropped
    f = gap.load_gap_file(tmp_path / "h200-2026-12-02-gap.json")
    assert f.header.gpu == "Fake GPU" and "did not know: " + TENSOR in f.header.command
    (k,) = f.kernels
    assert (k.label, k.m) == ("gpu-tiled[tile=16]", 1024)
    assert k.median_ms == pytest.approx(Session.load(out).results[0].median_ms)
    assert TENSOR not in k.metrics and k.metrics[gap.CYCLES] == SYNTHETIC["gpu-cpasync"][gap.CYCLES]
    assert k.metrics[gap.DURATION] == Session.load(out).results[0].counters[gap.DURATION]  # its own pass's


def test_without_gap_no_gap_metrics_and_no_file(fake_gpu, tmp_path):
    ncu = GapNcu()
    assert run([*ARGS, "--out", str(tmp_path / "p.json")], ncu) == 0
    assert gap.CYCLES not in ncu.metrics[1] and not (tmp_path / "p-gap.json").exists()


def test_another_ncu_failure_is_not_swallowed(fake_gpu, tmp_path):
    from gemmviz.cli.common import CommandError

    def refuses(argv, kernel_regex, metrics, launch_count, cache_control="all"):
        if len(metrics) > 1:
            raise ProfileError("ncu does not know the metric dram__bytes_read.sum on this GPU", "dram__bytes_read.sum")
        return GapNcu()(argv, kernel_regex, metrics, launch_count, cache_control)

    with pytest.raises(CommandError, match="dram__bytes_read.sum"):
        run([*ARGS, "--gap", "--out", str(tmp_path / "p.json")], refuses)


def stamps(stages=4, consumers=2, kt=8, rel=1e-4, sm_hit=True) -> Stamps:
    """Made-up stamps in the kernel's layout: two tiles of `kt` k-blocks, each warpgroup's kinds in order."""
    ev = np.zeros((2, consumers + 1, 256, 3, 2), dtype=np.int64)
    tiles = np.zeros((2, 4), dtype=np.int32)
    if sm_hit:
        for t in range(2):
            tiles[t] = (t, 0, t, kt)
            for kb in range(kt):
                base = 1000 + t * 10_000 + kb * 500
                ev[t, 0, kb, 1] = (base, base + 50)  # the producer's wait for a free stage
                ev[t, 0, kb, 0] = (base + 50, base + 400)  # its copy, issued until landed
                for wg in range(1, consumers + 1):
                    ev[t, wg, kb, 1] = (base + 100, base + 400)
                    ev[t, wg, kb, 2] = (base + 400, base + 880)
    config = {"BM": 256, "CONSUMERS": consumers, "STAGES": stages, "GROUP_M": 8, "B_REGS": 1, "DEPTH": 1}
    return Stamps(ev, tiles, config, "NVIDIA H200", rel)


def test_events_from_stamps():
    s = stamps()
    events = pipeline_trace.events_from_stamps(s.events, s.tiles, 4)
    assert len(events) == 2 * 8 * (2 + 2 * 2)
    first = min(events, key=lambda e: e["start"])
    assert first == {"warpgroup": 0, "role": "producer", "kind": "wait", "stage": 0, "k_iter": 0, "start": 0, "end": 50}
    assert max(e["k_iter"] for e in events) == 15 and {e["stage"] for e in events} == {0, 1, 2, 3}
    assert pipeline_trace.events_from_stamps(stamps(sm_hit=False).events, s.tiles, 4) == []


def test_pipeline_writes_a_trace_the_view_reads(fake_gpu, tmp_path):
    out = tmp_path / "h200.json"
    args = build_parser().parse_args([*ARGS, "--pipeline", "--pipeline-sm", "3", "--out", str(out)])
    from gemmviz.cli import profile

    asked = []

    def recorder(m, n, k, sm, seed):
        asked.append((m, n, k, sm, seed))
        return stamps()

    assert profile.cmd_profile(args, runner=GapNcu(), pipeline_recorder=recorder) == 0
    assert asked == [(1024, 1024, 1024, 3, 0)]
    t = pipeline_trace.load_pipeline_file(tmp_path / "h200-pipeline.json")
    assert (t.sm, t.clock, t.variant, t.params["STAGES"]) == (3, "clock64", "gpu-wgmma-tf32", 4)
    assert pipeline_trace.summarise(t).consumers == 2


@pytest.mark.parametrize(
    ("made", "why"),
    [(stamps(rel=0.2), "computed a wrong C"), (stamps(sm_hit=False), "no block of gpu-wgmma-tf32 ran on SM 0")],
)
def test_a_bad_pipeline_recording_is_refused_not_written(fake_gpu, tmp_path, capsys, made, why):
    from gemmviz.cli import profile

    args = build_parser().parse_args([*ARGS, "--pipeline", "--out", str(tmp_path / "p.json")])
    assert profile.cmd_profile(args, runner=GapNcu(), pipeline_recorder=lambda *a, **kw: made) == 1
    assert why in capsys.readouterr().err and not (tmp_path / "p-pipeline.json").exists()
    assert Session.load(tmp_path / "p.json").results[0].counters  # the session is kept
