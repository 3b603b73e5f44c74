"""The small-size fix's three cases as they are shown: gpu-cpasync-any at a small size in its default tiles, in the
registry's fit (smaller tiles, K split) and in Stream-K (core/hardware/model_trace.small_size_fix), each with the
trace drawn and its last wave (core/hardware/last_wave.py).

The traces are recorded ones where the results given hold all three builds' traces, else the package's shipped
recording of them (assets/sessions/GPU-DATE-traces-small-SIZE.json.gz), else the model's, labelled so (recorded
and model traces are never mixed). The Hardware tab's last-wave view, the `last-wave` chart, a lesson's
last-wave step and its figures ({{lastwave …}}) and claims all pick them here. No Qt, no GPU.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gemmviz.core.fileio import FileMemo
from gemmviz.core.hardware.last_wave import LastWave, last_wave
from gemmviz.core.hardware.model_trace import (
    VARIANT,
    FixCase,
    model_result,
    shipped_fix_file,
    shipped_fix_session,
    small_size_fix,
)
from gemmviz.core.problem import Problem
from gemmviz.core.session.machines import short_name
from gemmviz.core.session.results import Result, Session
from gemmviz.core.session.workspace import session_gpu

SIZE = Problem(1024, 1024, 1024)  # the small size: 128×128 tiles fill under half of 132 SMs
MODEL_SMS = 132  # the H100's and H200's SMs: the GPUs the fix was measured on


def session_sms(session: Session) -> int | None:
    """The SMs of the GPU a session was recorded on, where it says."""
    sms = session.environment.get("backends", {}).get("cuda", {}).get("sms")
    return sms if isinstance(sms, int) and sms > 0 else None


@dataclass(frozen=True)
class Shown:
    """One case as the view draws it: its trace's Result (recorded or the model's), the SMs and occupancy."""

    case: FixCase
    result: Result
    sms: int
    last: LastWave


@dataclass(frozen=True)
class Pick:
    """The cases as drawn, and where their traces came from: a recording (its GPU and date) or the model (None)."""

    shown: list[Shown]
    origin: tuple[str | None, str, str] = (None, "", "model")  # (GPU, date, how): an export's footer says it

    @property
    def recorded_on(self) -> str | None:
        """The recording's GPU and date as the sentences name it, either where the other is not known ("" where the
        results' session is not known at all: a lesson's own results, whose footer names it); None for the model's
        traces."""
        gpu, date, how = self.origin
        if how == "model":
            return None
        return ", ".join(x for x in (gpu, date) if x)

    @property
    def gpu_short(self) -> str | None:
        """The recording's GPU as a slide names it ('H100'); None for the results' own traces or the model's."""
        gpu = self.origin[0]
        return (short_name(gpu) or gpu) if gpu else None

    @property
    def span_us(self) -> float:
        """The longest run: the time axis the cases share."""
        return max((s.last.duration_ns for s in self.shown), default=0) / 1e3

    def case(self, name: str) -> Shown | None:
        """The case called `name` ("tiles", "split", "stream-k"), if shown."""
        return next((s for s in self.shown if s.case.name == name), None)


def recorded_match(case: FixCase, results: list[Result], p: Problem) -> Result | None:
    """A recorded, valid, traced result of this case's build at `p`: its tiles, its schedule and as many
    blocks as the case launches (which tells the split of K)."""
    for r in results:
        if r.variant != VARIANT or r.problem != p or not r.valid or not r.block_trace:
            continue
        c = r.config
        same = (c.get("BM"), c.get("BN"), c.get("SCHED", 0)) == (
            case.config["BM"],
            case.config["BN"],
            case.config.get("SCHED", 0),
        )
        if same and len(r.block_trace) == case.launch.grid:
            return r
    return None


def _all_recorded(cases: list[FixCase], results: list[Result], p: Problem) -> list[Result] | None:
    found = [recorded_match(case, results, p) for case in cases]
    return [r for r in found if r is not None] if all(r is not None for r in found) else None


def pick_cases(
    p: Problem,
    results: list[Result],
    session_of: Callable[[Result], Session | None] = lambda _r: None,
    shipped: Callable[[], Session | None] = lambda: None,
) -> Pick:
    """The fix's three cases at `p`: recorded where `results` hold all three builds' traces (`session_of` says
    which session each came from), else where the `shipped` recording does, else the model's (recorded and model
    traces are never mixed: like with like)."""
    cases = small_size_fix(p, MODEL_SMS)
    found, session = _all_recorded(cases, results, p), None
    if found is not None:
        session = session_of(found[0])
    else:
        recording = shipped()
        found = _all_recorded(cases, recording.results, p) if recording is not None else None
        session = recording if found is not None else None
    origin: tuple[str | None, str, str] = (None, "", "model")
    if found is not None:
        origin = (None, "", "measured") if session is None else (session_gpu(session), session.created[:10], "measured")
    sms = (session_sms(session) if session is not None else None) or MODEL_SMS
    shown = []
    for i, case in enumerate(cases):
        result, case_sms = (found[i], sms) if found is not None else (model_result(p, case), MODEL_SMS)
        last = last_wave(result.block_trace or [], case_sms, case.launch.blocks_per_sm)
        shown.append(Shown(case, result, case_sms, last))
    return Pick(shown, origin)


# the shipped recording's pick at a size, while its file stays the same: a lesson's figures, claims and view read
# it on every slide drawn (loading the file and working out three last waves is tens of milliseconds)
_SHIPPED = FileMemo(size=4)


def recorded_pick(p: Problem, results: Sequence[Result] = ()) -> Pick | None:
    """The cases at `p` from recorded traces only: `results`' where they hold all three builds, else the shipped
    recording's; None where neither has them (none shipped, or its file does not load)."""
    cases = small_size_fix(p, MODEL_SMS)
    if _all_recorded(cases, list(results), p) is not None:
        return pick_cases(p, list(results))
    path = shipped_fix_file(p)
    if path is None:
        return None
    pick = _SHIPPED.get([path], lambda: pick_cases(p, [], shipped=lambda: shipped_fix_session(p)))
    return pick if pick.recorded_on is not None else None
