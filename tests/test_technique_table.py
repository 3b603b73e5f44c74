"""benchmarks/technique_table.py without a GPU: ncu's rows shared out to the launches that made them, the idle-SM
arithmetic, the merge of ncu rows with timing files into the markdown table (a missing figure is "—", an option
never run at a size has no row), the plan that follows the two scripts' option lists, and one size's checked
launches on the fake PyCUDA (tests/fake_pycuda)."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from gemmviz.core.problem import Problem

ROOT = Path(__file__).parents[1]


def _load():
    spec = importlib.util.spec_from_file_location("technique_table", ROOT / "benchmarks/technique_table.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["technique_table"] = module
    spec.loader.exec_module(module)
    return module


tt = _load()

HEADER = (
    '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
    '"Device","CC","gpu__time_duration.sum","lts__t_sector_hit_rate.pct","sm__cycles_active.avg",'
    '"sm__cycles_elapsed.avg"'
)
UNITS = '"","","","","","","","","","","","ns","%","cycle","cycle"'


def csv_row(i, kernel, duration, hit, active, elapsed):
    return (
        f'"{i}","1","python3","127.0.0.1","{kernel}","1","7","(256, 1, 1)","(8, 16, 1)","0","9.0",'
        f'"{duration}","{hit}","{active}","{elapsed}"'
    )


def fake_csv(rows):
    lines = ["==PROF== Connected to process 1 (/usr/bin/python3)", HEADER, UNITS]
    lines += [csv_row(i, *r) for i, r in enumerate(rows)]
    return "\n".join(lines) + "\n"


LAUNCHES = [
    {"rung": "FP32", "option": "cublas", "kernel": None, "config": None, "launched": True, "valid": True},
    {
        "rung": "FP32",
        "option": "shipped",
        "kernel": "gemm_cpasync_any",
        "config": None,
        "launched": True,
        "valid": True,
    },
    {
        "rung": "FP32",
        "option": "s0-64x64",
        "kernel": "gemm_cpasync_any",
        "config": {"BM": 64, "BN": 64, "BK": 16, "SCHED": 0, "ORDER": 0, "GROUP_M": 8},
        "schedule": "s0",
        "launched": True,
        "valid": True,
    },
    {
        "rung": "TF32",
        "option": "128 persistent x2",
        "kernel": "wgmma_tf32",
        "config": {"BM": 128, "PERSIST": 1, "CLUSTER": 2, "GROUP_M": 8},
        "launched": True,
        "valid": True,
    },
    {"rung": "TF32", "option": "cublas-tf32", "kernel": None, "config": None, "launched": True, "valid": True},
]
# cuBLAS FP32 in two kernels (a GEMM and its split-K reduction), ours one each, cuBLAS TF32 one
NCU_ROWS = [
    ("sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x64x8_execute_kernel__5x_cublas", "50,000", "91.5", "90", "100"),
    ("void cublasLt::splitKreduce_kernel<float>(float*, int)", "10,000", "50", "10", "100"),
    ("gemm_cpasync_any", "66,560", "85.58", "117,429.88", "131,356.41"),
    ("gemm_cpasync_any", "70,000", "", "75", "100"),  # no L2 hit rate recorded
    ("wgmma_tf32", "20,000", "70.0", "80", "100"),
    ("sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x256x32", "15,000", "88.0", "95", "100"),
]


def test_idle_share_has_known_answers():
    assert tt.idle_share(75, 100) == pytest.approx(0.25)
    assert tt.idle_share(100, 100) == 0.0
    assert tt.idle_share(117_429.88, 131_356.41) == pytest.approx(1 - 117_429.88 / 131_356.41)
    assert tt.idle_share(101, 100) == 0.0  # sampling above the elapsed cycles is not negative idleness
    assert tt.idle_share(None, 100) is None and tt.idle_share(50, None) is None and tt.idle_share(5, 0) is None


def test_rows_go_to_the_launches_that_made_them():
    rows = tt.parse_ncu_csv(fake_csv(NCU_ROWS), tt.METRICS)
    shares = tt.assign(LAUNCHES, rows)
    assert [len(s) for s in shares] == [2, 1, 1, 1, 1]
    assert shares[0][1]["kernel"].startswith("void cublasLt::splitKreduce")
    assert shares[3][0]["kernel"] == "wgmma_tf32" and shares[4][0]["kernel"].startswith("sm90_xmma")
    cublas = tt.launch_figures(shares[0])
    assert cublas["ncu_us"] == pytest.approx(60.0)  # both kernels' durations
    assert cublas["l2_pct"] == pytest.approx(91.5) and cublas["idle"] == pytest.approx(0.10)  # the longest one's
    assert tt.launch_figures(shares[2])["l2_pct"] is None  # an empty field is a missing metric, not 0


def test_a_launch_that_never_started_takes_no_row_and_a_lost_order_guesses_nothing():
    rows = tt.parse_ncu_csv(fake_csv(NCU_ROWS), tt.METRICS)
    skipped = [dict(e) for e in LAUNCHES]
    skipped.insert(2, {**LAUNCHES[2], "option": "s0-broken", "launched": False})
    shares = tt.assign(skipped, rows)
    assert shares[2] == [] and shares[3][0]["counters"][tt.DURATION] == 70_000  # the next build's row
    # one of our rows missing (the second FP32 build's): it and everything after it are unknown, not shifted
    lost = [r for i, r in enumerate(rows) if i != 3]
    shares = tt.assign(LAUNCHES, lost)
    assert shares[:2] == tt.assign(LAUNCHES, rows)[:2] and shares[2:] == [None, None, None]
    # a launch that raised after it started may or may not have made its row
    raised = [dict(e) for e in LAUNCHES]
    raised[2]["raised"] = True
    assert tt.assign(raised, rows)[2:] == [None, None, None]
    # two library calls back to back cannot be told apart
    both = [LAUNCHES[0], LAUNCHES[4]]
    assert tt.assign(both, [rows[0], rows[5]]) == [None, None]


def test_passes_come_from_ncus_progress_lines():
    log = (
        '==PROF== Profiling "gemm_cpasync_any" - 0: 0%....50%....100% - 1 pass\n'
        "1024 FP32 shipped: valid True in 0.4 s\n"
        '==PROF== Profiling "wgmma_tf32" - 1: 0%....50%....100% - 3 passes\n'
    )
    assert tt.passes_of(log) == [1, 3]


def test_techniques_are_named_from_what_each_build_changes():
    assert tt.technique("FP32", "s0-64x64", {"BM": 64, "BN": 64, "BK": 16, "SCHED": 0}, "s0") == "64×64 tiles"
    assert tt.technique("FP32", "sk-128x256", {"BM": 128, "BN": 256, "SCHED": 1}, "sk") == "Stream-K (128×256 tiles)"
    hilbert = {"BM": 128, "BN": 256, "BK": 16, "ORDER": 1, "SCHED": 0}
    assert tt.technique("FP32", "s0-hilbert", hilbert, "s0") == "Hilbert order (128×256 tiles)"
    assert tt.technique("FP32", "s0-bk32", {"BM": 128, "BN": 256, "BK": 32}, "s0") == "32-wide K-slices (128×256 tiles)"
    x2 = {"BM": 256, "PERSIST": 1, "CLUSTER": 2, "ORDER": 1, "GROUP_M": 8}
    assert tt.technique("TF32", "256 persistent x2 hilbert", x2) == (
        "persistent + 2-block cluster + TMA multicast + Hilbert order (256-row tiles)"
    )
    assert tt.technique("TF32", "registry", None) == "as shipped (registry)"
    # a macro the namer does not know yet still shows (a new option by another engineer)
    assert tt.technique("FP32", "s0-tma", {"BM": 128, "BN": 256, "TMA": 1}, "s0") == "TMA=1 (128×256 tiles)"


def write_timings(folder: Path):
    """An fp32_round3 file (cuBLAS, shipped, s0-64x64 at 1024³; s0-64x64 wrong at 2048³) and a tf32_round3 one."""
    fp32 = {
        "date": "2026-12-07T10:46:31Z",
        "gpu": "NVIDIA H100 80GB HBM3",
        "command": "python3 benchmarks/fp32_round3.py --sizes 1024",
        "rows": [
            {"size": "1024³", "option": "cublas", "median_ms": 0.058, "valid": True, "config": {}},
            {"size": "1024³", "option": "shipped", "median_ms": 0.0671, "valid": True, "config": {"BM": 128}},
            {
                "size": "1024³",
                "option": "s0-64x64",
                "median_ms": 0.064,
                "valid": True,
                "config": {"BM": 64, "BN": 64, "BK": 16, "SCHED": 0},
                "schedule": "s0",
            },
            {"size": "2048³", "option": "s0-64x64", "valid": False, "config": {"BM": 64, "BN": 64}, "schedule": "s0"},
        ],
    }
    tf32 = {
        "variant": "gpu-wgmma-tf32",
        "gpu": "NVIDIA H100 80GB HBM3",
        "cublas_tf32_ms": {"1024^3": 0.0149},
        "options": {},
        "rows": [
            {"option": "128 persistent x2", "config": {"BM": 128, "PERSIST": 1, "CLUSTER": 2}, "shape": "33x17x65"},
            {
                "option": "128 persistent x2",
                "config": {"BM": 128, "PERSIST": 1, "CLUSTER": 2},
                "shape": "1024^3",
                "timed": True,
                "median_ms": 0.0149 / 0.8,
                "valid": True,
            },
        ],
    }
    (folder / "fp32_round3-1024.json").write_text(json.dumps(fp32))
    (folder / "fp32_round3-once-1024.json").write_text(json.dumps({"rows": [{"size": "4096³", "option": "x"}]}))
    (folder / "tf32_round3.json").write_text(json.dumps(tf32))


def write_sweep(folder: Path):
    manifest = {
        "size": "1024",
        "date": "2026-12-07T13:40:00Z",
        "gpu": "NVIDIA H100 80GB HBM3",
        "command": "python3 technique_table.py launch --size 1024",
        "launches": LAUNCHES,
    }
    (folder / "manifest-1024.json").write_text(json.dumps(manifest))
    (folder / "ncu-1024.csv").write_text(fake_csv(NCU_ROWS))


@pytest.fixture
def files(tmp_path) -> tuple[Path, Path]:
    """A folder of timing files and a sweep's folder, as write_timings and write_sweep make them."""
    timings, sweep = tmp_path / "t", tmp_path / "n"
    timings.mkdir()
    sweep.mkdir()
    write_timings(timings)
    write_sweep(sweep)
    return timings, sweep


