"""`gemmviz export SESSION --chart trace` (issue 47 item 2): the shipped block traces and Hopper pipeline as a
Chrome Trace Event file, checked against the format's rules (as Perfetto's and chrome://tracing's JSON importers
read them): the event types, ts/dur in µs, every process and track named by metadata events, and no two slices
of one track overlapping."""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict

import pytest

from gemmviz.cli.main import main
from gemmviz.core.hardware import chrome_trace
from gemmviz.core.hardware.pipeline_trace import load_pipeline_file
from gemmviz.core.paths import asset_path
from gemmviz.core.session.results import Result, Session

# the phases of the Trace Event Format (duration B/E, complete X, instant i/I, counter C, async b/n/e and S/T/p/F,
# flow s/t/f, sample P, object N/O/D, metadata M, memory dump V/v, mark R, context (/)); gemmviz writes X and M
PHASES = set("BEXiICbneSTpFstfPNODMVvR()")
METADATA = {"process_name", "process_labels", "process_sort_index", "thread_name", "thread_sort_index"}
PS = 1e6  # µs -> ps: slices are compared in whole picoseconds, as the file's 6 decimals give them


def check_trace(doc: object) -> dict[tuple[int, int], str]:
    """Every rule the test holds the file to; returns each track's name by (pid, tid)."""
    assert isinstance(doc, dict) and isinstance(doc["traceEvents"], list) and doc["traceEvents"]
    assert doc.get("displayTimeUnit") in (None, "ms", "ns")
    processes: dict[int, list[str]] = defaultdict(list)
    threads: dict[tuple[int, int], list[str]] = defaultdict(list)
    slices: dict[tuple[int, int], list[tuple[int, int]]] = defaultdict(list)
    for e in doc["traceEvents"]:
        assert e["ph"] in PHASES and e["ph"] in ("X", "M"), e
        assert isinstance(e["name"], str) and e["name"], e
        assert isinstance(e["pid"], int) and not isinstance(e["pid"], bool), e
        if e["ph"] == "M":
            assert e["name"] in METADATA, e
            if e["name"] == "process_name":
                processes[e["pid"]].append(e["args"]["name"])
            elif e["name"] == "thread_name":
                threads[(e["pid"], e["tid"])].append(e["args"]["name"])
            elif e["name"].endswith("sort_index"):
                assert isinstance(e["args"]["sort_index"], int)
            continue
        assert isinstance(e["tid"], int) and isinstance(e.get("cat", ""), str)
        for key in ("ts", "dur"):
            assert isinstance(e[key], int | float) and math.isfinite(e[key]) and e[key] >= 0, e
        slices[(e["pid"], e["tid"])].append((round(e["ts"] * PS), round((e["ts"] + e["dur"]) * PS)))
    assert all(len(v) == 1 and v[0] for v in processes.values()), "a process named once"
    assert all(len(v) == 1 and v[0] for v in threads.values()), "a track named once"
    for (pid, tid), spans in slices.items():
        assert pid in processes and (pid, tid) in threads, f"pid {pid} tid {tid} has slices but no name"
        spans.sort()
        for (_s0, e0), (s1, _e1) in zip(spans, spans[1:]):
            assert s1 >= e0, f"{processes[pid][0]} / {threads[(pid, tid)][0]}: slices overlap at {s1 / PS} µs"
    return {key: names[0] for key, names in threads.items()}


@pytest.fixture(scope="module")
def traces():
    return Session.load(asset_path("sessions", "h200-2026-12-01-traces-4096.json.gz"))


@pytest.fixture(scope="module")
def pipeline():
    return load_pipeline_file(asset_path("sessions", "h200-2026-12-02-pipeline.json"))


def test_the_shipped_block_traces_keep_every_block_on_its_sm(traces):
    # the tiled kernel with 32×32 tiles holds two blocks per SM at once: two slots per SM
    runs = [r for r in traces.results if r.series in ("gpu-tiled (tile 32)", "gpu-wgmma-tf32")]
    doc = json.loads(json.dumps(chrome_trace.chrome_trace(runs, gpu="NVIDIA H200")))
    tracks = check_trace(doc)
    for pid, r in enumerate(runs, start=1):
        got = [e for e in doc["traceEvents"] if e["ph"] == "X" and e["pid"] == pid]
        assert sorted(e["name"] for e in got) == sorted(f"block {b}" for b, _sm, _s, _e in r.block_trace)
        rows = {b: (sm, s, e) for b, sm, s, e in r.block_trace}
        for e in got:
            sm, start, end = rows[e["args"]["block"]]
            assert tracks[(pid, e["tid"])].split(" · ")[0] == f"SM {sm}"
            assert e["ts"] == pytest.approx(start / 1000, abs=1e-6)  # ns -> µs from the kernel's start
            assert e["ts"] + e["dur"] == pytest.approx(end / 1000, abs=1e-6)
    names = {v for (pid, _tid), v in tracks.items() if pid == 1}
    assert "SM 0 · slot 2" in names and len(names) == 2 * 132
    assert {v for (pid, _tid), v in tracks.items() if pid == 2} == {f"SM {i}" for i in range(132)}


