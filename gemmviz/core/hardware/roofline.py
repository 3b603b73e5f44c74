"""The roofline: ceilings of a GPU and where each measured kernel sits under them; plain-words explanations."""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from pathlib import Path

from gemmviz.core import paths
from gemmviz.core.fileio import FileFormatError, InputFileError, parse_json, read_regular
from gemmviz.core.kernels.model import naive_traffic
from gemmviz.core.kernels.variants import VARIANTS, baseline
from gemmviz.core.messages import Message, define, msg, render
from gemmviz.core.numbers import sig
from gemmviz.core.session.results import CONTROL_IN_NAMES, MAX_NAME_CHARS, MAX_TEXT_CHARS, Baselines, Result

log = logging.getLogger("gemmviz")


@dataclass(frozen=True)
class Ceilings:
    device: str
    bandwidth_gbs: float | None
    fp32_peak_gflops: float | None
    fp32_gemm_gflops: float | None = None
    tf32_gemm_gflops: float | None = None
    how: dict | None = None
    l2_gbs: float | None = None  # L2 -> SM read bandwidth (kernels/membw.cu), for the hierarchical roofline
    shared_gbs: float | None = None  # shared-memory read bandwidth, all SMs together

    @classmethod
    def from_dict(cls, d: dict) -> Ceilings:
        return cls(
            device=d.get("device", "?"),
            bandwidth_gbs=d.get("bandwidth_gbs"),
            fp32_peak_gflops=d.get("fp32_peak_gflops"),
            fp32_gemm_gflops=d.get("fp32_gemm_gflops"),
            tf32_gemm_gflops=d.get("tf32_gemm_gflops"),
            l2_gbs=d.get("l2_gbs"),
            shared_gbs=d.get("shared_gbs"),
            how={k: v for k, v in d.items() if k.endswith("_how")},
        )

    @property
    def ridge(self) -> float | None:
        if self.bandwidth_gbs and self.fp32_peak_gflops:
            return self.fp32_peak_gflops / self.bandwidth_gbs
        return None

    def roof(self, intensity: float, precision: str = "fp32") -> float | None:
        """Attainable GFLOP/s at this intensity: min(bandwidth x intensity, compute peak)."""
        peak = self.tf32_gemm_gflops if precision == "tf32" and self.tf32_gemm_gflops else self.fp32_peak_gflops
        if peak is None:
            return None
        if self.bandwidth_gbs is None:
            return peak
        return min(self.bandwidth_gbs * intensity, peak)


def intensity(r: Result) -> float:
    """FLOP per byte of global-memory traffic, from the variant's model with the config it ran with."""
    v = VARIANTS[r.variant]
    return v.traffic_model(r.problem, r.params, r.config or None).intensity


@dataclass(frozen=True)
class RooflinePoint:
    result: Result
    intensity: float
    gflops: float
    roof: float | None
    pct_of_roof: float | None
    pct_of_cublas: float | None
    # above the bandwidth roof: caches served traffic the model counts as global. A TF32 point above the
    # cuBLAS TF32 line (a measured figure, not the tensor cores' peak) is not that, and is not flagged.
    cache_served: bool = False
    cublas_version: str | None = None  # of the cuBLAS result pct_of_cublas is against (None: not recorded)


def _under_bandwidth(ceilings: Ceilings | None, x: float, precision: str) -> bool:
    """Whether the roof at intensity `x` is the bandwidth's slope (left of the knee), not a compute line."""
    if ceilings is None or ceilings.bandwidth_gbs is None:
        return False
    peak = ceilings.roof(float("inf"), precision)
    return peak is not None and ceilings.bandwidth_gbs * x < peak


