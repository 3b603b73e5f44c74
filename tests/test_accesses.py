"""Recorded memory accesses (issue 25) without a GPU: the figures derived from addresses, the records shipped
from the H200 held to the schedule model and to Nsight Compute, the loader's bounds, and `gemmviz profile
--accesses` with a fake GPU, a fake ncu and a fake tracer (crashed child, missing sanitizer, record cap)."""

from __future__ import annotations

import base64
import copy
import gzip
import json
import zlib

import numpy as np
import pytest

from gemmviz.core.hardware import accesses as acc
from gemmviz.core.problem import Problem
from gemmviz.core.schedule.block import block_schedule
from gemmviz.core.session.checks import SessionError

FULL = 0xFFFFFFFF


@pytest.fixture(scope="module")
def shipped():
    f = acc.shipped_file()
    assert f is not None and f.gpu == "NVIDIA H200"
    return f


def trace_of(f, variant, mnk, **params):
    for t in f.traces:
        if t.variant == variant and t.mnk == mnk and t.params == params:
            return t
    raise AssertionError(f"no {variant} {params} at {mnk} in the shipped records")


def one(addr, size=4, active=FULL):
    return np.array([addr], np.int64), np.array([active], np.uint32), np.array([size])


# ---------------------------------------------------------------------------------------------- from addresses


