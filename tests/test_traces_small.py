"""benchmarks/traces_small.py without a GPU: the whole script against the fake PyCUDA (tests/fake_pycuda, whose
kernels compute C with numpy and write every block's trace record), at a size small enough to be quick. What is
checked is the script (its builds, the engine's verified and traced runs, the file it writes and that the app
reads), not the kernels: tests/test_gpu_last_wave.py runs them on a GPU."""

import importlib.util
import sys
from pathlib import Path

from gemmviz.core.hardware.model_trace import TRACES_SMALL
from gemmviz.core.problem import Problem
from gemmviz.core.session.results import Session
from tests import fake_pycuda

ROOT = Path(__file__).resolve().parents[1]


def test_the_script_records_each_build_and_writes_a_session_the_app_reads(monkeypatch, tmp_path, capsys):
    fake_pycuda.install(monkeypatch)
    spec = importlib.util.spec_from_file_location("traces_small", ROOT / "benchmarks/traces_small.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    monkeypatch.setattr(sys, "argv", ["traces_small.py", "--size", "256", "--out", str(tmp_path)])
    assert script.main() == 0
    (path,) = tmp_path.glob("*" + TRACES_SMALL.format(size=256))
    session = Session.load(path)
    p = Problem(256, 256, 256)
    cases = script.cases(p)
    assert len(session.results) == len(cases)
    for case, r in zip(cases, session.results):
        assert r.status == "ok" and r.valid and r.problem == p and r.variant == script.VARIANT
        assert r.config == case.config and len(r.block_trace) == case.launch.grid
        assert r.note.startswith(f"traces-small {case.name}")
    out = capsys.readouterr().out
    assert f"wrote {path}" in out and out.count(" ok ") == len(cases)
