"""The kinds of view a lesson step can show, as a registry: each kind's name, the step keys it takes and how
they are checked. No Qt: `core/lesson/parse.py` parses every step through it, `gemmviz lesson` asks it which steps
show results, and each kind's drawing (the live widget of lesson mode, the slide) is registered under the
same name in `gemmviz/ui/lesson/views.py`. A new view is a module of its own, `gemmviz/core/lesson/view_NAME.py`,
that calls `register` when imported: `lesson_view`, `view_names`, `all_keys` and `owners` import every such
module of the package first, so that a lookup and the errors' lists of views and keys are the same whatever was
imported before.

A kind's `check(d, common)` reads the step's table `d` (its own keys; `common` holds the series and sizes
every step may name, already checked) and returns the Step fields it sets (`chart`, `at`, `baseline`,
`animation`, `beside`: a StepFields), or raises StepProblem naming the key at fault (None: the step as a whole).
A kind that draws a recording of its own names it on the slide's footer through its `footnote`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from gemmviz.core.charts import kinds as chart_kinds
from gemmviz.core.kernels.variants import BASELINES, VARIANTS
from gemmviz.core.lesson.series import SeriesRef
from gemmviz.core.messages import Message
from gemmviz.core.problem import Problem, ProblemError, parse_problem
from gemmviz.core.registry import Registry, import_prefixed
from gemmviz.core.session.results import Result

# keys every step takes, whatever its view: its words, the results it is about and whether R measures them
COMMON_KEYS = ("title", "text", "notes", "view", "run", "quoted", "series", "sizes", "because")
MAX_N = 65536  # the largest N a step or placeholder may name (N³ products, the shipped sessions stop at 8192)
MAX_TABLE_ROWS, MAX_TABLE_COLUMNS = 6, 5  # what a table on a slide can show readably
ACCESS_KINDS = ("coalescing", "banks")  # an "accesses" step draws the recorded accesses (ui/accesses/views.py)
ANIMATION_KEYS = ("block", "bounds", "mnk", "step", "tile", "variant", "versus")


class StepProblem(ValueError):
    """What is wrong with a step, and the key it is at (None: the step as a whole)."""

    def __init__(self, key: str | None, message: str):
        super().__init__(message)
        self.key = key


@dataclass(frozen=True)
class AnimationState:
    variant: str
    problem: Problem
    tile: int | None
    step: int = 0  # index of the schedule step shown first
    block: tuple[int, int] = (0, 0)  # the thread block shown (by, bx): an edge block shows the bounds checks
    bounds: str = "and"  # the store's bounds check: "and" (gemmviz's kernels) or "or" (the seed's bug)
    versus: tuple[str, int | None] | None = None  # a "side" step's second kernel (variant, tile), in lockstep


@dataclass(frozen=True)
class CommonFields:
    """What every step may name, checked before its view's own keys."""

    series: tuple[SeriesRef, ...]
    sizes: tuple[int, ...]


class StepFields(TypedDict, total=False):
    """The Step fields a view's check sets (core/lesson/model.Step), each it leaves out at the Step's default."""

    chart: str
    at: int | None
    baseline: str | None
    animation: AnimationState | None
    beside: str


Check = Callable[[Mapping, CommonFields], StepFields]
# (step, the lesson's results, language) -> where the view's own data comes from, for the slide's footer
Footnote = Callable[[Any, Sequence[Result], str], str]
# (step, the lesson's results) -> the slide's header where the view draws a recording of its own rather than the
# lesson's session (None: the lesson's source, as on every other slide)
Heading = Callable[[Any, Sequence[Result]], Message | None]


def _no_fields(_d: Mapping, _common: CommonFields) -> StepFields:
    return {}


@dataclass(frozen=True)
class LessonViewKind:
    name: str
    keys: tuple[str, ...] = ()  # the step keys it takes besides COMMON_KEYS
    check: Check = _no_fields
    has_view: bool = True  # False: the step is words only, larger and centred on the slide
    shows_results: bool = False  # it draws the step's results: `gemmviz lesson --export` warns where it has none
    # where its data comes from when not from the lesson's session (a recording of its own): the footer says it
    footnote: Footnote | None = None
    heading: Heading | None = None


