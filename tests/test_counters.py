"""Counters, ncu and the block trace (issue 14), all without a GPU: a real ncu CSV and real block traces
recorded on the H200 (docs/counters-notes.md, 2026-11-30) and synthetic data."""

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from gemmviz.backends import profile
from gemmviz.core.hardware.counters import (
    METRIC_NAMES,
    Comparison,
    NcuCsvError,
    TraceError,
    decode_trace,
    level_intensities,
    normalise_unit,
    parse_ncu_csv,
    resident_timeline,
    trace_summary,
)
from gemmviz.core.kernels.model import naive_traffic, tiled_traffic
from gemmviz.core.paths import kernel_source
from gemmviz.core.problem import Problem

DATA = Path(__file__).parent / "data"
NCU_CSV = DATA / "ncu-tiled-naive-1024.csv"
P1024 = Problem(1024, 1024, 1024)


@pytest.fixture(scope="module")
def rows():
    return parse_ncu_csv(NCU_CSV.read_text())


# ------------------------------------------------------------------------------------------- ncu CSV


def test_fixture_rows_are_the_two_launches(rows):
    assert [r["kernel"] for r in rows] == ["gemm_naive", "gemm_tiled"]
    assert [r["id"] for r in rows] == [0, 1]
    assert rows[1]["grid"] == "(64, 64, 1)" and rows[1]["block"] == "(16, 16, 1)"
    assert set(rows[0]["counters"]) == set(METRIC_NAMES)


