"""A block trace the model predicts, where no GPU recorded one: which SM would run each block, and when.

The model: every SM does FMAs at its FP32 peak, shared evenly by the blocks resident on it (at most
`blocks_per_sm`; a lone block has the whole SM), so an SM is busy exactly while it holds a block and the idle
SM-time is the SMs without one (`core/hardware/last_wave.py`'s measure). The block scheduler hands blocks out in
launch order, each to the SM holding the fewest (one per SM before a second on any: the first wave spreads over
the SMs). Split-K runs one block per tile and slice of K; Stream-K (kernels/cpasync_any.cu with SCHED=1) runs
SMs × blocks per SM blocks, each an even share of the tiles' K-slices (`core/kernels/cpasync_model.
streamk_segments`, the kernel's own schedule). No memory stalls, no launch cost: a model to see the waves by,
not a prediction of the time. No Qt, no GPU.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gemmviz.core.hardware.last_wave import LastWave
from gemmviz.core.kernels import cpasync_model as cm
from gemmviz.core.kernels.model import ceil_div
from gemmviz.core.messages import Message, define, msg, render
from gemmviz.core.problem import Problem
from gemmviz.core.session.results import Result, Session, SessionError
from gemmviz.core.session.workspace import recorded_sessions

log = logging.getLogger(__name__)

# One FMA per FP32 lane per cycle: 128 lanes per SM at the H100's and H200's boost clock, 1.98 GHz
SM_FMA_PER_NS = 128 * 1.98
VARIANT = "gpu-cpasync-any"  # the kernel whose small-size fix the cases show (kernels/cpasync_any.cu)
MAX_MODEL_BLOCKS = 20_000  # a model trace at most this long: small sizes are what it is for (a step per block end)


@dataclass(frozen=True)
class ModelLaunch:
    """One launch as the model sees it."""

    tiles: int  # tiles of C
    ktiles: int  # K-slices per tile
    blocks_per_sm: int
    sms: int
    split: int = 1  # slices of K per tile (split-K): one block per tile and slice
    stream_k: bool = False  # Stream-K: sms × blocks_per_sm blocks, each an even share of the K-slices
    kslice_fmas: int = 1  # FMAs of one K-slice of one tile (BM · BN · BK)

    @property
    def grid(self) -> int:
        return self.sms * self.blocks_per_sm if self.stream_k else self.tiles * self.split

    def block_kslices(self) -> list[int]:
        """K-slices each block multiplies, in launch order: split-K's slices after every tile's first (the
        kernel's grid.y holds the slices, M/BM rows apart), Stream-K's per block from the kernel's schedule."""
        if self.stream_k:
            segments = cm.streamk_segments(self.tiles, self.ktiles, self.grid)
            return [sum(end - first for _tile, first, end, _slot in block) for block in segments]
        k = self.ktiles
        return [k * (s + 1) // self.split - k * s // self.split for s in range(self.split) for _ in range(self.tiles)]


def model_trace(launch: ModelLaunch, sm_fma_per_ns: float = SM_FMA_PER_NS) -> list[list[int]]:
    """[[block, sm, start_ns, end_ns], ...] as a decoded trace (`core/hardware/block_trace.decode_trace`), sorted
    by start, then block. One step per moment a block ends (a few per block at most)."""
    if launch.grid > MAX_MODEL_BLOCKS:
        raise ValueError(f"{launch.grid:,} blocks: the model traces at most {MAX_MODEL_BLOCKS:,}")
    if min(launch.tiles, launch.ktiles, launch.blocks_per_sm, launch.sms, launch.split, launch.kslice_fmas) < 1:
        raise ValueError("tiles, K-slices, blocks per SM, SMs, split and FMAs must each be at least 1")
    work = np.asarray(launch.block_kslices(), dtype=float) * launch.kslice_fmas
    n, sms, per_sm = len(work), launch.sms, launch.blocks_per_sm
    left = np.full((per_sm, sms), np.inf)  # FMAs left of the block in each slot of each SM (inf: an empty slot)
    held = np.full((per_sm, sms), -1)  # which block
    count = np.zeros(sms, dtype=int)  # blocks resident on each SM
    start, end, where = np.zeros(n), np.zeros(n), np.zeros(n, dtype=int)
    now, given = 0.0, 0
    while True:
        while given < n and count.min() < per_sm:  # the next block to the SM holding the fewest (lowest first)
            sm = int(np.argmin(count))
            slot = int(np.flatnonzero(np.isinf(left[:, sm]))[0])
            left[slot, sm], held[slot, sm], start[given], where[given] = work[given], given, now, sm
            count[sm] += 1
            given += 1
        if not count.any():
            break
        rate = sm_fma_per_ns / np.maximum(count, 1)  # FMAs per ns of each block on the SM
        dt = float((left / rate).min())
        now += dt
        left -= dt * rate
        done = left <= 1e-6 * work.max()
        end[held[done]] = now
        left[done], held[done] = np.inf, -1
        count -= done.sum(axis=0)
    first, last = np.rint(start).astype(np.int64), np.rint(end).astype(np.int64)
    rows = [[b, int(where[b]), int(first[b]), int(max(last[b], first[b] + 1))] for b in range(n)]
    rows.sort(key=lambda r: (r[2], r[0]))
    return rows


# ---- gpu-cpasync-any at a small size: the tiles before the fit, the fit, Stream-K -------------------------------
@dataclass(frozen=True)
class FixCase:
    """One configuration of the small-size pair: its registry config, how many slices of K, and the launch."""

    name: str  # "tiles", "split", "stream-k"
    config: dict[str, int]
    launch: ModelLaunch

    @property
    def tile(self) -> str:
        return f"{self.config['BM']}×{self.config['BN']}"


def any_launch(p: Problem, c: Mapping[str, int], sms: int, split: int | None = None) -> ModelLaunch:
    """gpu-cpasync-any's launch at `p` in config `c` (SCHED 1: Stream-K) on `sms` SMs; `split`: the slices of K,
    the registry's split-K choice (`cpasync_model.any_splits`) where not given."""
    tiles = ceil_div(p.m, c["BM"]) * ceil_div(p.n, c["BN"])
    stream_k = c.get("SCHED", 0) >= 1
    return ModelLaunch(
        tiles=tiles,
        ktiles=ceil_div(p.k, c["BK"]),
        blocks_per_sm=cm.blocks_per_sm(c),
        sms=sms,
        split=1 if stream_k else (cm.any_splits(p, c) if split is None else split),
        stream_k=stream_k,
        kslice_fmas=c["BM"] * c["BN"] * c["BK"],
    )


def small_size_fix(p: Problem, sms: int = cm.SPLIT_K_SMS) -> list[FixCase]:
    """The before / after of gpu-cpasync-any at `p`: its default tiles one block per tile (before the fit), the
    registry's fit (`cpasync_model.any_fit`: smaller tiles, K split as `any_splits` picks) and Stream-K on the
    fit's tiles. Every figure from the registry's rules, none typed in."""
    default = dict(cm.ANY_CONFIG)
    fitted, _why = cm.any_fit(p, default)
    fitted.pop("SCHED", None)
    streamk = {**fitted, "SCHED": 1}
    return [
        FixCase("tiles", default, any_launch(p, default, sms, split=1)),
        FixCase("split", fitted, any_launch(p, fitted, sms)),
        FixCase("stream-k", streamk, any_launch(p, streamk, sms)),
    ]


MODEL_BACKEND = "model"  # a Result's backend where the model made its trace: never measured, never saved
TRACES_SMALL = "-traces-small-{size}.json.gz"  # the end of benchmarks/traces_small.py's session file's name


def shipped_fix_file(p: Problem) -> Path | None:
    """The newest shipped recording of the fix's builds at square size `p` (assets/sessions/GPU-DATE-traces-small-
    SIZE.json.gz, a companion opened on demand), or None where none is shipped."""
    if not p.m == p.n == p.k:
        return None
    end = TRACES_SMALL.format(size=p.m)
    files = [f for f in recorded_sessions() if f.name.endswith(end)]
    return files[-1] if files else None


def shipped_fix_session(p: Problem) -> Session | None:
    """The shipped recording of the fix's builds at `p` (shipped_fix_file), or None: none shipped, or it does not
    load (logged)."""
    path = shipped_fix_file(p)
    if path is None:
        return None
    try:
        return Session.load(path)
    except SessionError as exc:
        log.warning("%s not loaded: %s", path.name, exc)
        return None


def model_result(p: Problem, case: FixCase) -> Result:
    """The model's trace of `case` at `p` as a Result the block-trace view draws (its backend says "model")."""
    trace = model_trace(case.launch)
    return Result(
        variant=VARIANT,
        params={},
        m=p.m,
        n=p.n,
        k=p.k,
        backend=MODEL_BACKEND,
        precision="fp32",
        valid=True,
        note=render(case_name(case), "en"),
        config=dict(case.config),
        block_trace=trace,
    )


def case_name(case: FixCase) -> Message:
    """What the case is, in words: its tiles and how its work is shared."""
    if case.launch.stream_k:
        return msg("lastwave.case.stream_k", tile=case.tile, blocks=case.launch.grid)
    if case.launch.split > 1:
        return msg("lastwave.case.split", tile=case.tile, split=case.launch.split)
    return msg("lastwave.case.tiles", tile=case.tile)


def fix_messages(p: Problem, shown: list[tuple[FixCase, LastWave]], recorded_on: str | None) -> list[Message]:
    """The view's sentences, one a line: what the pair shows, where the traces came from (`recorded_on`: the
    recording's GPU and date; "": the results' own, their source names it; None: the model), then each case's waves, last wave and idle SM-time."""
    if recorded_on is None:
        source = msg("lastwave.model")
    else:
        source = msg("lastwave.recorded", where=recorded_on) if recorded_on else msg("lastwave.recorded.here")
    out = [msg("lastwave.head", kernel=VARIANT, size=p.label), source]
    for case, last in shown:
        out.append(
            msg(
                "lastwave.sentence",
                case=case_name(case),
                blocks=last.blocks,
                waves=last.waves,
                slots=last.slots,
                per_sm=last.slots // max(last.sms, 1),
                last=last.last_blocks,
                used=last.last_sms,
                sms=last.sms,
                idle=last.idle_share,
                run_us=last.duration_ns / 1e3,
            )
        )
    return out


define("lastwave.case.tiles", en="{tile} tiles, one block per tile", zh="{tile} 分块，每块一个线程块")
define("lastwave.case.split", en="{tile} tiles, K split in {split}", zh="{tile} 分块，K 切成 {split} 段（split-K）")
define(
    "lastwave.case.stream_k",
    en="Stream-K on {blocks} blocks of {tile} tiles",
    zh="Stream-K：{blocks} 个线程块，{tile} 分块",
)
define(
    "lastwave.sentence",
    # a wave is `slots` blocks: without the number, "0.24 waves" of 64 blocks on 132 SMs read as a mistake
    en="{case:msg}: {blocks} blocks in {waves:.2f} waves of {slots} ({per_sm} per SM at once); the last wave, "
    "{last} blocks, ran on {used} of {sms} SMs; {idle:.0%} of SM-time idle; the run took {run_us:us}.",
    zh="{case:msg}：{blocks} 个线程块，{waves:.2f} 波，每波 {slots} 个（每个 SM 同时 {per_sm} 个）；最后一波 {last} "
    "个线程块，用了 {sms} 个 SM 中的 {used} 个；{idle:.0%} 的 SM 时间空闲；运行 {run_us:us}。",
)
define("lastwave.recorded", en="Block traces recorded on {where}.", zh="在 {where} 上记录的线程块轨迹。")
define(
    "lastwave.recorded.here",
    en="Block traces recorded in these results (their source names the GPU).",
    zh="这些结果中记录的线程块轨迹（数据来源注明了 GPU）。",
)
define(
    "lastwave.model",
    en="No recorded traces of these builds are open: these are the model's (every SM at its FP32 peak, shared by "
    "the blocks it holds; no memory stalls), not measurements: its times are not the kernel's.",
    zh="没有打开这些构建的记录轨迹：以下是模型的轨迹（每个 SM 以 FP32 峰值运行，由驻留其上的线程块均分；不计访存停顿），"
    "不是测量值：其中的时间不是核函数的实际时间。",
)
define(
    "lastwave.head",
    en="{kernel} at {size}: its default tiles fill part of one wave, and the hatched SM-time is idle. "
    "Smaller tiles with K split, or Stream-K's even share of K-slices per block, fill the SMs.",
    zh="{kernel}，规模 {size}：默认分块只填满一波的一部分，斜线区域是空闲的 SM 时间。更小的分块加上 "
    "split-K，或 Stream-K 让每个线程块分到均等的 K 切片，可以填满 SM。",
)
