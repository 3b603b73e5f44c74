"""The gap between two kernels, explained from Nsight Compute's counters: `decompose(a, b)` splits the time
difference T_a - T_b into parts that sum to it exactly, each one bar of a waterfall with one sentence (their
words: core/hardware/gap_words.py); docs/gap-view.md says how each part is computed and what is an attribution:

    T = C / f                   (C: cycles elapsed per SM, f: the SM clock, both measured)
    C = idle + active           (active = instructions per SM / instructions per active cycle)
    active = I * Σ_r s_r / W    (I: instructions per SMSP; s_r: warps stalled on reason r per issued instruction;
                                 W: resident warps per SMSP; Little's law on the issue slot)

The clock, idle-SM (wave and tail), instruction, occupancy and stall-reason parts come from these identities
(a product's change split symmetrically between its factors, so no order is preferred); what the identities
do not close (the measured active cycles against I * Σ s_r / W, a metric not recorded) is the "other / not
attributed" bar. The L2 hit rate, DRAM and L2 throughput and the pipes' utilisation are measured context,
written beside the bars: they are why a stall grew, not a time of their own. No Qt.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from gemmviz.core.hardware import gap_words  # noqa: F401  (registers the templates its sentences render)
from gemmviz.core.hardware.gap_file import (
    BLOCK,
    CYCLES,
    DRAM,
    DURATION,
    FFMA,
    FMA_PIPE,
    GRID,
    INSTRUCTIONS,
    IPC,
    ISSUE,
    L2,
    L2_HIT,
    LIMIT_REGISTERS,
    LIMIT_SHARED,
    STALL_REASONS,
    TENSOR_PIPE,
    WARPS,
    Kernel,
    size_text,
    stall_metric,
)
from gemmviz.core.hardware.waves import GpuShape, Waves, gpu_shape, kernel_waves
from gemmviz.core.messages import render


@dataclass(frozen=True)
class Line:
    """One sentence: a message key and its parameters, rendered per language."""

    key: str
    params: dict = field(default_factory=dict)

    def text(self, lang: str = "en") -> str:
        return render(self.key, lang, self.params)


@dataclass(frozen=True)
class Part:
    """One bar of the waterfall: `ns` of the gap, its short label and its sentence."""

    name: str  # "clock", "idle", "instructions", "occupancy", "issue", "stall:REASON", "stalls_rest", "other"
    ns: float
    label: Line
    sentence: Line


@dataclass(frozen=True)
class Gap:
    a: Kernel  # the kernel explained
    b: Kernel  # the reference
    ta_ns: float
    tb_ns: float
    timing: str  # "ncu" (gpu__time_duration) or "median" (the event-timed medians)
    parts: tuple[Part, ...]
    headline: Line
    notes: tuple[Line, ...]
    missing: tuple[str, ...]  # metrics the parts or notes needed and one of the kernels lacks
    waves_a: Waves | None = None
    waves_b: Waves | None = None

    @property
    def gap_ns(self) -> float:
        return self.ta_ns - self.tb_ns

    def share(self, part: Part) -> float | None:
        return part.ns / self.gap_ns if self.gap_ns else None


class GapError(ValueError):
    """The two kernels cannot be compared (no time for one of them); one line."""


def _times(a: Kernel, b: Kernel) -> tuple[float, float, str]:
    if a.get(DURATION) and b.get(DURATION):
        return a.metrics[DURATION], b.metrics[DURATION], "ncu"
    if a.median_ms and b.median_ms:
        return a.median_ms * 1e6, b.median_ms * 1e6, "median"
    lacking = a if not (a.get(DURATION) or a.median_ms) else b
    raise GapError(f"{lacking.label} has no time: neither {DURATION} nor median_ms is recorded")


def _both(a: Kernel, b: Kernel, names: Sequence[str], missing: set[str]) -> bool:
    gone = [n for n in names if a.get(n) is None or b.get(n) is None]
    missing.update(gone)
    return not gone


def shapley2(xa: float, xb: float, ya: float, yb: float) -> tuple[float, float]:
    """The change of x*y from b to a, split between x and y symmetrically (the two sum to it exactly)."""
    return (xa - xb) * (ya + yb) / 2, (ya - yb) * (xa + xb) / 2


@dataclass
class _Build:
    a: Kernel
    b: Kernel
    shape: GpuShape | None
    ns_per_cycle: float  # 1 / f_a
    missing: set[str]
    parts: list[tuple[str, float, Line, Line]] = field(default_factory=list)  # name, ns, label, sentence (no share)
    stall_step_ns: float = 0.0  # what a stall bar may be off by where ncu gave the stall counts rounded (0: not)

    def add(self, name: str, ns: float, label_key: str, key: str, label_params=None, **params) -> None:
        self.parts.append((name, ns, Line(label_key, label_params or {}), Line(key, params)))


def _active_cycles(k: Kernel, shape: GpuShape) -> float:
    return k.metrics[INSTRUCTIONS] / shape.sms / k.metrics[IPC]


def _idle_part(s: _Build, wa: Waves | None) -> None:
    a, b, shape = s.a, s.b, s.shape
    idle = [k.metrics[CYCLES] - _active_cycles(k, shape) for k in (a, b)]  # type: ignore[arg-type]  # decompose checked every metric read here is there
    shares = {"ia": max(0.0, idle[0] / a.metrics[CYCLES]), "ib": max(0.0, idle[1] / b.metrics[CYCLES])}
    ns = (idle[0] - idle[1]) * s.ns_per_cycle
    if wa is None:
        s.missing.update(n for n in (GRID, BLOCK, LIMIT_REGISTERS, LIMIT_SHARED) if a.get(n) is None)
        s.add("idle", ns, "gap.label.idle", "gap.part.idle_nowaves", **shares)
    else:
        words = "gap.part.idle_one_wave" if wa.waves <= 1 else "gap.part.idle"  # never "the last of 1 waves"
        s.add("idle", ns, "gap.label.idle", words, waves=wa.waves, last=wa.last_sms, sms=wa.sms, **shares)


def _instruction_part(s: _Build, ns: float) -> None:
    a, b = s.a, s.b
    fmas = [k.get(FFMA) for k in (a, b)]
    if all(f and f >= 0.5 * k.m * k.n * k.k for f, k in zip(fmas, (a, b))):  # an FP32 FMA kernel: per FMA
        per = [k.metrics[INSTRUCTIONS] / (f / 32) for f, k in zip(fmas, (a, b))]  # type: ignore[operator]  # the test above: every f is a positive number
        s.add("instructions", ns, "gap.label.instructions", "gap.part.instructions_fma", ia=per[0], ib=per[1])
    else:
        na, nb = a.metrics[INSTRUCTIONS], b.metrics[INSTRUCTIONS]
        s.add("instructions", ns, "gap.label.instructions", "gap.part.instructions", na=na, nb=nb)


def _stall_parts(s: _Build, q: list[dict[str, float]], per_q: float, top: int) -> None:
    """Each stall reason's part: its change of the scheduler's cycles per instruction, q_r = s_r / W, times the
    instructions (`per_q`: the mean instruction count per scheduler, in ns per cycle). The `top` reasons that
    changed most are bars of their own, the others one bar together."""
    found = sorted(((abs(q[0][r] - q[1][r]), r) for r in q[0] if r != "selected" and q[0][r] != q[1][r]), reverse=True)
    for _size, r in found[:top]:
        qa, qb = q[0][r], q[1][r]
        label = {"reason": {"key": f"gap.short.{r}", "params": {}}}  # rendered in the reader's language
        s.add(
            f"stall:{r}",
            (qa - qb) * per_q,
            "gap.label.stall",
            "gap.part.stall",
            label,
            why=f"gap.stall.{r}",
            sa=qa,
            sb=qb,
        )
    rest = [r for _size, r in found[top:]]
    if rest:
        ns = sum(q[0][r] - q[1][r] for r in rest) * per_q
        s.add("stalls_rest", ns, "gap.label.stalls_rest", "gap.part.stalls_rest", count=len(rest))


def _two_decimals(v: float) -> bool:
    """Whether a recorded value is given to two decimals at most (as ncu's CSV gives the stall counts)."""
    return abs(v * 100 - round(v * 100)) < 1e-6


def _active_parts(s: _Build, top_stalls: int) -> float:
    """The instruction, occupancy and stall parts of the active cycles' change; returns what they sum to (cycles).

    active = I × Q, Q = Σ_r q_r, q_r = s_r / W: Little's law on a scheduler's issue slot (Σ_r s_r = W / issue
    rate) makes Q its cycles per issued instruction, shared among its warps' states. The change of I × Q is split
    symmetrically between I and Q, and Q's part by each q_r's change; q_selected = 1 / W is the occupancy part
    (each issue cycle shared by more warps or fewer)."""
    a, b, shape = s.a, s.b, s.shape
    assert shape is not None
    smsps = shape.sms * shape.smsp_per_sm
    reasons = [r for r in STALL_REASONS if a.get(stall_metric(r)) is not None and b.get(stall_metric(r)) is not None]
    s.missing.update(stall_metric(r) for r in STALL_REASONS if r not in reasons)
    per_smsp = shape.max_warps_per_sm / shape.smsp_per_sm
    if reasons and _both(a, b, [WARPS], s.missing) and a.metrics[WARPS] > 0 and b.metrics[WARPS] > 0:
        w = [k.metrics[WARPS] / 100 * per_smsp for k in (a, b)]
        q = [{r: k.metrics[stall_metric(r)] / wk for r in reasons} for k, wk in zip((a, b), w)]
        i = [k.metrics[INSTRUCTIONS] / smsps for k in (a, b)]
        d_i, d_q = shapley2(i[0], i[1], sum(q[0].values()), sum(q[1].values()))
        per_q = (i[0] + i[1]) / 2 * s.ns_per_cycle
        _instruction_part(s, d_i * s.ns_per_cycle)
        if "selected" in q[0]:
            ns = (q[0]["selected"] - q[1]["selected"]) * per_q
            s.add("occupancy", ns, "gap.label.occupancy", "gap.part.occupancy", wa=w[0], wb=w[1])
        _stall_parts(s, q, per_q, top_stalls)
        if all(_two_decimals(k.metrics[stall_metric(r)]) for k in (a, b) for r in reasons):
            # each count within ±0.005 of its value: a bar (a difference of two) within this many ns
            s.stall_step_ns = (0.005 / w[0] + 0.005 / w[1]) * per_q
        return d_i + d_q
    # without the stalls: active = (instructions per SM) / IPC, split between the two
    n = [k.metrics[INSTRUCTIONS] / shape.sms for k in (a, b)]
    d_n, d_ipc = shapley2(n[0], n[1], 1 / a.metrics[IPC], 1 / b.metrics[IPC])
    _instruction_part(s, d_n * s.ns_per_cycle)
    s.add("issue", d_ipc * s.ns_per_cycle, "gap.label.issue", "gap.part.issue", ua=a.metrics[IPC], ub=b.metrics[IPC])
    return d_n + d_ipc


# A pipe's busy share under which, on both kernels, its line says nothing of their gap: the tensor pipe of two
# SIMT kernels (0%), the FMA pipe of two tensor-core kernels (a few % of epilogue and address arithmetic).
QUIET_PIPE = {"tensor": 1.0, "fma": 5.0}


def _notes(a: Kernel, b: Kernel, missing: set[str]) -> list[Line]:
    notes = []
    for what, name in (
        ("issue", ISSUE),
        ("fma", FMA_PIPE),
        ("tensor", TENSOR_PIPE),
        ("l2hit", L2_HIT),
        ("dram", DRAM),
        ("l2", L2),
    ):
        if a.get(name) is None or b.get(name) is None:
            missing.add(name)
        elif max(a.metrics[name], b.metrics[name]) >= QUIET_PIPE.get(what, 0):  # a pipe both leave idle: no news
            va, vb = a.metrics[name], b.metrics[name]
            # a rate outside 0-100% is ncu's hits and lookups counted on different replays (NVIDIA's answer on
            # its forum): the H200's L2 hit rate read 109% for a 0.28 ms kernel. Said so, not shown as a rate.
            key = "gap.note.pct" if all(-0.5 <= v <= 100.5 for v in (va, vb)) else "gap.note.pct_unreliable"
            notes.append(Line(key, {"what": f"gap.what.{what}", "va": va, "vb": vb}))
    return notes


def missing_text(missing: set[str]) -> str:
    """The metrics not recorded, the stall reasons as one group: a list of 18 long names read as noise."""
    stalls = [r for r in STALL_REASONS if stall_metric(r) in missing]
    rest = sorted(m for m in missing if m not in {stall_metric(r) for r in stalls})
    if len(stalls) == len(STALL_REASONS):
        rest.append("smsp__average_warps_issue_stalled_*")
    elif stalls:
        rest.append("stall reasons " + ", ".join(stalls))
    return ", ".join(rest)


def decompose(a: Kernel, b: Kernel, gpu: str, top_stalls: int = 3) -> Gap:
    """Where T_a - T_b goes: parts that sum to it exactly, the last one "not attributed" (see the module's
    docstring and docs/gap-view.md). `gpu` names the GPU the file was recorded on (its SM count)."""
    if a.size != b.size:
        raise GapError(
            f"{a.label} was recorded at {size_text(a.size)} and {b.label} at {size_text(b.size)}: "
            "a gap is between two kernels at one size"
        )
    ta, tb, timing = _times(a, b)
    gap = ta - tb
    shape = gpu_shape(gpu)
    missing: set[str] = set()
    wa, wb = kernel_waves(a, shape), kernel_waves(b, shape)
    s = _Build(a, b, shape, 0.0, missing)
    if shape is None:
        missing.add(f"the SM count of {gpu}")
    elif timing == "ncu" and _both(a, b, [CYCLES], missing):
        fa, fb = a.metrics[CYCLES] / ta, b.metrics[CYCLES] / tb  # cycles per ns: GHz
        s.ns_per_cycle = 1 / fa
        s.add("clock", b.metrics[CYCLES] * (1 / fa - 1 / fb), "gap.label.clock", "gap.part.clock", fa=fa, fb=fb)
        if _both(a, b, [INSTRUCTIONS, IPC], missing) and a.metrics[IPC] > 0 and b.metrics[IPC] > 0:
            _idle_part(s, wa)
            _active_parts(s, top_stalls)
    if gap:  # a part that did not change (equal clocks, equal warps) is no bar: what is left goes to "other"
        s.parts = [p for p in s.parts if abs(p[1]) > 1e-6 * abs(gap)]
    attributed = sum(p[1] for p in s.parts)
    s.add("other", gap - attributed, "gap.label.other", "gap.part.other")
    parts = tuple(
        Part(name, ns, label, Line(line.key, {**line.params, "share": ns / gap if gap else 0.0}))
        for name, ns, label, line in s.parts
    )
    notes = _notes(a, b, missing)
    if s.stall_step_ns and gap and any(p.name.startswith("stall") for p in parts):  # before the context: it
        step = s.stall_step_ns  # qualifies the bars (only the trade and the timing come first)
        notes.insert(0, Line("gap.note.stall_step", {"us": step / 1e3, "share": step / abs(gap)}))
    trade = _trade(parts, gap)
    if trade is not None:
        notes.insert(0, trade)
    if timing == "median":
        notes.insert(0, Line("gap.note.timing_median"))
    if missing:
        notes.append(Line("gap.note.missing", {"names": missing_text(missing)}))
    head = "gap.head.slower" if gap >= 0 else "gap.head.faster"
    headline = Line(head, {"a": a.label, "b": b.label, "ta": ta / 1e6, "tb": tb / 1e6, "gap": abs(gap) / 1e6})
    return Gap(a, b, ta, tb, timing, parts, headline, tuple(notes), tuple(sorted(missing)), wa, wb)


def _trade(parts: Sequence[Part], gap: float) -> Line | None:
    """The occupancy bar and the "not selected" stall bar, opposite and both large, are one trade (more warps per
    scheduler, more of them waiting their turn): said as one figure, so that two bars of ±4 ms on a 1.7 ms gap are
    not read as two effects."""
    ns = {p.name: p.ns for p in parts}
    occ, wait = ns.get("occupancy"), ns.get("stall:not_selected")
    if not gap or occ is None or wait is None or occ * wait >= 0 or min(abs(occ), abs(wait)) < abs(gap) / 4:
        return None
    return Line("gap.note.trade", {"net": (occ + wait) / 1e3, "share": (occ + wait) / gap})


def sentences(g: Gap, lang: str = "en") -> list[str]:
    """The headline, one sentence per bar, then the measured context: the view's text, a lesson's notes."""
    return [g.headline.text(lang), *(p.sentence.text(lang) for p in g.parts), *(n.text(lang) for n in g.notes)]


def as_mapping(g: Gap) -> Mapping[str, float]:
    """{part name: ns}, the bars in order (for tests and exports)."""
    return {p.name: p.ns for p in g.parts}