def test_the_table_joins_times_and_counters_and_leaves_out_what_never_ran(files):
    timings, sweep = files
    text = tt.table([timings], [sweep])
    lines = {ln.split(" | ")[2] + "@" + ln.split(" | ")[3]: ln for ln in text.splitlines() if ln.startswith("| ")}
    # time and share from the timing file, L2 and idle from ncu (the 64x64 build's L2 was not recorded)
    # the last column: cuBLAS's ncu duration (60 us, both its kernels) over the option's, from the sweep alone
    assert lines["s0-64x64@1024³"] == (
        "| FP32 | 64×64 tiles | s0-64x64 | 1024³ | 64.0 | 90.6% | — | 25.0% | 70.0 | 85.7% |"
    )
    assert lines["shipped@1024³"].endswith("| 67.1 | 86.4% | 85.6% | 10.6% | 66.6 | 90.1% |")
    assert lines["128 persistent x2@1024³"].split(" | ")[4:6] == ["18.6", "80.0%"]
    assert lines["128 persistent x2@1024³"].endswith("| 20.0 | 75.0% |")  # against cuBLAS TF32's 15 us
    assert lines["cublas@1024³"].endswith("| 58.0 | 100.0% | 91.5% | 10.0% | 60.0 | 100.0% |")
    # wrong at 2048³: shown as invalid, never given a time; 4096³ (only in the once-file) has no row at all
    assert "| invalid | — |" in lines["s0-64x64@2048³"]
    assert not [k for k in lines if "4096" in k] and "33×17×65" not in text
    # each source named with its GPU, date and command, or said to lack them
    assert "`python3 benchmarks/fp32_round3.py --sizes 1024`" in text
    assert "tf32_round3.json`: NVIDIA H100 80GB HBM3, date not recorded, command not recorded in the file" in text
    assert "manifest-1024.json`: NVIDIA H100 80GB HBM3, 2026-12-07T13:40:00Z" in text