VIEW_KINDS: Registry[str, LessonViewKind] = Registry("lesson view")


def register(kind: LessonViewKind) -> LessonViewKind:
    return VIEW_KINDS.add(kind)


def unregister(name: str) -> None:
    VIEW_KINDS.remove(name)


MODULE_PREFIX = "view_"  # gemmviz/core/lesson/view_NAME.py registers view NAME


@functools.cache
def load_shipped() -> tuple[str, ...]:
    """Import every `gemmviz/core/lesson/view_*.py` module once (each registers its view); their names."""
    import gemmviz.core.lesson

    return import_prefixed(gemmviz.core.lesson, MODULE_PREFIX)


def lesson_view(name: str) -> LessonViewKind | None:
    """The registered view `name` (the shipped views loaded first); None if there is none."""
    load_shipped()
    return VIEW_KINDS.get(name)


def view_names() -> tuple[str, ...]:
    """The names of the registered views, every shipped one among them."""
    load_shipped()
    return tuple(VIEW_KINDS)


def all_keys() -> tuple[str, ...]:
    """Every key some step may have: the common ones and each registered view's (the shipped views loaded first)."""
    load_shipped()
    return tuple(dict.fromkeys([*COMMON_KEYS, *(k for kind in VIEW_KINDS.values() for k in kind.keys)]))


def owners(key: str) -> tuple[str, ...]:
    """The views whose own keys include `key` (none for a common key or an unknown one)."""
    load_shipped()
    return tuple(kind.name for kind in VIEW_KINDS.values() if key in kind.keys)


# ---- checks of single keys, shared by the kinds ------------------------------------------------------------
def step_charts() -> tuple[str, ...]:
    """The chart kinds a "chart" step may name: the registry's kinds for lessons, as registered when it is checked."""
    return tuple(kind.name for kind in chart_kinds.kinds() if kind.in_lessons)


def hardware_charts() -> tuple[str, ...]:
    """The kinds a "hardware" step may name: those of them that draw one result's data (counters, a block trace)."""
    return tuple(kind.name for kind in chart_kinds.kinds() if kind.in_lessons and kind.needs is not None)


def whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def chart_key(d: Mapping, choices: tuple[str, ...], message: str, default: str | None = "gflops") -> str:
    chart = d.get("chart", default)
    if chart not in choices:
        raise StepProblem("chart", message.format(choices=", ".join(choices), chart=chart))
    return chart


def at_key(d: Mapping) -> int | None:
    at = d.get("at")
    if at is not None and not (whole(at) and 0 < at <= MAX_N):
        raise StepProblem("at", "at must be a positive whole number (the size N of N³)")
    return at


def baseline_key(d: Mapping) -> str | None:
    baseline = d.get("baseline")
    keys = [b.key for b in BASELINES]
    if baseline is not None and baseline not in keys:
        raise StepProblem("baseline", f"baseline must be one of {', '.join(keys)}, got {baseline!r}")
    return baseline


# ---- the shipped kinds ---------------------------------------------------------------------------------------
def _chart(d: Mapping, _common: CommonFields) -> StepFields:
    chart = chart_key(d, step_charts(), "chart must be one of {choices}, got {chart!r}")
    at, baseline = at_key(d), baseline_key(d)
    if chart == "speedup" and (at is None or baseline is None):
        raise StepProblem(None, "a speedup chart needs `at` (a size) and `baseline`")
    return {"chart": chart, "at": at, "baseline": baseline}