@pytest.mark.parametrize(
    "addresses,size,sectors,lines",
    [
        ([4 * i for i in range(32)], 4, 4, 1),  # 32 floats in a row: one 128-byte line
        ([4096 * i for i in range(32)], 4, 32, 32),  # a column of a 1024-wide matrix: a line per lane
        ([64] * 32, 4, 1, 1),  # one address for the whole warp (a broadcast)
        ([16 * i for i in range(32)], 16, 16, 4),  # float4 per lane: 512 bytes
        ([4 * (i % 16) + 256 * (i // 16) for i in range(32)], 4, 4, 2),  # two half-warps, two rows
    ],
)
def test_sectors_and_lines_follow_from_the_addresses(addresses, size, sectors, lines):
    s, ln = acc.sectors_and_lines(*one(addresses, size))
    assert (int(s[0]), int(ln[0])) == (sectors, lines)


def test_inactive_lanes_touch_nothing():
    s, _ = acc.sectors_and_lines(*one([4096 * i for i in range(32)], 4, active=0x1))
    assert int(s[0]) == 1


@pytest.mark.parametrize(
    "addresses,size,wave,ideal",
    [
        ([4 * i for i in range(32)], 4, 1, 1),  # consecutive words: 32 banks
        ([8 * i for i in range(32)], 4, 2, 1),  # stride 2 words: 16 banks, 2 words each
        ([128 * i for i in range(32)], 4, 32, 1),  # a column of a 32-wide float tile: one bank
        ([132 * i for i in range(32)], 4, 1, 1),  # ... padded to 33: 32 banks
        ([40] * 32, 4, 1, 1),  # broadcast
        ([0] * 32, 16, 2, 2),  # a 16-byte broadcast still takes a wavefront per half-warp (H200, ncu)
        ([32 * (i % 16) for i in range(32)], 16, 8, 4),  # float4 at a 32-byte stride: 4-way per half-warp
        ([16 * i for i in range(32)], 16, 4, 4),  # contiguous float4: 2 per half-warp, no conflict
    ],
)
def test_wavefronts_and_bank_conflicts_follow_from_the_addresses(addresses, size, wave, ideal):
    w, i = acc.wavefronts(*one(addresses, size))
    assert (int(w[0]), int(i[0])) == (wave, ideal)


# ------------------------------------------------------------------------------ the records recorded on the H200


@pytest.mark.parametrize(
    "variant,mnk,param",
    [
        ("gpu-naive", (1024,) * 3, ("block", 16)),
        ("gpu-tiled", (1024,) * 3, ("tile", 16)),
        ("gpu-tiled", (1024,) * 3, ("tile", 32)),
        ("gpu-naive", (1000,) * 3, ("block", 16)),
        ("gpu-tiled", (1000,) * 3, ("tile", 16)),
        ("gpu-blocktile2d", (1024,) * 3, None),
    ],
)
def test_recorded_counts_equal_the_schedule_model_per_block(shipped, variant, mnk, param):
    """Every traced block, the cut edge block of 1000^3 too, asked for exactly what the schedule model counts
    (gpu-blocktile2d's float4 shared loads count 4 elements each, as the model does)."""
    t = trace_of(shipped, variant, mnk, **dict([param] if param else []))
    assert len(t.blocks) == 2 and not t.truncated
    for slot, (bx, by, _bz) in enumerate(t.blocks):
        model = block_schedule(variant, Problem(*mnk), param[1] if param else None, (by, bx)).totals
        assert acc.element_counts(t.summary[slot]) == {
            "global_loads": model.global_loads,
            "global_stores": model.global_stores,
            "shared_loads": model.shared_loads,
            "shared_stores": model.shared_stores,
        }
    if mnk == (1000,) * 3:
        assert t.summary[0] != t.summary[1]  # the edge block did less


@pytest.mark.parametrize(
    "variant,params",
    [
        ("gpu-naive", {"block": 16}),
        ("gpu-uncoalesced", {"block": 32}),
        ("gpu-tiled", {"tile": 16}),
        ("gpu-tiled", {"tile": 32}),
        ("gpu-blocktile2d", {}),
        ("gpu-vectorize", {}),
    ],
)
def test_recorded_sectors_match_ncu_within_the_sampled_share(shipped, variant, params):
    rows = {r.key: r for r in acc.beside_ncu(trace_of(shipped, variant, (1024,) * 3, **params))}
    for key in ("global_ld_requests", "global_ld_sectors", "global_st_requests", "global_st_sectors"):
        assert rows[key].ncu and rows[key].ratio == pytest.approx(1.0, rel=1e-3), key


def test_uncoalesced_reads_a_sector_per_lane_where_naive_shares_them(shipped):
    naive = trace_of(shipped, "gpu-naive", (1024,) * 3, block=16).summary[0]
    bad = trace_of(shipped, "gpu-uncoalesced", (1024,) * 3, block=32).summary[0]
    assert naive["global_ld_sectors"] / naive["global_ld_requests"] == 2  # two rows of 16 lanes, broadcast or 64 B
    assert bad["global_ld_sectors"] / bad["global_ld_requests"] == pytest.approx(16.5, rel=0.01)  # 32 for A, 1 for B


@pytest.mark.parametrize("tile", [16, 32])
def test_tiled_and_padded_tiled_loads_are_conflict_free_as_ncu_counts(shipped, tile):
    for variant in ("gpu-tiled", "gpu-tiled-pad"):
        rows = {r.key: r for r in acc.beside_ncu(trace_of(shipped, variant, (1024,) * 3, tile=tile))}
        assert rows["shared_ld_wavefronts"].ratio == pytest.approx(1.0, rel=2e-3)
        assert rows["shared_ld_conflicts"].recorded == 0
        assert rows["shared_ld_conflicts"].ncu < 1e-3 * rows["shared_ld_wavefronts"].ncu  # ncu's own noise


def test_padding_a_16_wide_tile_puts_a_2_way_conflict_on_its_stores(shipped):
    """TILE=16 + PAD=1: a warp stores two rows of 17-word pitch, and word 32 of them shares bank 0 with word 0."""
    pad = {r.key: r for r in acc.beside_ncu(trace_of(shipped, "gpu-tiled-pad", (1024,) * 3, tile=16))}
    plain = {r.key: r for r in acc.beside_ncu(trace_of(shipped, "gpu-tiled", (1024,) * 3, tile=16))}
    assert pad["shared_st_conflicts"].per_block == pad["shared_st_requests"].per_block  # one extra wavefront each
    assert plain["shared_st_conflicts"].recorded == 0
    assert pad["shared_st_conflicts"].ratio == pytest.approx(1.0, rel=0.05)


def test_store_conflicts_ncu_counts_beyond_the_addresses_stay_below_a_third_of_the_stores(shipped):
    """ncu also counts store wavefronts no single request's addresses explain (other warps' traffic in the same
    cycles): recorded <= ncu <= recorded + 0.3 per store, on every kernel recorded."""
    for t in shipped.traces:
        if t.mnk != (1024,) * 3 or not t.ncu:
            continue
        rows = {r.key: r for r in acc.beside_ncu(t)}
        conflicts, stores = rows["shared_st_conflicts"], rows["shared_st_requests"]
        if stores.ncu:
            assert conflicts.estimate <= conflicts.ncu * 1.001 + 1
            assert conflicts.ncu <= conflicts.estimate + 0.3 * stores.ncu, t.label


def test_the_transposed_store_kernel_has_the_conflicts_ncu_counts(shipped):
    rows = {r.key: r for r in acc.beside_ncu(trace_of(shipped, "gpu-vectorize", (1024,) * 3))}
    for key in ("shared_ld_conflicts", "shared_st_conflicts", "shared_ld_wavefronts", "shared_st_wavefronts"):
        assert rows[key].recorded > 0 and rows[key].ratio == pytest.approx(1.0, rel=1e-3), key


def test_the_hopper_kernel_says_what_the_tracer_cannot_see(shipped):
    t = trace_of(shipped, "gpu-wgmma-tf32", (1024,) * 3)
    assert t.wgmma > 0 and "TMA" in t.sees and "model" in t.sees
    assert all(s["global_ld_requests"] == 0 for s in t.summary)  # its A and B tiles arrive by TMA, not by threads
    assert all(s["global_st_requests"] > 0 for s in t.summary)  # its epilogue stores are per thread


def test_pcs_map_to_sass_and_source_lines(shipped):
    """Each recorded instruction lands on a memory instruction of the SASS, on the source line of its anchor."""
    from gemmviz.core.kernels.variants import VARIANTS

    t = trace_of(shipped, "gpu-tiled", (1024,) * 3, tile=16)
    ops = {(p.sass.split(".")[0], p.line) for p in t.pcs}
    line = VARIANTS["gpu-tiled"].step_lines()
    assert {("LDG", line["load"]), ("STS", line["load"]), ("LDS", line["compute"]), ("STG", line["store"])} <= ops
    assert all(p.sass.split(".")[0] in ("LDG", "STG", "LDS", "STS") for p in t.pcs)


def test_worst_requests_are_the_uncoalesced_load_and_the_conflicting_store(shipped):
    bad = trace_of(shipped, "gpu-uncoalesced", (1024,) * 3, block=32)
    lines = acc.request_lines(bad, acc.worst_global_request(bad))
    assert len(lines["sectors"]) == 32 and lines["matrix"] == "A"
    pad = trace_of(shipped, "gpu-tiled-pad", (1024,) * 3, tile=16)
    banks = acc.request_banks(pad, acc.worst_shared_request(pad))
    assert banks["store"] and banks["wavefronts"] == 2 and max(banks["degree"].values()) == 2


# ---------------------------------------------------------------------------------------------- the file


def test_a_saved_file_loads_back_the_same(shipped, tmp_path):
    small = acc.AccessFile(
        shipped.gpu, shipped.date, shipped.command, [acc.keep_first(t, 50) for t in shipped.traces[:3]]
    )
    path = tmp_path / "s.accesses.json.gz"
    acc.save_file(small, path)
    back = acc.load_file(path)
    for a, b in zip(small.traces, back.traces):
        assert a.summary == b.summary and (a.addr == b.addr).all() and a.pcs == b.pcs and a.ncu == b.ncu


def _raw(shipped):
    return json.loads(json.dumps(acc.file_json(acc.AccessFile("g", "d", "c", [acc.keep_first(shipped.traces[0], 40)]))))


def _packed(values, dtype):
    return base64.b64encode(zlib.compress(np.asarray(values, dtype=dtype).tobytes())).decode()


@pytest.mark.parametrize(
    "change,field",
    [
        (lambda t: t.update(variant="gpu-nothing"), "traces[0].variant"),
        (lambda t: t.update(attempted=t["stored"] - 1), "traces[0].attempted"),
        (lambda t: t.update(stored=t["cap"] + 1), "traces[0].stored"),
        (lambda t: t["columns"].update(size=_packed([3] * t["kept"], "u1")), "traces[0].columns.size[0]"),
        (lambda t: t["columns"].update(slot=_packed([7] * t["kept"], "u1")), "traces[0].columns.slot[0]"),
        (lambda t: t["columns"].update(warp=_packed([1], "u1")), "traces[0].columns.warp"),
        (lambda t: t["columns"].update(addr="not base64!"), "traces[0].columns.addr"),
        (lambda t: t.update(grid=[0, 1, 1]), "traces[0].grid[0]"),
        (lambda t: t.update(blocks=[[0, 0, 0]] * 5), "traces[0].blocks"),
        (lambda t: t["ncu"].update(x=float("nan")), "traces[0].ncu.x"),
        (lambda t: t.update(pcs=[[0, "LDG", -3]] * len(t["pcs"])), "traces[0].pcs[0][2]"),
    ],
)
def test_the_loader_refuses_records_out_of_bounds_naming_the_field(shipped, change, field):
    data = _raw(shipped)
    change(data["traces"][0])
    with pytest.raises(SessionError) as err:
        acc.parse_file(json.loads(json.dumps(data)))
    assert err.value.field == field, str(err.value)


def test_the_loader_checks_the_stored_totals_of_a_trace_kept_in_part(shipped):
    cut = acc.keep_first(shipped.traces[0], 39, 0)  # detail cut: the stored totals are used, and checked
    assert cut.kept < cut.stored
    data = json.loads(json.dumps(acc.file_json(acc.AccessFile("g", "d", "c", [cut]))))
    assert acc.parse_file(copy.deepcopy(data)).traces[0].summary == cut.summary
    data["traces"][0]["summary"][0]["global_ld_sectors"] = -1
    with pytest.raises(SessionError) as err:
        acc.parse_file(data)
    assert err.value.field == "traces[0].summary[0].global_ld_sectors"


def test_a_file_that_is_not_access_records_or_a_gzip_bomb_is_refused(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps({"format": "gemmviz-session"}))
    with pytest.raises(SessionError, match="not a gemmviz access-record file"):
        acc.load_file(tmp_path / "a.json")
    bomb = tmp_path / "b.json.gz"
    bomb.write_bytes(gzip.compress(b" " * (80 * 2**20)))
    with pytest.raises(SessionError, match="limit"):
        acc.load_file(bomb)


# ------------------------------------------------------------------------------------- profile --accesses


@pytest.fixture
def fake_gpu(monkeypatch):
    import gemmviz.backends
    from tests.fakes import FakeGpuBackend

    backend = FakeGpuBackend(delay_s=0.01)
    monkeypatch.setattr(gemmviz.backends, "default_backends", lambda: {"cuda": backend})
    return backend


def _naive_raw(m=64, block=16):
    """What the tracer writes for gpu-naive's block (1, 1) of m^3: built from the kernel's own index arithmetic."""
    from gemmviz.backends.accesses import RawTrace

    base_a, base_b, base_c = 1 << 40, (1 << 40) + (1 << 24), (1 << 40) + (2 << 24)
    rows = []
    for w in range(block * block // 32):
        for k in range(m):
            for which, base in ((0, base_a), (1, base_b)):
                r = np.zeros(1, acc.RECORD_DTYPE)[0]
                r["pc"], r["seq"], r["active"], r["warp"], r["size"], r["flags"] = (
                    0x1000 + 16 * which,
                    2 * k + which,
                    FULL,
                    w,
                    4,
                    1,
                )
                for lane in range(32):
                    row, col = block + 2 * w + lane // 16, block + lane % 16
                    r["addr"][lane] = base + 4 * (row * m + k if which == 0 else k * m + col)
                rows.append(r)
    header = {
        "kernel": "gemm_naive",
        "kernel_seen": "gemm_naive",
        "recorded": True,
        "grid": [m // block] * 2 + [1],
        "block": [block, block, 1],
        "blocks": [[1, 1, 0]],
        "cap": 10**6,
        "attempted": len(rows),
        "stored": len(rows),
        "record_bytes": 280,
        "function_pc": 0x1000,
        "allocations": [[base_a, 4 * m * m, 0], [base_b, 4 * m * m, 1], [base_c, 4 * m * m, 2]],
    }
    return RawTrace(header, np.array(rows, acc.RECORD_DTYPE), {0: ("LDG.E", 15), 16: ("LDG.E", 15)})


def _profile(tmp_path, monkeypatch, traced, built=None):
    from gemmviz.backends import accesses as backend
    from gemmviz.cli import profile
    from gemmviz.cli.main import build_parser
    from tests.fake_ncu import FakeNcu

    monkeypatch.setattr(
        backend, "build_tracer", built or (lambda arch: backend.TracerBuild(tmp_path, tmp_path, tmp_path))
    )
    monkeypatch.setattr(backend, "run_traced", traced)
    out = tmp_path / "p.json"
    args = build_parser().parse_args(
        [
            "profile",
            "--variants",
            "gpu-naive",
            "--sizes",
            "64",
            "--block",
            "16",
            "--repeats",
            "2",
            "--out",
            str(out),
            "--quiet",
            "--accesses",
        ]
    )
    return profile.cmd_profile(args, runner=FakeNcu()), out


def test_profile_accesses_writes_the_records_beside_the_session(fake_gpu, tmp_path, monkeypatch):
    code, out = _profile(tmp_path, monkeypatch, lambda *a, **kw: _naive_raw())
    assert code == 0
    t = acc.load_file(tmp_path / "p.accesses.json.gz").traces[0]
    assert t.variant == "gpu-naive" and t.summary[0]["global_ld_requests"] == 2 * 64 * 8
    assert (
        acc.element_counts(t.summary[0])["global_loads"]
        == block_schedule("gpu-naive", Problem(64, 64, 64), 16, (1, 1)).totals.global_loads
    )
    assert list(np.unique(t.matrix)) == [0, 1]  # A and B, named from the allocations


@pytest.mark.parametrize(
    "why",
    [
        "the traced child crashed (signal 11): Segmentation fault",
        "the tracer did not attach: the child wrote no record file",
        "the compute-sanitizer API (compute-sanitizer/include/sanitizer.h and libsanitizer-public.so) was not found",
    ],
)
def test_a_tracer_fault_is_one_line_and_keeps_timings_and_counters(fake_gpu, tmp_path, monkeypatch, capsys, why):
    from gemmviz.core.session.results import Session

    def fail(*a, **kw):
        raise acc.AccessError(why)

    code, out = _profile(tmp_path, monkeypatch, fail, fail if "sanitizer" in why else None)
    assert code == 1
    assert why in capsys.readouterr().err
    (result,) = Session.load(out).results
    assert result.samples_ms and result.counters  # what was measured before the tracer stays
    assert not (tmp_path / "p.accesses.json.gz").exists()


def test_the_record_cap_reached_is_reported(fake_gpu, tmp_path, monkeypatch, capsys):
    def capped(*a, **kw):
        raw = _naive_raw()
        raw.header.update(cap=100, stored=100, attempted=len(raw.records))
        raw.records = raw.records[:100]
        return raw

    code, _ = _profile(tmp_path, monkeypatch, capped)
    assert code == 1 and "record cap reached (100 of 1,024 requests stored" in capsys.readouterr().err
    assert acc.load_file(tmp_path / "p.accesses.json.gz").traces[0].truncated


# ------------------------------------------------------------------------------- replayed beside the schedule


@pytest.mark.parametrize(
    "variant,mnk,params", [("gpu-naive", (1024,) * 3, {"block": 16}), ("gpu-tiled", (1000,) * 3, {"tile": 16})]
)
def test_each_replayed_step_holds_what_the_schedule_says_it_reads(shipped, variant, mnk, params):
    """Step by step, the cells the block's warps recorded are the model's region of that step, as many as it
    counts, for every step the shipped file keeps whole (its first requests), the store included."""
    from gemmviz.core.schedule.accesses import A, B, replay

    t = trace_of(shipped, variant, mnk, **params)
    for slot in range(2):
        sched, steps = replay(t, slot)
        whole = [s for s in steps if s.recorded == s.model]
        assert len(whole) >= 8 and steps[-1].kind == "store" and steps[-1] in whole
        for s in whole[:8]:
            region = sched.steps[s.step].a
            cells = s.cells[A]
            assert ((cells[:, 0] >= region.r0) & (cells[:, 0] < region.r1)).all()
            assert ((cells[:, 1] >= region.c0) & (cells[:, 1] < region.c1)).all()
            assert len(np.unique(cells[:, :2], axis=0)) == region.count  # every element of A's slice, once
            assert len(np.unique(s.cells[B][:, :2], axis=0)) == sched.steps[s.step].b.count


def test_the_hopper_kernel_takes_its_bulk_copies_from_the_model_and_records_its_stores(shipped):
    from gemmviz.core.schedule.accesses import hopper_beside_model

    h = hopper_beside_model(trace_of(shipped, "gpu-wgmma-tf32", (1024,) * 3))
    assert h["recorded_global_loads"] == 0 and h["model_tma_copies"] > 0 and h["model_tma_bytes"] > 0
    assert h["recorded_stores"] == h["model_stores"]  # the epilogue's per-thread stores, as the model counts them
    assert h["recorded_wgmma_per_block"] > 0


@pytest.mark.parametrize("option,value", [("--access-cap", "0"), ("--access-blocks", "1;2"), ("--access-blocks", "x")])
def test_bad_tracer_options_are_usage_errors_before_any_work(fake_gpu, tmp_path, option, value, capsys):
    from gemmviz.cli.main import main

    code = main(
        [
            "profile",
            "--variants",
            "gpu-naive",
            "--sizes",
            "64",
            "--out",
            str(tmp_path / "p.json"),
            "--accesses",
            option,
            value,
        ]
    )
    assert code == 2 and option in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_the_tracers_own_files_from_the_h200_map_to_sass_lines_and_the_model(tmp_path):
    """The tracer's files of gpu-tiled at 64^3 as it wrote them on the H200 (GEMMVIZ_ACCESS_KEEP), with nvdisasm's
    listing of the traced cubin and of its -lineinfo rebuild: the same code, every recorded PC a memory
    instruction on its source line, and per block the schedule model's counts."""
    from pathlib import Path

    from gemmviz.backends.accesses import parse_nvdisasm, read_trace
    from gemmviz.core.kernels.variants import VARIANTS

    data = Path(__file__).parent / "data" / "accesses"
    prefix = tmp_path / "trace"
    prefix.with_suffix(".json").write_text((data / "tiled-64-trace.json").read_text())
    prefix.with_suffix(".bin").write_bytes(gzip.decompress((data / "tiled-64-trace.bin.gz").read_bytes()))
    raw = read_trace(prefix, "gemm_tiled")
    code = parse_nvdisasm(gzip.decompress((data / "tiled-64-trace.sass.gz").read_bytes()).decode())["gemm_tiled"]
    lines = parse_nvdisasm(gzip.decompress((data / "tiled-64-lineinfo.sass.gz").read_bytes()).decode())["gemm_tiled"]
    assert [op for op, _ in code.values()] == [op for op, _ in lines.values()]
    sass = {offset: (op, lines[offset][1]) for offset, (op, _) in code.items()}
    t = acc.from_raw(raw.header, raw.records, sass, "gpu-tiled", (64, 64, 64), {"tile": 16})
    anchors = VARIANTS["gpu-tiled"].step_lines()
    assert {(p.sass.split(".")[0], p.line) for p in t.pcs} >= {("LDG", anchors["load"]), ("LDS", anchors["compute"])}
    assert all(p.sass.split(".")[0] in ("LDG", "STG", "LDS", "STS") for p in t.pcs)
    assert set(np.unique(t.matrix[t.space == acc.GLOBAL])) == {0, 1, 2}  # A, B and C, from the allocations
    for slot, (bx, by, _bz) in enumerate(t.blocks):
        model = block_schedule("gpu-tiled", Problem(64, 64, 64), 16, (by, bx)).totals
        assert acc.element_counts(t.summary[slot])["shared_loads"] == model.shared_loads
        assert acc.element_counts(t.summary[slot])["global_loads"] == model.global_loads


def test_a_tracer_that_wrote_nothing_or_recorded_nothing_is_one_line(tmp_path):
    from gemmviz.backends.accesses import read_trace

    with pytest.raises(acc.AccessError, match="did not attach"):
        read_trace(tmp_path / "trace", "gemm_tiled")
    (tmp_path / "trace.json").write_text(json.dumps({"recorded": False, "errors": ["the kernel was never launched"]}))
    with pytest.raises(acc.AccessError, match="the kernel was never launched"):
        read_trace(tmp_path / "trace", "gemm_tiled")


def test_the_hopper_kernels_stores_land_in_c(shipped):
    """Its threads write only C (named among the three allocations the run made), never read A or B."""
    t = trace_of(shipped, "gpu-wgmma-tf32", (1024,) * 3)
    assert set(np.unique(t.matrix[t.space == acc.GLOBAL])) == {2}
