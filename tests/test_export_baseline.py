"""`gemmviz export --chart speedup` without --baseline on a session that lacks the default baseline (the GPU
naive kernel; a CPU-only session has none): it draws against a baseline the session has and says which. An
explicit --baseline the session lacks is still refused."""

import pytest

pytest.importorskip("PySide6")

from gemmviz.cli import main
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.session.results import Result, Session


def _session(path, variants):
    results = [
        Result(
            variant=v,
            params=p,
            m=n,
            n=n,
            k=n,
            backend=VARIANTS[v].backend,
            precision="fp32",
            valid=True,
            samples_ms=[1.0 + i, 1.1 + i],
        )
        for i, (v, p) in enumerate(variants)
        for n in (64, 128)
    ]
    Session(results=results, created="2025-01-01T00:00:00+00:00").save(path)
    return str(path)


def test_speedup_without_the_default_baseline_uses_one_the_session_has(tmp_path, capsys):
    session = _session(tmp_path / "cpu.json", [("cpu-naive", {}), ("cpu-blas", {})])
    out = tmp_path / "s.png"
    assert main(["export", session, "--chart", "speedup", "--size", "640x360", "-o", str(out)]) == 0
    stdout = capsys.readouterr().out
    assert "speedup vs CPU loop (--baseline cpu-naive): the session has no GPU naive" in stdout
    assert out.exists() and out.stat().st_size > 1000


def test_the_default_baseline_where_the_session_has_it_says_nothing_more(tmp_path, capsys):
    session = _session(tmp_path / "gpu.json", [("gpu-naive", {"block": 16}), ("cpu-naive", {})])
    assert main(["export", session, "--chart", "speedup", "--size", "640x360", "-o", str(tmp_path / "s.png")]) == 0
    assert capsys.readouterr().out.startswith("wrote ")


def test_an_explicit_baseline_the_session_lacks_is_refused(tmp_path, capsys):
    session = _session(tmp_path / "cpu.json", [("cpu-naive", {})])
    argv = ["export", session, "--chart", "speedup", "--baseline", "gpu-naive", "-o", str(tmp_path / "s.png")]
    assert main(argv) == 2
    assert "to compare with at any size; baselines with results: cpu-naive" in capsys.readouterr().err
    assert not (tmp_path / "s.png").exists()