def test_without_a_sweep_the_counter_columns_are_dashes(tmp_path):
    write_timings(tmp_path)
    rows = tt.merge(tt.read_timings([tmp_path]), [])
    shipped = next(r for r in rows if r["option"] == "shipped")
    assert shipped["pct"] == pytest.approx(100 * 0.058 / 0.0671) and shipped["l2_pct"] is None
    assert "| 67.1 | 86.4% | — | — | — | — |" in tt.render(rows, [])


def test_a_launch_that_never_started_has_no_row(tmp_path):
    write_sweep(tmp_path)
    manifest = json.loads((tmp_path / "manifest-1024.json").read_text())
    manifest["launches"].insert(2, {"rung": "FP32", "option": "s0-broken", "kernel": "gemm_cpasync_any", "config": {}})
    (tmp_path / "manifest-1024.json").write_text(json.dumps(manifest))
    rows = tt.read_ncu(tmp_path)
    assert [r["option"] for r in rows] == [e["option"] for e in LAUNCHES]
    assert rows[2]["ncu_us"] == pytest.approx(70.0)  # s0-64x64 keeps its own row


def test_times_and_counters_from_two_gpus_are_never_joined(files):
    timings, sweep = files
    manifest = json.loads((sweep / "manifest-1024.json").read_text())
    (sweep / "manifest-1024.json").write_text(json.dumps({**manifest, "gpu": "NVIDIA H200"}))
    text = tt.table([timings], [sweep])
    assert text.startswith("| GPU | rung |")
    rows = [ln for ln in text.splitlines() if "| s0-64x64 | 1024³ |" in ln]
    assert rows == [
        "| NVIDIA H100 80GB HBM3 | FP32 | 64×64 tiles | s0-64x64 | 1024³ | 64.0 | 90.6% | — | — | — | — |",
        "| NVIDIA H200 | FP32 | 64×64 tiles | s0-64x64 | 1024³ | — | — | — | 25.0% | 70.0 | 85.7% |",
    ]