def test_blocks_sharing_an_sm_get_a_track_each_and_a_lone_block_one():
    r = Result(variant="gpu-tiled", params={"tile": 16}, m=64, n=64, k=64, backend="cuda", precision="fp32", valid=True)
    r.block_trace = [[0, 3, 0, 100], [1, 3, 50, 150], [2, 3, 100, 200], [3, 3, 150, 160], [4, 7, 0, 90]]
    doc = chrome_trace.chrome_trace([r])
    tracks = check_trace(doc)
    assert sorted(tracks.values()) == ["SM 3 · slot 1", "SM 3 · slot 2", "SM 7"]  # 3 overlaps 1 and 2 ends first
    assert chrome_trace.pack([(0, 10), (10, 20), (5, 15)]) == [0, 0, 1]  # touching slices share a track


def test_the_pipeline_has_each_warpgroups_tracks_in_us(pipeline):
    doc = chrome_trace.chrome_trace([], pipeline, clock_mhz=1980.0, gpu="NVIDIA H200")
    tracks = check_trace(doc)
    names = list(tracks.values())
    assert names[0].startswith("WG0 producer · TMA copies") and any("WG1 consumer · wgmma" in n for n in names)
    assert "WG0 producer · waits for a free stage (empty barrier)" in names
    assert "WG2 consumer · waits for data (full barrier)" in names
    slices = [e for e in doc["traceEvents"] if e["ph"] == "X"]
    assert Counter(e["cat"] for e in slices) == Counter(e.kind for e in pipeline.events)
    first = min(pipeline.events, key=lambda e: e.start)
    assert min(e["ts"] for e in slices) == pytest.approx(first.start / 1980.0, abs=1e-6)  # cycles at 1980 MHz
    assert max(e["ts"] + e["dur"] for e in slices) == pytest.approx(pipeline.span / 1980.0, abs=1e-5)
    with pytest.raises(ValueError, match="SM clock in MHz is needed"):
        chrome_trace.chrome_trace([], pipeline)


def test_gemmviz_export_writes_the_trace_file(traces, tmp_path, capsys):
    out = tmp_path / "trace.json"
    argv = ["export", "h200-2026-12-01-traces-4096", "--chart", "trace", "--variants", "gpu-cpasync,gpu-wgmma-tf32"]
    assert main([*argv, "--pipeline", "h200-2026-12-02-pipeline", "--out", str(out)]) == 0
    assert "2 block trace(s) and the pipeline of h200-2026-12-02-pipeline.json" in capsys.readouterr().out
    doc = json.loads(out.read_text())
    check_trace(doc)
    processes = [e["args"]["name"] for e in doc["traceEvents"] if e["name"] == "process_name"]
    assert processes[0] == "gpu-cpasync 4096³ · NVIDIA H200 · block trace"
    assert processes[2].startswith("gpu-wgmma-tf32") and "pipeline on SM 0" in processes[2]
    # the pipeline's clock64 cycles at the clock the session measured for that kernel at that size
    recorded = load_pipeline_file(asset_path("sessions", "h200-2026-12-02-pipeline.json"))
    mhz = chrome_trace.pipeline_clock(recorded, traces.results, traces.environment)
    assert 1000 < mhz < 2100 and f"clock64 at {mhz:,.0f} MHz" in json.dumps(doc, ensure_ascii=False)


def test_export_trace_refuses_what_it_cannot_write(tmp_path, capsys):
    base = ["export", "h200-2026-12-02", "--chart", "trace"]
    assert main([*base, "--out", str(tmp_path / "t.png")]) == 2
    assert "a trace is written as .json" in capsys.readouterr().err
    empty = tmp_path / "plain.json"
    plain = Session.load(asset_path("sessions", "h200-2026-12-02.json"))
    for r in plain.results:
        r.block_trace = None
    plain.save(empty)  # no traces, and no pipeline beside it
    assert main(["export", str(empty), "--chart", "trace", "--out", str(tmp_path / "t.json")]) == 2
    assert "holds no block traces" in capsys.readouterr().err and not (tmp_path / "t.json").exists()
    assert main(["export", "h200-2026-12-02", "--chart", "time", "--pipeline", "x", "-o", str(tmp_path / "a.png")]) == 2
    assert "--pipeline is for --chart trace" in capsys.readouterr().err


def test_a_traces_session_finds_the_pipeline_recorded_with_it():
    from gemmviz.cli.export import pipeline_beside

    folder = asset_path("sessions", "h200-2026-12-02.json").parent
    for name in ("h200-2026-12-02.json", "h200-2026-12-02-traces-4096.json.gz"):
        assert pipeline_beside(str(folder / name)) == folder / "h200-2026-12-02-pipeline.json"
    assert pipeline_beside(str(folder / "h200-2026-12-01-traces-4096.json.gz")) is None
