"""benchmarks/dram_reuse.py without a GPU: its plan, the matching of ncu's rows to jobs, the trace statistics, the
LRU model, the record's checks (and the recorded H200 figures pass them), and its CUDA files compile (with nvcc)."""

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).parents[1]
RECORD = ROOT / "docs/data/dram-reuse-h200-2026-12-01.json"


def _load():
    spec = importlib.util.spec_from_file_location("dram_reuse", ROOT / "benchmarks/dram_reuse.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["dram_reuse"] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


dr = _load()


def test_plans_name_each_job_once_and_count_their_launches():
    for jobs in (dr.plan(), dr.plan(quick=True), dr.paired_plan()):
        assert len({j.name for j in jobs}) == len(jobs)
    per_wave = next(j for j in dr.plan() if j.per_wave)
    assert (per_wave.rows_per_launch(132), per_wave.launches(132)) == (4, 64)  # 1,056 slots: 4 rows of 256
    assert dr.launch_count(dr.plan(), [], 132, False) == len(dr.plan()) + 63
    assert dr.Job("x", "tiled", 16, 4096, "reuse", resident=2).resident_per_sm == 2
    assert dr.Job("x", "naive", 32, 4096).resident_per_sm == 2
    assert len({p.name for p in dr.probe_plan()}) == len(dr.probe_plan())


def _row(i, kernel, dram, pct=50.0):
    return {"id": i, "kernel": kernel, "counters": {"dram__bytes_read.sum": dram, "l1tex__t_sector_hit_rate.pct": pct}}


def test_ncu_rows_go_to_their_jobs_and_launches_are_summed():
    jobs = [dr.Job("a", "naive", 16, 1024), dr.Job("b", "tiled", 16, 4096, "reuse", per_wave=True)]
    rows = [_row(0, "gemm_naive", 1.0)] + [_row(i + 1, "reuse_tiled", 2.0) for i in range(64)]
    per_job = dr.assign_rows(jobs, rows, 132)
    assert [len(per_job["a"][0]), len(per_job["b"][0])] == [1, 64]
    total = dr.sum_launches(per_job["b"][0])
    assert total["dram__bytes_read.sum"] == 128.0 and total["l1tex__t_sector_hit_rate.pct"] is None
    assert dr.sum_launches(per_job["a"][0])["l1tex__t_sector_hit_rate.pct"] == 50.0
    with pytest.raises(ValueError, match="expected reuse_tiled"):
        dr.assign_rows(jobs, [rows[0], _row(1, "gemm_tiled", 2.0), *rows[2:]], 132)
    with pytest.raises(ValueError, match="the plan has 65"):
        dr.assign_rows(jobs, rows[:10], 132)
    paired = [dr.Job("c", "naive", 16, 4096, "traced", repeats=3)]
    assert len(dr.assign_rows(paired, [_row(i, "gemm_naive", 1.0) for i in range(3)], 132, paired=True)["c"]) == 3


def test_rates_come_from_counts():
    c = {
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": 100.0,
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum": 88.0,
        "lts__t_sectors_srcunit_tex_op_read.sum": 10.0,
        "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum": 6.0,
    }
    assert dr.derived(c) == {"l1_global_ld_hit": 0.88, "l2_tex_read_hit": 0.6, "l2_tex_read_bytes": 320.0}
    assert dr.derived({})["l2_tex_read_hit"] is None


def _schedule(rows, per_row, gap, duration=100.0, slots_per_sm=4, sms=2):
    """Records of a grid whose block-row r starts r * gap after row 0 (tile = launch id, shipped order)."""
    rec = []
    for tile in range(rows * per_row):
        start = (tile // per_row) * gap
        rec.append([tile, tile * 256 + tile % sms, int(start), int(start + duration)])
    return np.array(rec, dtype=np.uint64)


def test_trace_stats_tell_rows_in_step_from_rows_spread_in_time():
    in_step = dr.trace_stats(_schedule(8, 16, gap=1), 16)
    spread = dr.trace_stats(_schedule(8, 16, gap=25), 16)
    assert in_step["row_gap_median_L"] == pytest.approx(0.01) and spread["row_gap_median_L"] == pytest.approx(0.25)
    assert in_step["blocks"] == 128 and in_step["block_median_us"] == pytest.approx(0.1)
    assert spread["progress_iqr_mean"] > in_step["progress_iqr_mean"]


def test_max_resident_counts_blocks_at_once_per_sm():
    rec = np.array([[0, 5, 0, 10], [1, 256 + 5, 5, 15], [2, 512 + 5, 10, 20], [3, 768 + 6, 0, 30]], dtype=np.uint64)
    assert dr.max_resident(rec) == 2  # an end and a start at the same time on SM 5 are not both counted


def test_lru_model_reads_compulsory_bytes_when_everything_fits_and_more_when_rows_drift_apart():
    n, block = 256, 16  # A + B = 512 KiB; 16 rows of 16 blocks
    compulsory = 2 * n * n * 4
    assert dr.lru_dram_model(_schedule(16, 16, gap=1), n, block, 4 * compulsory) == compulsory
    small = 2**16  # 64 KiB: a whole B strip set does not fit
    in_step = dr.lru_dram_model(_schedule(16, 16, gap=0), n, block, small)
    drifted = dr.lru_dram_model(_schedule(16, 16, gap=50), n, block, small)
    assert in_step < drifted
    assert drifted == pytest.approx(16 * n * n * 4 + n * n * 4, rel=0.05)  # B once per block-row, A once


def _record():
    return {
        "schema": dr.SCHEMA,
        "version": dr.VERSION,
        "gpu": "G",
        "driver": "1",
        "command": "c",
        "date": "d",
        "ncu": "n",
        "jobs": [
            {
                "name": "a",
                "family": "naive",
                "block": 16,
                "n": 1024,
                "rel_error": 1e-7,
                "median_ms": 1.0,
                "counters": {"all": {"dram__bytes_read.sum": 8e6}},
            }
        ],
    }


def test_records_are_checked():
    dr.check_record(_record())
    bad = _record()
    bad["jobs"][0]["rel_error"] = None
    with pytest.raises(ValueError, match="not verified"):
        dr.check_record(bad)
    bad = _record()
    bad["jobs"][0]["counters"]["all"]["dram__bytes_read.sum"] = -1.0
    with pytest.raises(ValueError, match="out of range"):
        dr.check_record(bad)
    with pytest.raises(ValueError, match="not a"):
        dr.check_record({**_record(), "schema": "x"})


def test_the_recorded_h200_figures_pass_the_checks_and_say_where_they_came_from():
    doc = json.loads(RECORD.read_text())
    dr.check_record(doc)
    dr.check_paired(doc["paired"])
    assert doc["gpu"] == "NVIDIA H200" and doc["driver"] and "dram_reuse.py run" in doc["command"]
    jobs = {j["name"]: j for j in doc["jobs"]}
    cold = {k: j["counters"]["all"]["dram__bytes_read.sum"] for k, j in jobs.items()}
    assert cold["tiled16@4096"] > 1.5 * cold["naive16@4096"]  # the question: the tiled kernel reads more
    assert cold["tiled16-group8@4096"] < 0.2 * cold["tiled16@4096"]  # and the block order fixes it
    assert "|" in dr.table(doc) and "probe" in dr.paired_table(doc["paired"])


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
@pytest.mark.parametrize("macros", [["-DBLOCK=16"], ["-DBLOCK=32"], ["-DBLOCK=16", "-DGROUP=8"], ["-DLDCG=1"]])
def test_the_experimental_kernels_compile(tmp_path, macros):
    # l2_probe.cu reads none of the macros (test_the_probe_has_no_build_macros): compiled once, with the first
    for name in ("reuse.cu", "l2_probe.cu") if macros == ["-DBLOCK=16"] else ("reuse.cu",):
        src = ROOT / "benchmarks/dram_reuse" / name
        out = tmp_path / "k.cubin"
        p = subprocess.run(
            ["nvcc", "-cubin", "-arch=sm_90", "-O3", *macros, "-o", str(out), str(src)], capture_output=True, text=True
        )
        assert p.returncode == 0, p.stderr


def test_the_probe_has_no_build_macros():
    """What lets test_the_experimental_kernels_compile build l2_probe.cu once: no #if, no macro it is given."""
    import re

    text = (ROOT / "benchmarks/dram_reuse/l2_probe.cu").read_text()
    assert not re.search(r"#\s*if|\b(BLOCK|GROUP|LDCG)\b", text)