def test_the_sweeps_share_of_cublas_needs_both_launches_checked(tmp_path):
    """A wrong result gets no share, and neither does any option of a rung whose cuBLAS launch failed its check."""
    write_sweep(tmp_path)
    manifest = json.loads((tmp_path / "manifest-1024.json").read_text())
    manifest["launches"][2]["valid"] = False  # s0-64x64 wrong
    manifest["launches"][4]["valid"] = False  # cuBLAS TF32 wrong
    (tmp_path / "manifest-1024.json").write_text(json.dumps(manifest))
    rows = {r["option"]: r for r in tt.merge([], tt.read_ncu(tmp_path))}
    assert rows["shipped"]["ncu_pct"] == pytest.approx(100 * 60 / 66.56)
    assert rows["s0-64x64"]["ncu_pct"] is None and rows["128 persistent x2"]["ncu_pct"] is None
    assert "| invalid | — |" in tt.render(list(rows.values()), [])


def test_an_unreadable_csv_leaves_the_counters_unknown(tmp_path):
    write_sweep(tmp_path)
    (tmp_path / "ncu-1024.csv").write_text("==ERROR== the profiler crashed\n")
    rows = tt.read_ncu(tmp_path)
    assert len(rows) == len(LAUNCHES) and all(r["l2_pct"] is None and r["ncu_us"] is None for r in rows)
    assert "the profiler crashed" in rows[0]["ncu_error"]


def test_the_plan_follows_the_scripts_option_lists(monkeypatch):
    f32, t32 = tt._scripts()
    small, big = tt.plan((1000, 1000, 1000)), tt.plan((4096, 4096, 4096))
    for launches, p in ((small, (1000, 1000, 1000)), (big, (4096, 4096, 4096))):
        from gemmviz.core.problem import Problem

        fp32 = [e["option"] for e in launches if e["rung"] == "FP32"]
        want = [n for n, _c, _s in f32.options(Problem(*p), p[0] ** 3 <= 1024**3)]
        assert fp32 == ["cublas", "shipped", *want]
        assert [e["option"] for e in launches if e["rung"] == "TF32"] == [*t32.OPTIONS, "cublas-tf32"]
    monkeypatch.setitem(t32.OPTIONS, "999 new option", {"BM": 128, "NEW": 1})
    assert "999 new option" in [e["option"] for e in tt.plan((2048, 2048, 2048))]
    assert [e["option"] for e in tt.plan((2048, 2048, 2048), ["shipped", "registry"])] == ["shipped", "registry"]


