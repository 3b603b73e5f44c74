"""What a lesson is once read: a `Lesson` of `Step`s, each a title, one to three sentences and one view, and which
results a step shows. Frozen data; the file format is core/lesson/parse.py's."""

from __future__ import annotations

from dataclasses import dataclass, field

from gemmviz.core.lesson.claims import Because
from gemmviz.core.lesson.series import SeriesRef
from gemmviz.core.lesson.views import AnimationState
from gemmviz.core.session.results import Result


@dataclass(frozen=True)
class Step:
    title: str
    text: str
    view: str
    line: int  # where the step starts in its file, for messages
    chart: str = "gflops"
    series: tuple[SeriesRef, ...] = ()
    sizes: tuple[int, ...] = ()  # cube sizes N to keep (empty: all)
    at: int | None = None  # the size of a speedup chart
    baseline: str | None = None  # a Baseline key for speedups
    animation: AnimationState | None = None
    run: bool = False  # on a GPU, run this step's series at its sizes live
    quoted: str = (
        ""  # figures the text quotes from elsewhere, named on the slide's footer ("seed 001, A100, published")
    )
    beside: str = ""  # a table's published session (shipped), its rows above the measured ones, × per doubling
    notes: str = ""  # the speaker's notes: what the teacher says beside the slide (presenter view, handout)
    because: tuple[Because, ...] = ()  # what the slide says is the cause, checked against the recording (claims.py)

    def shows(self, r: Result) -> bool:
        """Whether this step's view shows result r."""
        if self.series and not any(s.matches(r) for s in self.series):
            return False
        return not self.sizes or (r.m == r.n == r.k and r.m in self.sizes)


@dataclass(frozen=True)
class Lesson:
    name: str
    title: str
    summary: str
    session: str | None  # the shipped session it replays when no GPU runs it live
    steps: tuple[Step, ...] = field(default_factory=tuple)
    path: str = ""
    folder: str | None = None  # a lesson file's folder, where its `session` may also be; None for shipped ones
    lang: str = "en"  # the language of its words and of the figures filled into them (core/numbers.LANGUAGES)


def step_results(step: Step, results: list[Result]) -> list[Result]:
    """The results of `results` that the step's view shows."""
    return [r for r in results if step.shows(r)]