def roofline_points(results: list[Result], ceilings: Ceilings | None) -> list[RooflinePoint]:
    """One point per valid GPU result (CPU results live under another roof)."""
    out = []
    baselines, cublas = Baselines(results), baseline("cublas").variant
    for r in results:
        if not r.valid or r.gflops is None or VARIANTS.get(r.variant) is None or VARIANTS[r.variant].backend != "cuda":
            continue
        x = intensity(r)
        roof = ceilings.roof(x, r.precision) if ceilings else None
        vs_cublas = baselines.speedup(r, cublas)
        out.append(
            RooflinePoint(
                r,
                x,
                r.gflops,
                roof,
                100 * r.gflops / roof if roof else None,
                None if vs_cublas is None else 100 * vs_cublas,
                _under_bandwidth(ceilings, x, r.precision) and roof is not None and r.gflops > roof,
                _cublas_version(baselines, r, cublas),
            )
        )
    return out


def _cublas_version(baselines: Baselines, r: Result, cublas: str) -> str | None:
    base = baselines.of(r, cublas)
    return base.cublas_version if base is not None else None


def _same(text: str) -> str:
    return text


def explanation(r: Result, ceilings: Ceilings | None = None, words=_same) -> list[Message | None]:
    """The seeds' arithmetic made concrete for this result, next to what was measured: one message a line (None
    for a blank line). `words` puts the registry's English (the variant's title and explanation) in the reader's
    language (the window passes its catalogue's translation)."""
    v = VARIANTS[r.variant]
    p = r.problem
    t = v.traffic_model(p, r.params, r.config or None)
    naive = naive_traffic(p)
    reuse = 2 * p.m * p.n * p.k / t.global_loads if t.global_loads else 0
    params = f" ({', '.join(f'{k} {x}' for k, x in r.params.items())})" if r.params else ""
    lines: list[Message | None] = [
        msg("roof.head", title=words(v.title), size=p.label, params=params),
        msg("roof.text", text=words(v.explanation)),
        None,
        msg("roof.work", flops=p.flops),
        msg(
            "roof.loads",
            loads=t.global_loads,
            fewer=naive.global_loads / t.global_loads,
            naive=naive.global_loads,
        ),
        msg("roof.reuse", reuse=reuse),
        msg("roof.intensity", intensity=t.intensity, naive=naive.intensity, once=p.flops / p.matrix_bytes),
    ]
    gflops = r.gflops  # None unless the result is valid and has a median
    if gflops is not None and r.median_ms:
        lines += [None, msg("roof.measured", median_ms=r.median_ms, n=len(r.samples_ms), gflops=gflops)]
        roof = ceilings.roof(t.intensity, r.precision) if ceilings and v.backend == "cuda" else None
        if ceilings and ceilings.bandwidth_gbs and roof:  # a roof needs the bandwidth and a peak
            lines.append(msg("roof.allows", roof=roof, device=ceilings.device, share=100 * gflops / roof))
            moved = t.global_bytes / (r.median_ms * 1e-3) / 1e9
            if moved > ceilings.bandwidth_gbs:
                lines.append(msg("roof.caches", moved=moved, bandwidth=ceilings.bandwidth_gbs))
            elif gflops < 0.5 * roof:
                per_fma = t.shared_loads / t.fmas_executed if t.fmas_executed else 0
                lines.append(msg("roof.issue", per_fma=msg("roof.per_fma", per=per_fma) if per_fma else None))
            elif ceilings.ridge and t.intensity < ceilings.ridge:
                lines.append(msg("roof.memory", ridge=ceilings.ridge))
            else:
                lines.append(msg("roof.compute"))
    elif not r.valid:
        lines += [None, msg("roof.not_measured", status=r.status, error=r.error)]
    return lines


def explain(r: Result, ceilings: Ceilings | None = None, lang: str = "en", words=_same) -> str:
    """The seeds' arithmetic made concrete for this result, next to what was measured, in plain words."""
    return "\n".join(render(m, lang) for m in explanation(r, ceilings, words))