def test_an_options_rules_hold_only_while_it_is_configured_and_run():
    """tf32_round3's "_" keys are hopper_model constants, not macros: the plan keeps them apart from the kernel's
    macros, and the launch sets them only for its own configuration."""
    from gemmviz.core.kernels import hopper_model

    plan = {e["option"]: e for e in tt.plan((1024, 1024, 1024))}
    assert plan["registry sk"]["config"] is None and plan["registry sk"]["rules"] == {"STREAMK_FIT": True}
    forced = plan["256 persistent sk forced"]
    assert forced["rules"] == {"SK_MIN_GAIN": 0} and not any(k.startswith("_") for k in forced["config"])
    assert "rules" not in plan["registry"] and "SK_MIN_GAIN" not in tt.technique("TF32", "x", forced["config"])
    before = hopper_model.STREAMK_FIT
    with tt._rules(plan["registry sk"]):
        assert hopper_model.STREAMK_FIT is True
    assert hopper_model.STREAMK_FIT == before
    with pytest.raises(RuntimeError), tt._rules(plan["registry sk"]):
        raise RuntimeError("a failed launch")
    assert hopper_model.STREAMK_FIT == before


def test_one_size_launches_each_option_once_and_checks_it(monkeypatch, tmp_path):
    """On the fake PyCUDA (every kernel computes A·B with numpy): the manifest lists each planned launch, started,
    checked valid, in order; the FP32 build's grid is fp32_round3's."""
    from tests import fake_pycuda
    from tests.fake_pycuda import driver

    gpu = fake_pycuda.install(monkeypatch)
    f32, _t32 = tt._scripts()
    source = (ROOT / "kernels/cpasync_any.cu").read_text()
    monkeypatch.setattr(
        f32,
        "compile_all",
        lambda configs, kernels, arch: {f32.key(c): driver.fake_cubin(source, [], arch) for c in configs},
    )
    monkeypatch.setenv("GEMMVIZ_CACHE_DIR", str(tmp_path / "cache"))
    import numpy as np

    from gemmviz.backends import tma_fp32

    tma_launches = []

    class FakeTmaKernel:  # the TMA build launches through the driver's tensor maps (ctypes), as fp32_round3 does
        def __init__(self, blob, config):
            self.config, self.unloaded = config, False

        def launcher(self, a, b, c, m, n, k):
            def go():
                tma_launches.append((self.config, m, n, k))
                A, B = gpu.array(a, np.float32, m * k), gpu.array(b, np.float32, k * n)
                gpu.array(c, np.float32, m * n)[:] = (A.reshape(m, k) @ B.reshape(k, n)).ravel()

            return go

        def unload(self):
            self.unloaded = True

    monkeypatch.setattr(tma_fp32, "TmaFp32Kernel", FakeTmaKernel)
    only = [
        "cublas",
        "shipped",
        "s0-64x64",
        "tma-128x256",
        "registry",
        "128 persistent x2",
        "registry sk",
        "cublas-tf32",
    ]
    manifest = tmp_path / "manifest-96.json"
    assert tt.launch_size((96, 80, 64), only, manifest) == 0
    rec = json.loads(manifest.read_text())
    assert [e["option"] for e in rec["launches"]] == only
    assert all(e["launched"] and e["valid"] for e in rec["launches"]), rec["launches"]
    (tma,) = [e for e in rec["launches"] if e["option"] == "tma-128x256"]
    assert tma["kernel"] == tma_fp32.KERNEL_NAME and tma_launches == [(tma_fp32.TmaFp32Config(), 96, 80, 64)]
    build = rec["launches"][2]
    assert build["grid"] == list(
        f32.grid(Problem(96, 80, 64), build["config"], "s0", gpu.attributes["MULTIPROCESSOR_COUNT"])
    )
    assert rec["gpu"] and rec["size"] == "96x80x64"


