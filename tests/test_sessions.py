"""Shipped sessions and comparisons, without Qt."""

import pytest

from gemmviz.core.session.results import Session, compare_sources
from gemmviz.core.session.workspace import Workspace, default_replay_session, recorded_sessions
from tests.checks.sessions import h200_session_has_every_variant_and_size


def test_shipped_sessions_load_and_validate():
    paths = recorded_sessions()
    assert {p.name for p in paths} >= {"published-seed000-rtx4060.json", "published-seed001-a100.json"}
    for path in paths:
        s = Session.load(path)
        assert s.kind in ("measured", "published") and s.results
        for r in s.results:
            assert r.valid == (r.status == "ok")
            assert r.valid or r.error  # every invalid or refused row says why
            if s.kind == "published":
                assert "published" in (r.note or "")


def test_recorded_h200_session_has_every_variant_and_size():
    h200_session_has_every_variant_and_size()


def test_a_published_figure_above_the_peak_is_not_plotted():
    s = Session.load(next(p for p in recorded_sessions() if "a100" in p.name))
    cublas = next(r for r in s.results if r.variant == "cublas")
    assert not cublas.valid and cublas.gflops is None and "peak" in cublas.error


def test_compare_sources():
    ws = Workspace()
    h200 = ws.open(default_replay_session()).label
    rtx = ws.open(next(p for p in recorded_sessions() if "rtx4060" in p.name)).label
    assert (h200, rtx) == ("NVIDIA H200, 2026-12-02 (recorded)", "RTX 4060, seed 000 (published)")
    others, rows = compare_sources(ws.shown(), rtx, ws.source_of)
    assert others == [h200]
    row = next(r for r in rows if r["series"] == "gpu-tiled (tile 16)" and r["size"] == "1024³")
    ms, times = row["others"][h200]
    assert row["reference_ms"] == 15 and times == pytest.approx(15 / ms)


# ------------------------------------------------------------------------------------- gzip sessions


def test_gzip_companion_is_listed_but_not_the_default_replay():
    names = [p.name for p in recorded_sessions()]
    assert {"h200-2026-12-01-traces-4096.json.gz", "h200-2026-12-02-traces-4096.json.gz"} <= set(names)
    assert default_replay_session().name == "h200-2026-12-02.json"
    assert not any(n.endswith(("-gap.json", "-pipeline.json")) for n in names)  # recordings, not sessions


def test_gzip_companion_holds_4096_traces_of_the_block_tiling_and_tensor_core_kernels():
    from gemmviz.core.session.workspace import recorded_sessions as listed

    # (the small-size traces of the last-wave view are a companion of their own)
    old, new = (Session.load(p) for p in listed() if p.name.endswith(".json.gz") and "traces-small" not in p.name)
    traced = {r.variant for r in old.results if r.block_trace and r.m == 4096}
    # the seed's kernels and the recording's best FP32 SIMT and TF32 kernels
    assert traced >= {"gpu-naive", "gpu-tiled", "gpu-cpasync", "gpu-wgmma-tf32"}
    # 2026-12-02 carries 2026-12-01's traces where the configuration is the same (the Hopper kernel's is not)
    assert {r.variant for r in new.results if r.block_trace and r.m == 4096} >= {
        "gpu-naive",
        "gpu-tiled",
        "gpu-cpasync",
    }


def test_recorded_1000_traces_of_the_seed_and_best_kernels():
    from gemmviz.core.paths import asset_path

    s = Session.load(asset_path("sessions", "h200-2026-12-01.json"))
    traced = {r.variant for r in s.results if r.block_trace and r.m == 1000}
    assert traced >= {"gpu-naive", "gpu-tiled", "gpu-cpasync", "gpu-wgmma-tf32"}
    s = Session.load(default_replay_session())  # 2026-12-02: carried where the configuration did not change
    assert {r.variant for r in s.results if r.block_trace and r.m == 1000} >= {"gpu-naive", "gpu-tiled", "gpu-cpasync"}


def test_gzip_session_round_trip(tmp_path):
    import gzip

    plain = default_replay_session()
    packed = tmp_path / "s.json.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    assert Session.load(packed).to_dict() == Session.load(plain).to_dict()


def test_gzip_bomb_and_broken_gzip_refused(tmp_path, monkeypatch):
    import gzip

    from gemmviz.core.session import checks as session_checks
    from gemmviz.core.session.results import SessionError

    monkeypatch.setattr(session_checks, "MAX_SESSION_BYTES", 1 << 20)
    bomb = tmp_path / "bomb.json.gz"
    bomb.write_bytes(gzip.compress(b'{"results": [' + b" " * (4 << 20) + b"]}"))  # ~4 KiB inflating to 4 MiB
    assert bomb.stat().st_size < 1 << 20
    with pytest.raises(SessionError, match="decompresses to over the 1 MiB limit"):
        Session.load(bomb)
    cut = tmp_path / "cut.json.gz"
    cut.write_bytes(gzip.compress(default_replay_session().read_bytes())[:5000])
    with pytest.raises(SessionError, match="not a readable gzip file"):
        Session.load(cut)