def _table(d: Mapping, common: CommonFields) -> StepFields:
    baseline, beside = baseline_key(d), d.get("beside", "")
    if not isinstance(beside, str) or len(beside) > 80:
        raise StepProblem(
            "beside", 'beside names a shipped published session, e.g. beside = "published-seed000-rtx4060"'
        )
    if beside:
        from gemmviz.core.lesson.files import shipped_session

        if shipped_session(beside) is None:
            raise StepProblem("beside", f"beside must name a shipped session, got {beside!r}")
    if not (common.series and common.sizes and (baseline is not None or beside)):
        raise StepProblem(None, "a table step needs series, sizes (its columns) and baseline (what × compares with)")
    rows = len(common.series) * (2 if beside else 1)
    if rows > MAX_TABLE_ROWS or len(common.sizes) > MAX_TABLE_COLUMNS:
        raise StepProblem(
            None, f"a table shows at most {MAX_TABLE_ROWS} series and {MAX_TABLE_COLUMNS} sizes: split it"
        )
    return {"baseline": baseline, "beside": beside}


def _hardware(d: Mapping, common: CommonFields) -> StepFields:
    chart = chart_key(d, hardware_charts(), "a hardware step needs chart = one of {choices}", default=None)
    if len(common.sizes) != 1 or not (len(common.series) == 1 or (chart == "traffic" and len(common.series) == 2)):
        raise StepProblem(
            None,
            "a hardware step picks one result: one series and one size, e.g. sizes = [1024] "
            "(a traffic chart may compare two series)",
        )
    return {"chart": chart}


def _gap(_d: Mapping, common: CommonFields) -> StepFields:
    """A gap step draws the recorded gap metrics (core/hardware/gap.py), not the step's results: `series` names the kernel
    explained and the reference, as the gap file labels them, or nothing (the best FP32 rung against cuBLAS)."""
    if len(common.series) not in (0, 2):
        raise StepProblem(
            "series",
            'a gap step names two kernels, the one explained and the reference, e.g. series = ["gpu-cpasync", '
            '"cublas"], or none (the best FP32 rung against cuBLAS)',
        )
    return {}


def _accesses(d: Mapping, _common: CommonFields) -> StepFields:
    return {"chart": chart_key(d, ACCESS_KINDS, "an accesses step needs chart = one of {choices}")}


def _animation_block(value: object, variant: str, problem: Problem, tile: int | None) -> tuple[int, int]:
    """An animation's `block = [by, bx]`, inside the kernel's grid at that size (ProblemError otherwise)."""
    from gemmviz.core.schedule.block import grid_and_threads

    if not (isinstance(value, list) and len(value) == 2 and all(whole(x) for x in value)):
        raise ProblemError("animation block must be [row, column] of the thread block, e.g. [1, 1]")
    (gy, gx), _threads = grid_and_threads(variant, problem, tile)
    by, bx = value
    if not (0 <= by < gy and 0 <= bx < gx):
        raise ProblemError(f"animation block [{by}, {bx}] is outside the grid of {gy}×{gx} blocks at {problem.label}")
    return by, bx


def _animation_state(a: Mapping) -> AnimationState:
    from gemmviz.core.schedule.block import animated_variants, block_schedule, check_animation_input, check_bounds

    variant = a.get("variant", "")
    if not isinstance(variant, str) or variant not in animated_variants():
        raise ProblemError(f"animation variant must be one of {', '.join(animated_variants())}, got {variant!r}")
    tile = a.get("tile")
    if tile is not None and not whole(tile):
        raise ProblemError("animation tile must be a whole number")
    step_i = a.get("step", 0)
    if not whole(step_i) or step_i < 0:
        raise ProblemError("animation step must be a whole number ≥ 0")
    v = VARIANTS[variant]
    if tile is None and v.schedule_param:
        tile = v.param_defaults.get(v.schedule_param)
    problem = parse_problem(str(a.get("mnk", "64")))
    check_animation_input(variant, problem, tile)  # a tile the kernel has no schedule for: refused here
    block = _animation_block(a.get("block", [0, 0]), variant, problem, tile)
    bounds = a.get("bounds", "and")
    if not isinstance(bounds, str):
        raise ProblemError(f'animation bounds must be "and" or "or", got {bounds!r}')
    check_bounds(variant, bounds)  # "and" / "or"; "or" only for a kernel storing C per thread under a check
    steps = len(block_schedule(variant, problem, tile, block, bounds).steps)  # too many to animate: refused here
    if step_i >= steps:  # (it showed the last step, 9 of 9, for step = 999999999999)
        raise ProblemError(f"animation step {step_i:,} is past the animation's last: it has {steps:,} steps, from 0")
    versus = _versus(a.get("versus"), problem) if "versus" in a else None
    return AnimationState(variant, problem, tile, step_i, block, bounds, versus)


