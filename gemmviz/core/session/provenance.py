"""What a GPU result says about where its number came from: the cuBLAS it was compared with,
the SM clock its samples ran at, the kernels cuBLAS chose, and its share of the GPU's peak at that clock.

A result recorded before gemmviz kept these (every session before December 2026) says what it does not know
("cuBLAS version not recorded") instead of guessing. Pure Python: the CLI, the table, the tooltips and the
slides read the same messages (core/messages).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from gemmviz.core.messages import Message, define, msg
from gemmviz.core.session.results import Baselines, Result

CUBLAS = define("provenance.cublas", en="cuBLAS {version}", zh="cuBLAS {version}")
CUBLAS_UNKNOWN = define("provenance.cublas.unknown", en="cuBLAS version not recorded", zh="未记录 cuBLAS 版本")
OF_CUBLAS = define("provenance.of_cublas", en="of cuBLAS {version}", zh="（cuBLAS {version}）")
OF_CUBLAS_UNKNOWN = define(
    "provenance.of_cublas.unknown", en="of cuBLAS (version not recorded)", zh="（cuBLAS 版本未记录）"
)
PCT_OF_CUBLAS = define("provenance.pct_of_cublas", en="{pct} of cuBLAS {version}", zh="cuBLAS {version} 的 {pct}")
PCT_OF_CUBLAS_UNKNOWN = define(
    "provenance.pct_of_cublas.unknown",
    en="{pct} of cuBLAS (version not recorded)",
    zh="cuBLAS（版本未记录）的 {pct}",
)
CLOCK = define(
    "provenance.clock",
    en="SM clock {mhz:int} MHz during the samples (NVML)",
    zh="采样期间 SM 时钟 {mhz:int} MHz（NVML）",
)
CLOCK_UNKNOWN = define(
    "provenance.clock.unknown",
    en="SM clock during the samples not recorded (NVML)",
    zh="未记录采样期间的 SM 时钟（NVML）",
)
KERNELS = define("provenance.kernels", en="cuBLAS launched {names:list}", zh="cuBLAS 启动了 {names:list}")
KERNELS_UNKNOWN = define(
    "provenance.kernels.unknown",
    en="cuBLAS's kernels not recorded (gemmviz profile records them)",
    zh="未记录 cuBLAS 的核函数（gemmviz profile 会记录）",
)
PEAK = define(
    "provenance.peak",
    en="{share:pct} of the {precision} peak at {mhz:int} MHz ({peak:sig3} GFLOP/s; the clock {how:msg})",
    zh="{mhz:int} MHz 下 {precision} 峰值（{peak:sig3} GFLOP/s；时钟{how:msg}）的 {share:pct}",
)
BY_NVML = define("provenance.how.nvml", en="NVML read during the samples", zh="由 NVML 在采样期间读取")
BY_HOLD = define(
    "provenance.how.hold",
    en="the blocking kernel measured before each sample",
    zh="由阻塞核函数在每次采样前测得",
)
PEAK_UNKNOWN = define(
    "provenance.peak.unknown",
    en="share of peak not known: {why:msg}",
    zh="峰值占比未知：{why:msg}",
)
NO_CLOCK = define("provenance.why.clock", en="the SM clock was not recorded", zh="未记录 SM 时钟")
NO_GPU = define(
    "provenance.why.gpu",
    en="the session does not say the GPU's SMs and FP32 lanes",
    zh="会话没有记录 GPU 的 SM 数和 FP32 单元数",
)
NO_TENSOR = define(
    "provenance.why.tensor",
    en="gemmviz has no TF32 tensor-core rate for compute capability {cc}",
    zh="gemmviz 没有计算能力 {cc} 的 TF32 张量核心速率",
)

# Dense TF32 tensor-core FLOP per SM per clock, from NVIDIA's datasheets: H100 SXM 494.7 TFLOP/s at 1830 MHz on
# 132 SMs (= 2048); A100 156 TFLOP/s at 1410 MHz on 108 SMs (= 1024); RTX 3090 35.6 at 1695 MHz on 82 SMs and
# RTX 4090 82.6 at 2520 MHz on 128 SMs (= 256).
TF32_FLOPS_PER_SM_CLOCK = {"8.0": 1024, "8.6": 256, "8.9": 256, "9.0": 2048}


def release(version: str | None) -> str | None:
    """ "13.1" of "13.1.0": what a percentage of cuBLAS names (the patch level is in the result's details)."""
    if not version:
        return None
    return ".".join(version.split(".")[:2])


def of_cublas(version: str | None) -> Message:
    """ "of cuBLAS 13.1", or that the version was not recorded."""
    short = release(version)
    return msg(OF_CUBLAS, version=short) if short else msg(OF_CUBLAS_UNKNOWN)


def pct_of_cublas(pct: str, version: str | None) -> Message:
    """ "87% of cuBLAS 13.1" (`pct` as the caller writes it), or that the version was not recorded."""
    short = release(version)
    return msg(PCT_OF_CUBLAS, pct=pct, version=short) if short else msg(PCT_OF_CUBLAS_UNKNOWN, pct=pct)


def cublas_version_for(results: Sequence[Result], r: Result, baselines: Baselines | None = None) -> str | None:
    """The cuBLAS version a percentage of cuBLAS for `r` is of: that of the cuBLAS result at r's size."""
    base = (baselines or Baselines(list(results))).of(r, "cublas")
    return base.cublas_version if base is not None else None


def measured_clock(r: Result) -> float | None:
    """The SM clock r's samples ran at: NVML's reading during them, else the blocking kernel's (cycles / ns)."""
    return r.sm_clock_nvml_mhz or r.clock_mhz


def details(r: Result) -> list[Message]:
    """A GPU result's provenance, one message a line; what was not recorded is said so. Nothing for a CPU
    result."""
    if r.backend != "cuda":
        return []
    out = [msg(CUBLAS, version=r.cublas_version) if r.cublas_version else msg(CUBLAS_UNKNOWN)]
    out.append(msg(CLOCK, mhz=r.sm_clock_nvml_mhz) if r.sm_clock_nvml_mhz else msg(CLOCK_UNKNOWN))
    if r.variant.startswith("cublas"):
        out.append(msg(KERNELS, names=list(r.cublas_kernels)) if r.cublas_kernels else msg(KERNELS_UNKNOWN))
    return out


def peak_gflops(r: Result, gpu: Mapping, mhz: float) -> tuple[float | None, Message | None]:
    """(the peak r's precision reaches at `mhz`, None) or (None, why not). `gpu` is the session's
    environment.backends.cuda entry: sms, fp32_lanes_per_sm, compute_capability."""
    sms = gpu.get("sms")
    if not isinstance(sms, int) or sms <= 0:
        return None, msg(NO_GPU)
    if r.precision == "tf32":
        cc = str(gpu.get("compute_capability") or "?")
        rate = TF32_FLOPS_PER_SM_CLOCK.get(cc)
        if rate is None:
            return None, msg(NO_TENSOR, cc=cc)
        return sms * rate * mhz / 1e3, None
    lanes = gpu.get("fp32_lanes_per_sm")
    if not isinstance(lanes, int) or lanes <= 0:
        return None, msg(NO_GPU)
    return sms * lanes * 2 * mhz / 1e3, None


def peak_share(r: Result, gpu: Mapping) -> tuple[float | None, Message | None]:
    """(r's GFLOP/s over its precision's peak at r's measured clock, the message that says so), or (None, why
    not): no clock recorded, no SM count in the session, no tensor-core rate for its GPU."""
    if r.backend != "cuda" or r.gflops is None:
        return None, None
    mhz = measured_clock(r)
    if not mhz:
        return None, msg(PEAK_UNKNOWN, why=msg(NO_CLOCK))
    peak, why = peak_gflops(r, gpu, mhz)
    if peak is None:
        return None, msg(PEAK_UNKNOWN, why=why)
    share = r.gflops / peak
    how = msg(BY_NVML) if r.sm_clock_nvml_mhz else msg(BY_HOLD)
    return share, msg(PEAK, share=share, precision=r.precision.upper(), mhz=mhz, peak=peak, how=how)
