import json
import os

import pytest

from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.session.results import Result, Session, SessionError, results_csv, speedup


def make(variant, ms, n=64, valid=True, status="ok", params=None):
    return Result(
        variant=variant,
        params=params or {},
        m=n,
        n=n,
        k=n,
        backend=VARIANTS[variant].backend,
        precision="fp32",
        valid=valid,
        status=status,
        samples_ms=list(ms),
        rel_error=1e-7,
    )


def test_json_round_trip(tmp_path):
    s = Session(results=[make("cpu-naive", [4, 5, 6]), make("gpu-tiled", [1, 2], params={"tile": 16})])
    s.environment = {"cpu": "x"}
    path = tmp_path / "s.json"
    s.save(path)
    loaded = Session.load(path)
    assert loaded.to_dict() == s.to_dict()
    assert loaded.results[1].median_ms == 1.5
    assert json.loads(path.read_text())["schema_version"] == 3


def test_statistics_and_speedups():
    results = [make("cpu-naive", [10, 12, 11]), make("gpu-naive", [2]), make("gpu-tiled", [1])]
    r = results[2]
    assert results[0].median_ms == 11 and results[0].min_ms == 10 and results[0].max_ms == 12
    assert speedup(results, r, "cpu-naive") == 11
    assert speedup(results, r, "gpu-naive") == 2
    assert speedup(results, r, "cublas") is None
    assert r.gflops == pytest.approx(2 * 64**3 / 1e-3 / 1e9)


def test_invalid_results_have_no_gflops():
    bad = make("gpu-tiled", [1], valid=False, status="invalid")
    assert bad.gflops is None and bad.effective_gbs is None


@pytest.mark.parametrize(
    "content, message",
    [
        ("{not json", "not valid JSON"),
        ('{"foo": 1}', "not a gemmviz session"),
        ("[1, 2]", "not a gemmviz session"),
        ('{"schema": "gemmviz.session", "schema_version": 99, "results": []}', "version 99"),
        ('{"schema": "gemmviz.session", "schema_version": 1, "results": [{"variant": "x"}]}', r"results\[0\]: lacks"),
        ('{"schema": "gemmviz.session", "schema_version": 1}', "results: missing"),
    ],
)
def test_corrupt_sessions_are_refused_clearly(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(SessionError, match=message):
        Session.load(path)


def test_missing_and_binary_files(tmp_path):
    with pytest.raises(SessionError, match="cannot read"):
        Session.load(tmp_path / "nope.json")
    path = tmp_path / "bin.json"
    path.write_bytes(b"\xff\xfe\x00\x81")
    with pytest.raises(SessionError):
        Session.load(path)


def test_save_to_unwritable_place_keeps_old_file(tmp_path):
    path = tmp_path / "s.json"
    Session(results=[make("cpu-blas", [1])]).save(path)
    before = path.read_text()
    with pytest.raises(OSError):
        Session().save(tmp_path / "missing-dir" / "s.json")
    if os.geteuid() != 0:  # root ignores permissions
        tmp_path.chmod(0o500)
        try:
            with pytest.raises(OSError):
                Session().save(path)
        finally:
            tmp_path.chmod(0o700)
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["s.json"]


def test_csv_has_a_row_per_result():
    text = results_csv([make("cpu-naive", [4]), make("cpu-blas", [1])])
    lines = text.strip().splitlines()
    assert lines[0].startswith("variant,params,m,n,k,valid,median_ms")
    assert len(lines) == 3 and lines[2].split(",")[0] == "cpu-blas"


def test_counters_and_block_trace_round_trip_and_stay_out_of_the_csv(tmp_path):
    r = make("gpu-tiled", [1, 2], params={"tile": 16})
    r.counters = {"dram__bytes_read.sum": 1.5e6, "sm__throughput.avg.pct_of_peak_sustained_elapsed": None}
    r.block_trace = [[0, 3, 100, 900], [1, 5, 120, 880]]
    path = tmp_path / "s.json"
    Session(results=[r]).save(path)
    loaded = Session.load(path).results[0]
    assert loaded.counters == r.counters and loaded.block_trace == r.block_trace
    header = results_csv([loaded]).splitlines()[0]
    assert "counters" not in header and "block_trace" not in header


def test_old_files_without_counters_load_as_none(tmp_path):
    d = Session(results=[make("gpu-naive", [1])]).to_dict()
    for row in d["results"]:
        del row["counters"], row["block_trace"]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(d))
    loaded = Session.load(path).results[0]
    assert loaded.counters is None and loaded.block_trace is None


def test_a_results_json_object_is_its_fields_copied():
    """Result.to_dict is dataclasses.asdict without its slow deep copy: the same object, sharing nothing."""
    import dataclasses

    from gemmviz.core.session.workspace import default_replay_session

    results = Session.load(default_replay_session()).results
    traced = next(r for r in results if r.block_trace)
    for r in results:
        assert r.to_dict() == dataclasses.asdict(r)
    d = traced.to_dict()
    d["block_trace"][0][1] = -1
    d["samples_ms"].append(-1.0)
    assert traced.block_trace[0][1] != -1 and traced.samples_ms[-1] != -1.0