def test_build_compiles_each_engine_configuration_once(monkeypatch, tmp_path):
    """On the fake PyCUDA: the engine's configurations at two sizes (the shipped FP32 kernel and the TF32 registry
    pick per size) and the FP32 builds are each compiled before the sweep runs ncu."""
    from tests import fake_pycuda

    fake_pycuda.install(monkeypatch)
    f32, _t32 = tt._scripts()
    asked = []
    monkeypatch.setattr(f32, "compile_all", lambda configs, kernels, arch: asked.extend(configs) or {})
    monkeypatch.setenv("GEMMVIZ_CACHE_DIR", str(tmp_path / "cache"))
    sizes = [(1000, 1000, 1000), (4096, 4096, 4096)]
    only = ["shipped", "registry", "128 persistent", "s0-64x64"]
    engine = tt._engine_builds(sizes, only)
    names = sorted({v.name for v, *_ in engine})
    assert names == ["gpu-cpasync-any", "gpu-wgmma-tf32"] and len(engine) >= 3
    assert all(arch == "sm_90a" for v, _p, _c, arch, _g in engine if v.name == "gpu-wgmma-tf32")
    assert tt.build(sizes, only) == 0
    assert [c["BM"] for c in asked] == [64]  # s0-64x64 exists at 1000³ only (fp32_round3's small list)
    assert list((tmp_path / "cache").rglob("*.cubin"))


def test_the_recorders_recipe_runs_the_sweep_at_the_sizes_given():
    spec = importlib.util.spec_from_file_location("recorder", ROOT / "benchmarks/recorder.py")
    recorder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(recorder)
    ((argv, limit, log),) = recorder.recipe_commands("techniques", "1024,2000x3000x1000", Path("/tmp/out"))
    assert argv[1] == "benchmarks/technique_table.py" and log == "techniques.txt"
    args = tt.parser().parse_args(argv[2:])
    assert args.cmd == "sweep" and args.sizes == "1024,2000x3000x1000" and args.out == "/tmp/out/techniques"
    assert args.budget < limit  # the sweep ends its own sizes before the recorder would stop it
    ((argv, _limit, _log),) = recorder.recipe_commands("techniques", None, Path("/tmp/out"))
    assert tt.parser().parse_args(argv[2:]).sizes == tt.SWEEP_SIZES


def test_the_docs_table_is_the_tools_rendering_of_the_files_it_names():
    """docs/benchmarks.md's technique table holds exactly what the tool renders from the files its command names."""
    import re

    text = (ROOT / "docs/benchmarks.md").read_text()
    section = text.split("## Issue 48: every technique at every size")[1].split("\n## ")[0]
    found = re.search(r"`python3 benchmarks/technique_table.py table (--timings[^`]+)`:", section)
    args = tt.parser().parse_args(["table", *found.group(1).split()])
    timings, ncu = [ROOT / t for t in args.timings], [ROOT / n for n in args.ncu]

    def rows(markdown: str) -> list[str]:  # the header's separator row too: without it no table renders
        return [ln for ln in markdown.splitlines() if ln.startswith("|")]

    after = section[found.end() :]
    assert len(rows(after)) > 300 and rows(after) == rows(tt.table(timings, ncu))
    # the summary above it ("table --best ... with the same files") is the tool's too
    before = section[: found.start()]
    assert "technique_table.py table --best" in before and rows(before) == rows(tt.best_table(timings, ncu))


def test_the_new_options_are_named_for_what_they_change_and_a_rule_option_is_not_called_shipped():
    big = {"BM": 128, "BN": 256}
    assert tt.technique("FP32", "tma-x2a-128x256", {**big, "SHARE": 1, "RELEASE": 0, "LAG": 0, "SRC": 1}) == (
        "TMA loads, A swizzled + 2-block cluster sharing A (TMA multicast) (128×256 tiles)"
    )
    fdb2 = {"BM": 128, "BN": 256, "BK": 16, "PBAR": 0, "FRAG_DB": 2}
    assert tt.technique("FP32", "fdb2", fdb2) == "fragments across the K-slice boundary (128×256 tiles)"
    assert tt.technique("TF32", "registry sk", None) != tt.technique("TF32", "registry", None)
    assert "stream-K" in tt.technique("TF32", "x", {"BM": 128, "PERSIST": 1, "STREAMK": 1})
    assert tt.technique("FP32", "x", {**big, "NEW": 3}).startswith("NEW=3")  # an unknown macro as it is


