"""A slide's "because", as data the recording can contradict.

A step that says "X is slower than Y because of Z" declares it:

    because = [{ slower = "gpu-tiled-pad[tile=32]", than = "gpu-tiled[tile=32]", at = 4096,
                 counter = "shared_loads", more = true, counted = ["gpu-tiled-pad[tile=32]", "gpu-tiled[tile=16]"] }]

`slower` must be slower than `than` at `at`³ in the results the lesson shows, and the counter (a name of
series.COUNTER_PLACEHOLDERS) must differ in the direction the slide says: `more = true` (the default), the slower
kernel has more of it. `counted` names where the counter was recorded when it was not at the same params (the
same two variants, in order; the slide's notes say why the count does not depend on the params that differ).
A slide that blames the last wave declares `{ idle = "tiles", than = "split", at = 1024 }` (core/lesson/last_wave.py):
the first case of gpu-cpasync-any's small-size fix is slower than the second, leaves more of the GPU's SM-time idle
and its last wave leaves SMs empty, in the recorded block traces.

The loader checks the claim's form (`parse_claims`); `claim_problems` checks it against a recording, and
`lesson_gaps` (the export's warnings, the window's status line) and the tests say each problem; `claim_tests` says
what each claim compared, with the figures.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gemmviz.core.lesson.last_wave import IdleClaim, parse_idle_claim
from gemmviz.core.lesson.series import COUNTER_PLACEHOLDERS, SeriesRef, best, counter_value, parse_series
from gemmviz.core.lesson.views import MAX_N, StepProblem, whole
from gemmviz.core.problem import Problem, ProblemError
from gemmviz.core.session.results import Result

CLAIM_KEYS = ("slower", "than", "at", "counter", "more", "counted")


@dataclass(frozen=True)
class Claim:
    """`slower` is slower than `than` at N³ because it has more (or less) of `counter`, recorded on `counted`."""

    slower: SeriesRef
    than: SeriesRef
    at: int
    counter: str
    more: bool = True
    counted: tuple[SeriesRef, SeriesRef] | None = None

    @property
    def counted_pair(self) -> tuple[SeriesRef, SeriesRef]:
        return self.counted or (self.slower, self.than)

    @property
    def text(self) -> str:
        how = "more" if self.more else "less"
        return f"{self.slower.text} slower than {self.than.text} at {self.at}³ because of {how} {self.counter}"


def _series(d: Mapping, key: str) -> SeriesRef:
    try:
        return parse_series(d.get(key))  # type: ignore[arg-type]  # parse_series refuses what is not a string
    except ProblemError as exc:
        raise StepProblem("because", f"because: {key}: {exc}") from None


def _claim(d: object) -> Because:
    if not isinstance(d, Mapping):
        raise StepProblem("because", "because is a list of tables: { slower = …, than = …, at = N, counter = … }")
    if "idle" in d:
        return parse_idle_claim(d)
    unknown = sorted(set(d) - set(CLAIM_KEYS))
    if unknown:
        raise StepProblem("because", f"because: unknown key {unknown[0]!r} (keys: {', '.join(CLAIM_KEYS)})")
    slower, than = _series(d, "slower"), _series(d, "than")
    at = d.get("at")
    if not (isinstance(at, int) and whole(at) and 0 < at <= MAX_N):
        raise StepProblem("because", f"because: at is the size N of the N³ product, 1…{MAX_N}")
    counter = d.get("counter")
    if counter not in COUNTER_PLACEHOLDERS:
        raise StepProblem("because", f"because: counter must be one of {', '.join(COUNTER_PLACEHOLDERS)}")
    more = d.get("more", True)
    if not isinstance(more, bool):
        raise StepProblem("because", "because: more is true (the slower kernel has more of it) or false")
    counted = d.get("counted")
    pair = None
    if counted is not None:
        if not (isinstance(counted, list) and len(counted) == 2):
            raise StepProblem(
                "because", "because: counted names two series, where the slower's and the other's counter were recorded"
            )
        pair = (_series({"s": counted[0]}, "s"), _series({"s": counted[1]}, "s"))
        if (pair[0].variant, pair[1].variant) != (slower.variant, than.variant):
            raise StepProblem("because", "because: counted names the same two kernels as slower and than, in order")
    return Claim(slower, than, at, counter, more, pair)


Because = Claim | IdleClaim  # a claim of either form


def parse_claims(d: Mapping) -> tuple[Because, ...]:
    """A step's `because` list, its form checked; StepProblem naming the key."""
    raw = d.get("because", [])
    if not isinstance(raw, list):
        raise StepProblem("because", "because is a list of tables: [{ slower = …, than = …, at = N, counter = … }]")
    return tuple(_claim(c) for c in raw)


def claim_problems(claims: tuple[Because, ...], results: list[Result]) -> list[str]:
    """What `results` (the recording a lesson quotes) says against each claim, a line each; [] if all hold."""
    return [
        p for c in claims for p in (c.problems(results) if isinstance(c, IdleClaim) else _counter_problems(c, results))
    ]


def claim_tests(claims: tuple[Because, ...], results: list[Result]) -> list[str]:
    """What each claim compared, a line each: an idle claim's times, idle shares and SMs (a counter claim's text)."""
    return [c.tested(results) if isinstance(c, IdleClaim) else c.text for c in claims]


def _counter_problems(c: Claim, results: list[Result]) -> list[str]:
    problems = []
    problem = Problem(c.at, c.at, c.at)
    a, b = best(results, c.slower, c.at), best(results, c.than, c.at)
    if a is None or b is None:
        missing = c.slower if a is None else c.than
        problems.append(f"it says {c.text}, but {missing.text} at {c.at}³ is not in the results")
    elif not (a.median_ms or 0.0) > (b.median_ms or 0.0):  # (best() keeps only results with a time)
        problems.append(
            f"it says {c.text}, but {c.slower.text} takes {a.median_ms:.3g} ms against {b.median_ms:.3g} ms"
        )
    ca = counter_value(results, c.counted_pair[0], problem, c.counter)
    cb = counter_value(results, c.counted_pair[1], problem, c.counter)
    if ca is None or cb is None:
        missing = c.counted_pair[0] if ca is None else c.counted_pair[1]
        problems.append(f"it says {c.text}, but {missing.text}'s {c.counter} at {c.at}³ is not recorded")
    elif not (ca > cb if c.more else ca < cb):
        problems.append(f"it says {c.text}, but the recording has {c.counter} {ca:,.0f} against {cb:,.0f}")
    return problems