def _versus(value: object, problem: Problem) -> tuple[str, int | None]:
    """A side-by-side step's second kernel: versus = { variant = "gpu-tiled", tile = 16 } at the same size."""
    from gemmviz.core.schedule.block import animated_variants, check_animation_input

    if not isinstance(value, dict) or set(value) - {"variant", "tile"}:
        raise ProblemError('animation versus must be a table: versus = { variant = "gpu-tiled", tile = 16 }')
    variant, tile = value.get("variant", ""), value.get("tile")
    if not isinstance(variant, str) or variant not in animated_variants():
        raise ProblemError(f"animation versus variant must be one of {', '.join(animated_variants())}, got {variant!r}")
    if tile is not None and not whole(tile):
        raise ProblemError("animation versus tile must be a whole number")
    v = VARIANTS[variant]
    if tile is None and v.schedule_param:
        tile = v.param_defaults.get(v.schedule_param)
    check_animation_input(variant, problem, tile)
    return variant, tile


def _animation(d: Mapping, _common: CommonFields) -> StepFields:
    a = d.get("animation")
    if not isinstance(a, dict):
        raise StepProblem(
            "animation", 'an animation step needs animation = { variant = "gpu-tiled", mnk = "64", tile = 16 }'
        )
    unknown = set(a) - set(ANIMATION_KEYS)
    if unknown:
        raise StepProblem(
            "animation", f"unknown key {sorted(unknown)[0]!r} in animation (keys: {', '.join(ANIMATION_KEYS)})"
        )
    try:
        state = _animation_state(a)
    except ProblemError as exc:
        raise StepProblem("animation", str(exc)) from None
    if state.versus is not None:
        raise StepProblem("animation", 'versus is for a side-by-side step: view = "side"')
    return {"animation": state}


def _side(d: Mapping, common: CommonFields) -> StepFields:
    a = d.get("animation")
    if not isinstance(a, dict) or "versus" not in a:
        raise StepProblem(
            "animation",
            'a side-by-side step needs animation = { variant = "gpu-naive", mnk = "64", tile = 16, '
            'versus = { variant = "gpu-tiled", tile = 16 } }',
        )
    unknown = set(a) - set(ANIMATION_KEYS)
    if unknown:
        raise StepProblem(
            "animation", f"unknown key {sorted(unknown)[0]!r} in animation (keys: {', '.join(ANIMATION_KEYS)})"
        )
    try:
        return {"animation": _animation_state(a)}
    except ProblemError as exc:
        raise StepProblem("animation", str(exc)) from None


for _kind in (
    LessonViewKind("chart", ("chart", "at", "baseline"), _chart, shows_results=True),
    LessonViewKind("animation", ("animation",), _animation),
    LessonViewKind("roofline", shows_results=True),
    LessonViewKind("hardware", ("chart",), _hardware, shows_results=True),
    LessonViewKind("table", ("baseline", "beside"), _table, shows_results=True),
    LessonViewKind("text", has_view=False),
    LessonViewKind("accesses", ("chart",), _accesses),
    LessonViewKind("gap", (), _gap),  # the gap between two kernels, explained (ui/lesson/views.py draws it)
    # the animation with its kernel's code beside it, the lines of each step highlighted as it is reached
    LessonViewKind("code", ("animation",), _animation),
    # two kernels' blocks in lockstep (naive vs tiled, TILE 16 vs 32), each with its counters
    LessonViewKind("side", ("animation",), _side),
):
    register(_kind)