def test_the_recorders_tests_recipe_runs_every_gpu_test_file():
    """The default list of `tests` was typed in and had fallen behind (the new kernels' gpu tests were not in it)."""
    spec = importlib.util.spec_from_file_location("recorder", ROOT / "benchmarks/recorder.py")
    recorder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(recorder)
    steps = recorder.recipe_commands("tests", None, Path("/tmp/out"))
    run = {argv[-1] for argv, _limit, _log in steps}
    marked = {f"tests/{p.name}" for p in (ROOT / "tests").glob("test_*.py") if "mark.gpu" in p.read_text()}
    assert run == marked and {"tests/test_gpu.py", "tests/test_tma_fp32.py", "tests/test_wgmma_streamk.py"} <= run


def test_the_best_summary_sets_the_shipped_share_beside_the_best_and_never_counts_cublas(files):
    timings, sweep = files
    text = tt.best_table([timings], [sweep])
    lines = {tuple(c.strip() for c in ln.split("|")[2:4]): ln for ln in text.splitlines() if ln.startswith("| NVIDIA")}
    # FP32 at 1024^3: the sweep's best is the shipped kernel (90.1% against s0-64x64's 85.7%), the timings' s0-64x64
    assert lines[("FP32", "1024³")].endswith("| 90.1% | shipped: 90.1% | 86.4% | s0-64x64: 90.6% |")
    # TF32: no registry launch in these files, so its cells are dashes; cuBLAS TF32 (100%) is never the best
    assert lines[("TF32", "1024³")].endswith("| — | 128 persistent x2: 75.0% | — | 128 persistent x2: 80.0% |")


def test_the_engines_choice_is_joined_only_where_both_runs_ran_the_same_build():
    """A registry change between a timing run and the sweep: the shipped kernel's time (128×128 tiles) and its
    counters (64×64 tiles) were once joined in one row; now each has its own row and names what it ran."""
    size = (1024, 1024, 1024)
    source = {"file": "t.json", "gpu": "G", "date": "d", "command": "c"}
    timed = {"rung": "FP32", "option": "shipped", "size": size, "ms": 0.067, "valid": True, "cublas_ms": 0.058}
    timed.update(config=None, ran={"BM": 128, "BN": 128, "SCHED": 0}, schedule=None, source=source)
    swept = {"rung": "FP32", "option": "shipped", "size": size, "gpu": "G", "date": "d", "valid": True}
    swept.update(config=None, ran_config={"BM": 64, "BN": 64}, l2_pct=90.0, idle=0.05, ncu_us=60.0)
    rows = tt.merge([timed], [swept])
    assert [(r["technique"], r["us"] is not None, r["ncu_us"]) for r in rows] == [
        ("as shipped (registry): 128×128 tiles", True, None),
        ("as shipped (registry): 64×64 tiles", False, 60.0),
    ]
    same = tt.merge([{**timed, "ran": {"BM": 64, "BN": 64, "SCHED": 0}}], [swept])  # a missing macro reads as 0
    assert len(same) == 1 and same[0]["technique"] == "as shipped (registry): 64×64 tiles" and same[0]["ncu_us"] == 60.0
    # a tf32_round3 file records the registry's choice in its note only
    note = {"option": "registry", "note": "default config BM=256 CONSUMERS=2 PERSIST=1 CLUSTER=2 (persistent)"}
    assert tt._ran(note) == {"BM": 256, "CONSUMERS": 2, "PERSIST": 1, "CLUSTER": 2}


def test_the_best_summary_orders_sizes_the_same_in_every_process():
    """Sizes outside the table's list were ordered by the hash of a set (another order per PYTHONHASHSEED)."""
    rows = [
        {"gpu": "G", "rung": "FP32", "size": (n, n, n), "option": "shipped", "ncu_pct": 90.0, "pct": None}
        for n in (3000, 640, 512, 1500)
    ]
    order = [ln.split(" | ")[2] for ln in tt.best(rows).splitlines()[2:]]
    assert order == ["512³", "640³", "1500³", "3000³"]


def test_the_recorders_sweep_never_asks_for_more_than_one_device_call():
    spec = importlib.util.spec_from_file_location("recorder", ROOT / "benchmarks/recorder.py")
    recorder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(recorder)
    ((argv, limit, _log),) = recorder.recipe_commands("techniques", None, Path("/tmp/out"))
    assert tt.parser().parse_args(argv[2:]).budget <= 540 < limit <= 600