# The explanation's sentences, per language (core/messages.py renders them)
define("roof.head", en="{title} at {size}{params}", zh="{title}，规模 {size}{params}")
define("roof.text", en="{text}", zh="{text}")
define(
    "roof.work",
    en="Work: 2·M·N·K = {flops:int} floating-point operations (about {flops:count}).",
    zh="计算量：2·M·N·K = {flops:int} 次浮点运算（约 {flops:count}次）。",
)
define(
    "roof.loads",
    en="Global-memory reads the code asks for: {loads:int} floats ({fewer:,.1f}× fewer than the naive kernel's "
    "{naive:int}).",
    zh="代码向全局内存请求的读取：{loads:int} 个 float（比朴素核函数的 {naive:int} 个少 {fewer:,.1f} 倍）。",
)
define(
    "roof.reuse",
    en="Each value read from global memory is used {reuse:,.1f} times; the naive kernel uses each once.",
    zh="从全局内存读出的每个值被使用 {reuse:,.1f} 次；朴素核函数每个值只用一次。",
)
define(
    "roof.intensity",
    en="Arithmetic intensity: {intensity:,.2f} FLOP/byte (naive: {naive:.2f}; if every matrix moved exactly once: "
    "{once:,.1f}).",
    zh="算术强度：{intensity:,.2f} FLOP/字节（朴素核函数：{naive:.2f}；若每个矩阵恰好只搬运一次：{once:,.1f}）。",
)
define(
    "roof.measured",
    en="Measured: {median_ms:sig4} ms median of {n} → {gflops:,.0f} GFLOP/s.",
    zh="实测：{n} 次采样的中位数 {median_ms:dur} → {gflops:,.0f} GFLOP/s。",
)
define(
    "roof.allows",
    en="At this intensity the roofline allows {roof:,.0f} GFLOP/s on {device}; this run reached {share:.0f}% of it.",
    zh="在这个算术强度下，Roofline 模型在 {device} 上允许 {roof:,.0f} GFLOP/s；这次运行达到了其中的 {share:.0f}%。",
)
define(
    "roof.caches",
    en="The traffic the code asks for would need {moved:,.0f} GB/s, more than the measured {bandwidth:,.0f} GB/s of "
    "memory bandwidth: the caches (L1, L2) must be serving much of it, so the kernel runs faster than its model of "
    "global traffic predicts.",
    zh="代码请求的流量需要 {moved:,.0f} GB/s，超过了实测的 {bandwidth:,.0f} GB/s 显存带宽：其中很大一部分一定由缓存"
    "（L1、L2）提供，所以核函数比它的全局内存流量模型预测的更快。",
)
define(
    "roof.issue",
    en="That is well under the roof: neither the global traffic counted here nor peak arithmetic limits this "
    "kernel, but how it issues work (latency, instructions per FMA{per_fma:msg}). More work per thread from "
    "registers (register tiles, wider loads) is what helps.",
    zh="这远低于屋顶：限制这个核函数的既不是这里统计的全局内存流量，也不是峰值算力，而是它发出工作的方式"
    "（延迟、每次 FMA 所需的指令数{per_fma:msg}）。让每个线程用寄存器做更多工作（寄存器分块、更宽的加载）才有帮助。",
)
define("roof.per_fma", en="; {per:.2f} shared-memory reads per FMA", zh="；每次 FMA 读共享内存 {per:.2f} 次")
define(
    "roof.memory",
    en="Below the ridge point ({ridge:.1f} FLOP/byte) the kernel is limited by memory traffic: raising its reuse "
    "(bigger tiles, register tiles) is what helps.",
    zh="在脊点（{ridge:.1f} FLOP/字节）左侧，核函数受内存流量限制：提高数据复用（更大的分块、寄存器分块）才有帮助。",
)
define(
    "roof.compute",
    en="Above the ridge point the limit is arithmetic: what helps now is keeping the FMA units busy (more "
    "independent work per thread, fewer instructions per FMA, tensor cores).",
    zh="在脊点右侧，限制来自算力：现在要做的是让 FMA 单元一直忙碌（每个线程更多独立的工作、每次 FMA 更少的指令、"
    "张量核心）。",
)
define("roof.not_measured", en="Not measured: {status}: {error}", zh="未测出：{status}：{error}")


