"""Where a lesson's numbers come from (`LessonSource`): a shipped or teacher's session replayed, published figures,
or results measured live; with the line on screen that says so and the slide's footer, as messages in the
window's language."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gemmviz import __version__
from gemmviz.core.fileio import FileMemo
from gemmviz.core.lesson.files import LessonError, lesson_session_path
from gemmviz.core.lesson.model import Lesson
from gemmviz.core.messages import Message, define, msg, render
from gemmviz.core.session.results import Result, Session, SessionError
from gemmviz.core.session.workspace import UNDATED, how_message

# a lesson's data source: the line on screen (its header) and the slide's footer
SOURCE_REPLAYED = define(
    "lesson.source.replayed", en="Replayed: recorded on {gpu}, {date}", zh="回放：录制于 {gpu}，{date}"
)
SOURCE_MEASURED = define("lesson.source.measured", en="Measured on {gpu}, {date}", zh="测量于 {gpu}，{date}")
SOURCE_PUBLISHED = define(
    "lesson.source.published", en="Published figures: {gpu}, {date}", zh="已发表的数据：{gpu}，{date}"
)
SOURCE_LIVE = define("lesson.source.live", en="Live on {gpu}", zh="在 {gpu} 上实时测量")
SOURCE_NONE = define("lesson.source.none", en="No recorded results for this lesson", zh="这个课程没有录制的结果")
FOOTER = define(
    "lesson.footer", en="{gpu}, {date}, {how} · gemmviz {version}", zh="{gpu}，{date}，{how} · gemmviz {version}"
)
FOOTER_NONE = define("lesson.footer.none", en="no results · gemmviz {version}", zh="无结果 · gemmviz {version}")
FOOTER_QUOTED = define("lesson.footer.quoted", en="{footer} · quoted: {quoted}", zh="{footer} · 引用：{quoted}")


@dataclass(frozen=True)
class LessonSource:
    """Where a lesson's numbers come from: the results, the line on screen and the slide footer (messages, said
    in the window's language; `label` and `footer` in English)."""

    results: tuple[Result, ...]
    label_message: Message  # "Replayed: recorded on NVIDIA H200, 2026-11-30" or "Live on NVIDIA H200"
    footer_message: Message  # "NVIDIA H200, 2026-11-30, replayed · gemmviz 0.1.0"
    gpu: str | None  # whose ceilings the roofline draws
    sms: int | None = None  # the GPU's SM count: the rows of an sm-trace view
    how: str | None = None  # "measured" (here, now), "replayed" (a recording) or "published"; None: no results

    @property
    def label(self) -> str:
        return render(self.label_message, "en")

    @property
    def footer(self) -> str:
        return render(self.footer_message, "en")


NO_DATA = LessonSource((), msg(SOURCE_NONE), msg(FOOTER_NONE, version=__version__), None)


def _session_gpu(session: Session) -> str | None:
    cuda = session.environment.get("backends", {}).get("cuda", {})
    gpu = cuda.get("name") if cuda.get("available") else session.environment.get("gpu")
    return gpu if isinstance(gpu, str) else None


def session_source(session: Session, replay: bool = True) -> LessonSource:
    """A session's results as a lesson source: published figures, or measured ones replayed here."""
    gpu = _session_gpu(session) or session.environment.get("cpu") or "an unknown machine"
    date = (session.created or "")[:10] or msg(UNDATED)
    if session.kind == "published":
        how = "published"
    else:
        how = "replayed" if replay else "measured"
    label = {"published": SOURCE_PUBLISHED, "replayed": SOURCE_REPLAYED, "measured": SOURCE_MEASURED}[how]
    sms = session.environment.get("backends", {}).get("cuda", {}).get("sms")
    return LessonSource(
        tuple(session.results),
        msg(label, gpu=gpu, date=date),
        msg(FOOTER, gpu=gpu, date=date, how=how_message(how), version=__version__),
        _session_gpu(session),
        sms if isinstance(sms, int) else None,
        how,
    )


def live_source(results: list[Result], gpu: str, date: str) -> LessonSource:
    """Results measured in this run on this machine's GPU."""
    return LessonSource(
        tuple(results),
        msg(SOURCE_LIVE, gpu=gpu),
        msg(FOOTER, gpu=gpu, date=date, how=how_message("measured"), version=__version__),
        gpu,
        how="measured",
    )


# the lesson sources read from session files, while the files stay the same (path, time, size): a lesson started in
# the window, its presenter, its export and every test's lesson read and checked the whole session again (0.16 s
# each). A LessonSource is frozen and nothing writes to the results it holds.
_SESSIONS = FileMemo(size=8)


def lesson_session(lesson: Lesson, override: str | Path | None = None) -> LessonSource | None:
    """The session a lesson replays (`override`, else the shipped file it names); None if it names none.

    LessonError if the file cannot be read."""
    if override is None and not lesson.session:
        return None
    path = (
        Path(override)
        if override is not None
        else lesson_session_path(lesson.session or "", lesson.path, lesson.folder)
    )
    try:
        source: LessonSource = _SESSIONS.get([path], lambda: session_source(Session.load(path), replay=True))
        return source
    except SessionError as exc:
        where = "" if override is not None else f"{lesson.path}: session {lesson.session!r}: "
        raise LessonError(f"{where}{exc}") from None