def test_fixture_values_exact(rows):
    naive, tiled = (r["counters"] for r in rows)
    # printed as "8,394,496", "41,943,040": thousands separators removed
    assert naive["dram__bytes_read.sum"] == 8_394_496
    assert naive["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == 67_108_864
    assert naive["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == 134_217_728
    assert tiled["smsp__inst_executed_op_shared_ld.sum"] == 41_943_040
    assert tiled["lts__t_bytes.sum"] == 443_854_304
    assert tiled["gpu__time_duration.sum"] == 278_944
    assert tiled["sm__warps_active.avg.pct_of_peak_sustained_active"] == pytest.approx(90.98)
    assert tiled["launch__shared_mem_per_block_static"] == 2048
    assert tiled["launch__shared_mem_per_block"] == 3072  # + 1 KiB the driver reserves
    assert tiled["launch__registers_per_thread"] == 32


def test_fixture_units_normalised(rows):
    units = rows[1]["units"]
    assert units["dram__bytes_read.sum"] == "byte"
    assert units["gpu__time_duration.sum"] == "ns"
    assert units["sm__throughput.avg.pct_of_peak_sustained_elapsed"] == "%"
    assert units["smsp__inst_executed_op_shared_ld.sum"] == "count"  # "inst"
    assert units["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] == "count"  # no unit printed
    assert units["launch__shared_mem_per_block"] == "byte/block"


def test_all_metric_columns_skip_words():
    every = parse_ncu_csv(NCU_CSV.read_text(), metrics=None)[0]["counters"]
    assert every["device__attribute_l2_cache_size"] == 62_914_560
    assert "device__attribute_confidential_computing_mode" not in every  # "No-CC"
    assert "launch__cluster_scheduling_policy" not in every  # "PolicySpread"


@pytest.mark.parametrize(
    "unit, expected",
    [
        ("byte", ("byte", 1.0)),
        ("Kbyte", ("byte", 1e3)),
        ("Mbyte", ("byte", 1e6)),
        ("usecond", ("ns", 1e3)),
        ("msecond", ("ns", 1e6)),
        ("ns", ("ns", 1.0)),
        ("%", ("%", 1.0)),
        ("", ("count", 1.0)),
        ("inst", ("count", 1.0)),
        ("Minst", ("count", 1e6)),
        ("Gbyte/second", ("byte/second", 1e9)),
        ("byte/usecond", ("byte/second", 1e6)),
        ("Kbyte/block", ("byte/block", 1e3)),
    ],
)
def test_normalise_unit(unit, expected):
    name, factor = normalise_unit(unit)
    assert name == expected[0]
    assert factor == pytest.approx(expected[1])


def test_scaled_units_parse_to_base():
    text = (
        '"ID","Kernel Name","dram__bytes_read.sum","gpu__time_duration.sum"\n'
        '"","","Mbyte","usecond"\n'
        '"0","k","8.39","1,234.5"\n'
    )
    (row,) = parse_ncu_csv(text, ["dram__bytes_read.sum", "gpu__time_duration.sum", "lts__t_bytes.sum"])
    assert row["counters"]["dram__bytes_read.sum"] == pytest.approx(8.39e6)
    assert row["counters"]["gpu__time_duration.sum"] == pytest.approx(1_234_500)
    assert row["counters"]["lts__t_bytes.sum"] is None  # not printed by ncu


@pytest.mark.parametrize(
    "text, message",
    [
        ("==ERROR== ERR_NVGPUCTRPERM - no permission\n", "ERR_NVGPUCTRPERM"),
        ("hello\nworld\n", 'no header line starting with "ID"'),
        ('"ID","Kernel Name","x__y.sum"\n"0","k","5"\n', "units row"),
        ('"ID","Kernel Name","x__y.sum"\n"","",""\n"0","k"\n', "row 3 has 2 fields"),
        ('"ID","Name","x__y.sum"\n"","",""\n"0","k","1"\n', "no 'Kernel Name' column"),
        ('"ID","Kernel Name","dram__bytes_read.sum"\n"","","byte"\n"0","k","lots"\n', "holds 'lots', not a number"),
    ],
)
def test_malformed_csv_refused(text, message):
    with pytest.raises(NcuCsvError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_ncu_csv(text)


# ---------------------------------------------------------------------------------- model vs measured


def test_comparison_naive(rows):
    comp = Comparison.of(naive_traffic(P1024), rows[0]["counters"])
    by = {(r.level, r.quantity): r for r in comp.rows}
    assert by[("L1/TEX global", "global load requests")].ratio == 1.0  # 2 loads per k per warp, as modelled
    assert by[("L1/TEX global", "bytes of global-load sectors")].ratio == 0.5  # broadcast of A
    assert by[("shared", "load instructions")].ratio is None  # no shared memory
    text = " ".join(comp.sentences())
    assert "L1 and L2 serve the re-reads" in text
    assert "broadcast" in text
    assert "still in L2" in text  # dram__bytes_write.sum is 0: C has not left L2 when the kernel ends
    assert "bank conflicts" not in text.lower()
    assert comp.intensities["L1"] == pytest.approx(0.5)  # 2*1024^3 FLOP / (2^27 sectors * 32 B)
    assert comp.intensities["shared"] is None


def test_comparison_tiled(rows):
    comp = Comparison.of(tiled_traffic(P1024, 16), rows[1]["counters"])
    by = {(r.level, r.quantity): r for r in comp.rows}
    assert by[("shared", "load instructions")].ratio == 0.625  # 20 of 32 loads per k-step: 4 LDS.128 + 16
    assert by[("L1/TEX global", "bytes of global-load sectors")].ratio == 1.0
    text = " ".join(comp.sentences())
    assert "vector loads" in text
    assert "No bank conflicts to speak of" in text
    assert "Achieved occupancy 91%" in text


def test_comparison_conflicts_and_dram_excess():
    p = Problem(64, 64, 64)
    t = tiled_traffic(p, 16)
    counters = {
        "dram__bytes_read.sum": 4.0 * t.global_loads * 3,
        "dram__bytes_write.sum": 4.0 * t.global_stores,
        "smsp__inst_executed_op_shared_ld.sum": t.shared_loads / 32,
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": t.shared_loads / 32 * 4,
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": t.shared_stores / 32,
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": t.shared_loads / 32 * 3,
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": 0.0,
    }
    text = " ".join(Comparison.of(t, counters).sentences())
    assert "Bank conflicts cost" in text
    assert "scattered accesses" in text
    assert "still in L2" not in text


def test_level_intensities_missing_counters():
    got = level_intensities(100.0, {"dram__bytes_read.sum": 10.0, "dram__bytes_write.sum": 40.0})
    assert got == {"DRAM": 2.0, "L2": None, "L1": None, "shared": None}


# ------------------------------------------------------------------------------------------ profile.py


def test_profile_command_line():
    cmd = profile.profile_command(["python3", "x.py"], "gemm_tiled", ["a__b.sum", "c__d.sum"], 3, 2, ncu="/x/ncu")
    assert cmd[0] == "/x/ncu"
    assert cmd[-2:] == ["python3", "x.py"]
    joined = " ".join(cmd)
    for part in (
        "--csv",
        "--page raw",
        "--metrics a__b.sum,c__d.sum",
        "--kernel-name regex:gemm_tiled",
        "--launch-skip 2",
        "--launch-count 3",
        "--target-processes all",
    ):
        assert part in joined
    with pytest.raises(ValueError):
        profile.profile_command(["x"], "k", launch_count=0)


def test_find_ncu_in_cuda_home(tmp_path, monkeypatch):
    exe = tmp_path / "bin" / "ncu"
    exe.parent.mkdir()
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setenv("CUDA_HOME", str(tmp_path))
    assert profile.find_ncu() == exe


def test_ncu_missing(monkeypatch):
    monkeypatch.setattr(profile, "find_ncu", lambda: None)
    with pytest.raises(profile.ProfileError) as err:
        profile.run_profile(["python3", "x.py"], "gemm")
    assert str(err.value) == "Nsight Compute (ncu) not found: install the CUDA toolkit or put ncu on PATH"


def _fake_ncu(monkeypatch, returncode=0, stdout="", log_text=None):
    """subprocess.run replaced: writes `log_text` to the --log-file ncu was given."""
    monkeypatch.setattr(profile, "find_ncu", lambda: Path("/opt/ncu"))

    def run(cmd, **kwargs):
        if log_text is not None:
            Path(cmd[cmd.index("--log-file") + 1]).write_text(log_text)
        return subprocess.CompletedProcess(cmd, returncode, stdout, "")

    monkeypatch.setattr(profile.subprocess, "run", run)


def test_counters_not_permitted(monkeypatch):
    log = (
        "==PROF== Connected to process 1\n==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access "
        "NVIDIA GPU Performance Counters on the target device 0.\n"
    )
    _fake_ncu(monkeypatch, returncode=1, log_text=log)
    with pytest.raises(profile.ProfileError) as err:
        profile.run_profile(["python3", "x.py"], "gemm")
    message = str(err.value)
    assert "ERR_NVGPUCTRPERM" in message
    assert "NVreg_RestrictProfilingToAdminUsers=0" in message
    assert "\n" not in message


def test_no_kernel_matched(monkeypatch):
    _fake_ncu(
        monkeypatch, stdout="", log_text="==PROF== Disconnected from process 1\n==WARNING== No kernels were profiled.\n"
    )
    with pytest.raises(profile.ProfileError, match="no kernel matched"):
        profile.run_profile(["python3", "x.py"], "nothing_like_this")


def test_unknown_metric(monkeypatch):
    _fake_ncu(monkeypatch, returncode=1, log_text="==ERROR== Failed to find metric foo__bar.sum\n")
    with pytest.raises(profile.ProfileError, match="does not know the metric foo__bar.sum") as caught:
        profile.run_profile(["python3", "x.py"], "gemm", metrics=["foo__bar.sum"])
    assert caught.value.missing_metric == "foo__bar.sum"  # what the profile's retry reads, not the sentence


def test_run_profile_parses_the_log(monkeypatch):
    _fake_ncu(monkeypatch, stdout="program output\n", log_text=NCU_CSV.read_text())
    got = profile.run_profile(["python3", "x.py"], "gemm_(naive|tiled)", launch_count=2)
    assert [r["kernel"] for r in got] == ["gemm_naive", "gemm_tiled"]


# ------------------------------------------------------------------------------------ instrumentation


def test_instrument_source_places_the_macros():
    src = kernel_source("tiled.cu")
    out = profile.instrument_source(src, "gemm_tiled")
    assert out.startswith("#define GEMMVIZ_TRACE\n")
    assert "__device__ unsigned long long *gemmviz_trace;" in out
    body = out[out.index("gemm_tiled(") :]
    assert body.index("GEMMVIZ_TRACE_BEGIN") < body.index("__shared__")
    assert body.rstrip().endswith("GEMMVIZ_TRACE_END\n}")
    assert body.index("C[row * N + col] = sum;") < body.index("GEMMVIZ_TRACE_END")


def test_instrument_source_refuses_early_return_and_skips_comments():
    with pytest.raises(ValueError, match="returns early"):
        profile.instrument_source("__global__ void k(int *a) { if (a[0]) return; a[1] = 2; }", "k", "")
    with pytest.raises(ValueError, match="no __global__ void other"):
        profile.instrument_source("__global__ void k() {}", "other", "")
    out = profile.instrument_source("__global__ void k(int *a) { // a } in a comment\n a[0] = 1; /* { */ }\n", "k", "")
    assert out.rstrip().endswith("GEMMVIZ_TRACE_END\n}")


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_trace_compiles_and_costs_nothing_when_off(tmp_path):
    """With GEMMVIZ_TRACE the PTX reads %globaltimer and %smid; without it the macros leave no trace."""
    src = kernel_source("tiled.cu")
    traced = profile.instrument_source(src, "gemm_tiled")
    off = traced.replace("#define GEMMVIZ_TRACE\n", "", 1)

    def ptx(text: str, name: str) -> str:
        (tmp_path / f"{name}.cu").write_text(text)
        subprocess.run(
            ["nvcc", "-ptx", "-arch=sm_90", "-O3", "-o", str(tmp_path / f"{name}.ptx"), str(tmp_path / f"{name}.cu")],
            check=True,
            capture_output=True,
        )
        lines = (tmp_path / f"{name}.ptx").read_text().splitlines()
        return "\n".join(line for line in lines if not line.lstrip().startswith("//"))

    on = ptx(traced, "on")
    assert "%globaltimer" in on and "%smid" in on and "gemmviz_trace" in on
    assert ptx(off, "off") == ptx(src, "plain")


def test_instrument_source_finds_launch_bounds_declarations():
    """`extern "C" __global__ void __launch_bounds__(N)\nNAME(` (the block-tiling kernels) is found; a call of
    the name in another function, or the name in a comment, is not taken for the declaration."""
    src = (
        "// k(1) is not a declaration\n__device__ int k2(int x) { return x; }\n"
        'extern "C" __global__ void __launch_bounds__((64 * 64) / 8)\nk(int *a) {\n  a[0] = k2(1);\n}\n'
    )
    out = profile.instrument_source(src, "k", "")
    body = out[out.index("\nk(int *a)") :]
    assert body.index("GEMMVIZ_TRACE_BEGIN") < body.index("a[0] = k2(1);") < body.index("GEMMVIZ_TRACE_END")
    with pytest.raises(ValueError, match="no __global__ void k2"):
        profile.instrument_source(src, "k2", "")


def test_hand_placed_stamps_are_kept():
    """The Hopper kernel places its own stamps around its early-returning producer: nothing is inserted."""
    src = kernel_source("wgmma_tf32.cu")
    out = profile.instrument_source(src, "wgmma_tf32")
    assert out.startswith("#define GEMMVIZ_TRACE\n") and out.endswith("\n#line 1\n" + src)  # inserted nothing
    body = src[src.index("wgmma_tf32(const") :]
    assert body.index("GEMMVIZ_WGMMA_TRACE_BEGIN") < body.index("return;") < body.index("GEMMVIZ_WGMMA_TRACE_END")


def _traceable():
    from gemmviz.core.kernels.variants import VARIANTS

    return [v for v in VARIANTS.values() if v.runner in ("kernel", "wgmma-tma")]


@pytest.mark.parametrize("variant", _traceable(), ids=lambda v: v.name)
def test_every_registry_kernel_instruments(variant):
    """Each kernel gemmviz launches gets a block-trace build. That nvcc accepts it (sm_90a for the Hopper one) and
    that its cubin holds gemmviz_trace, the symbol the host points at its buffer, is checked on the same build in
    tests/test_kernels_compile.py (its -traced cases, which fail, not skip, for these kernels): compiling it here
    again cost 15 nvcc runs."""
    traced = profile.instrument_source(variant.source_text(), variant.kernel_name)
    assert traced.startswith("#define GEMMVIZ_TRACE\n") and variant.kernel_name in traced


# ---------------------------------------------------------------------------------------- block trace


def _records(blocks):
    return np.array([v for b in blocks for v in b], dtype=np.uint64)


def test_decode_trace_sorts_and_rebases():
    raw = _records([[0, 5, 1300, 1500], [1, 2, 1000, 1200], [2, 5, 1000, 1100]])
    assert decode_trace(raw) == [[1, 2, 0, 200], [2, 5, 0, 100], [0, 5, 300, 500]]


@pytest.mark.parametrize(
    "raw, message",
    [
        (np.array([0, 1, 2], dtype=np.uint64), "4 u64 per block"),
        (np.array([], dtype=np.uint64), "empty"),
        (_records([[0, 1, 10, 20], [2**64 - 1] * 4]), "never wrote"),
        (_records([[0, 1, 10, 20], [0, 1, 10, 20]]), "record 1 holds block 0"),
        (_records([[0, 1, 30, 20]]), "ends before it starts"),
    ],
)
def test_decode_trace_refuses(raw, message):
    with pytest.raises(TraceError, match=message):
        decode_trace(raw)


def test_trace_summary_synthetic():
    # 4 SMs, 2 blocks resident each: blocks 0-7 in the first wave, 8 and 9 alone in a second one.
    recs = []
    for b in range(10):
        start = 500 * (b // 8) + 10 * ((b % 8) // 4)
        recs.append([b, b % 4, 1000 + start, 1400 + start])
    s = trace_summary(decode_trace(_records(recs)))
    assert (s.blocks, s.sms_used, s.duration_ns) == (10, 4, 900)
    assert (s.blocks_per_sm_min, s.blocks_per_sm_max) == (2, 3)
    assert (s.max_resident_per_sm, s.max_resident_total) == (2, 8)
    assert s.waves == pytest.approx(10 / 8)
    assert s.tail_pct == pytest.approx(100 * (900 - 410) / 900)  # all 4 SMs busy until 410 ns
    times, resident = resident_timeline(decode_trace(_records(recs)), sm=0)
    assert resident.max() == 2 and resident[-1] == 0


def test_back_to_back_blocks_are_not_resident_together():
    t = decode_trace(_records([[0, 0, 0, 100], [1, 0, 100, 200]]))
    assert trace_summary(t).max_resident_per_sm == 1


def test_real_h200_traces():
    """Recorded on the H200: 132 SMs, 8 blocks of 256 threads per SM, 2 of 1024 (the 2048-thread limit)."""
    traces = np.load(DATA / "trace-h200-1000.npz")
    t16 = decode_trace(traces["tiled16_1000"])
    assert len(t16) == 63 * 63
    assert max(sm for _, sm, _, _ in t16) == 131
    s16, s32 = trace_summary(t16), trace_summary(decode_trace(traces["tiled32_1000"]))
    assert (s16.sms_used, s16.max_resident_per_sm, s16.max_resident_total) == (132, 8, 1056)
    assert (s16.blocks_per_sm_min, s16.blocks_per_sm_max) == (30, 31)
    assert (s32.blocks, s32.max_resident_per_sm, s32.max_resident_total) == (1024, 2, 264)
    assert s32.tail_pct > s16.tail_pct  # fewer, longer blocks: a coarser last wave
    assert all(start % 32 == 0 and end % 32 == 0 for _, _, start, end in t16)  # %globaltimer's 32 ns steps


def test_a_dram_that_read_less_than_the_inputs_says_they_were_in_l2_already(rows):
    """The naive kernel at 1024³ read 3.5 MB from DRAM of the 8.4 MB of A and B it must read once: "L1 and L2 serve
    the re-reads" left a student thinking the kernel needs ~5 MB of DRAM traffic. No cache serves a first read,
    so the counters were taken on warm caches, and the sentence says so; a DRAM that read A and B whole does not."""
    inputs = 4.0 * (P1024.m * P1024.k + P1024.k * P1024.n)
    counters = dict(rows[0]["counters"])
    counters["dram__bytes_read.sum"] = 0.42 * inputs
    text = " ".join(Comparison.of(naive_traffic(P1024), counters, input_bytes=inputs).sentences())
    assert "DRAM read 3.5 MB, less than the 8.4 MB of A and B the kernel reads at least once" in text
    assert "warm caches" in text
    counters["dram__bytes_read.sum"] = 1.02 * inputs  # a cold profile: every input byte from DRAM
    assert "warm caches" not in " ".join(Comparison.of(naive_traffic(P1024), counters, input_bytes=inputs).sentences())
    counters["dram__bytes_read.sum"] = 0.42 * inputs
    assert "warm caches" not in " ".join(Comparison.of(naive_traffic(P1024), counters).sentences())  # size unknown