def user_ceilings_file() -> Path:
    """Where `gemmviz ceilings` caches what it measured on this machine's GPU."""
    return paths.cache_dir() / "ceilings.json"


MAX_CEILINGS_BYTES = 1 << 20  # a ceilings file is under 2 KiB
# Physically sensible ranges (exclusive of 0): an H200 moves 4.8 TB/s and reaches 0.4 PFLOP/s in TF32.
CEILING_LIMITS = {
    "bandwidth_gbs": 1e6, "l2_gbs": 1e7, "shared_gbs": 1e7,
    "fp32_peak_gflops": 1e8, "fp32_gemm_gflops": 1e8, "tf32_gemm_gflops": 1e8,
}  # fmt: skip
CEILING_FLOOR = 1.0  # GB/s or GFLOP/s: any GPU moves and computes more (a cached 1e-6 GFLOP/s "peak" was drawn)
NEEDED_CEILINGS = ("bandwidth_gbs", "fp32_peak_gflops")  # a roofline's two roofs: a file without them is not used


class CeilingsError(FileFormatError):
    """A ceilings file that does not hold sensible ceilings; the message names the field."""


def check_ceilings(d: object) -> dict:
    """The ceilings of a file (cached by `gemmviz ceilings`, shipped, or about to be written), checked like a
    session: every figure a finite number in (0, its limit] or absent, the device a one-line name, the
    `*_how` notes text (control characters removed, cut at 2000 characters). CeilingsError names the field."""
    if not isinstance(d, dict):
        raise CeilingsError("not a JSON object")
    device = d.get("device")
    if not isinstance(device, str) or not device.strip() or len(device) > MAX_NAME_CHARS:
        raise CeilingsError(f"device: not a GPU name ({str(device)[:40]!r})")
    out: dict = {"device": CONTROL_IN_NAMES.sub("", device)}
    for key, hi in CEILING_LIMITS.items():
        v = d.get(key)
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            raise CeilingsError(f"{key}: not a finite number ({str(v)[:40]!r})")
        if not CEILING_FLOOR <= v <= hi:  # an absurd 1e+30 reads best as it is
            raise CeilingsError(f"{key}: {v:g} is outside [{CEILING_FLOOR:g}, {sig(hi)}]")
        out[key] = float(v)
    for key, v in d.items():
        if key.endswith("_how") or key == "date":
            if not isinstance(v, str):
                raise CeilingsError(f"{key}: not text")
            v = CONTROL_IN_NAMES.sub(" ", v)
            out[key] = v if len(v) <= MAX_TEXT_CHARS else v[: MAX_TEXT_CHARS - 1] + "…"
    return out


def load_ceilings(gpu: str) -> Ceilings | None:
    """Ceilings measured by `gemmviz ceilings` for this GPU: the user's cache, then the shipped ones. A file
    that cannot be read or holds something else than sensible ceilings is skipped with a log line."""
    for source in [user_ceilings_file(), *paths.asset_files("ceilings")]:
        try:
            text = read_regular(str(source), MAX_CEILINGS_BYTES).decode("utf-8")
            data = parse_json(text)
            if isinstance(data, dict) and data.get("device") != gpu:
                continue
            checked = check_ceilings(data)
            missing = [key for key in NEEDED_CEILINGS if key not in checked]
            if missing:  # {"device": "NVIDIA H200"} alone hid the shipped ceilings: no roof at all
                raise CeilingsError(f"{', '.join(missing)} missing")
            if source == user_ceilings_file():
                log.info("ceilings: %s, measured on this machine, used in place of the shipped ones", source)
        except InputFileError as exc:
            if Path(str(source)).exists():
                log.warning("ceilings: %s: %s; not used", source, exc)
            continue
        except (ValueError, RecursionError) as exc:  # JSON, UTF-8, CeilingsError
            log.warning("ceilings: %s: %s; not used", source, str(exc).splitlines()[0][:200])
            continue
        return Ceilings.from_dict(checked)
    return None
