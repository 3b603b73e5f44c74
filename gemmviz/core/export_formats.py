"""The file formats gemmviz exports, as small registered classes (pyqtgraph's `Exporter.register()`).

A format says what it writes (a chart or an animation), its suffix, its name in a file dialog and what it
needs beyond gemmviz. The CLI's options, their help and the dialogs' file filters list what is registered, so a
new format is one class here (or a subclass anywhere) and the code that writes it. Qt-free, so the CLI lists
the formats without loading Qt: the ui gives a format its writer by registering a subclass with a `write`
method under the same name, which replaces the description it extends.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from gemmviz.core.catalogue import QT_TRANSLATE_NOOP
from gemmviz.core.registry import Registry

CHART = "chart"
ANIMATION = "animation"
TRACE = "trace"  # block traces and the Hopper pipeline, for trace viewers (`gemmviz export --chart trace`)
TARGETS = (CHART, ANIMATION, TRACE)


class ExportFormat:
    """One format. Subclass it, set the class attributes and decorate the class with `@register`."""

    name: ClassVar[str]  # unique per target: "png", "svg", "gif", ...
    target: ClassVar[str]  # CHART or ANIMATION
    suffix: ClassVar[str]  # ".png"; "" for a folder of files
    aliases: ClassVar[tuple[str, ...]] = ()  # other suffixes it is written as: ".jpeg" beside ".jpg", ".tif"
    title: ClassVar[str]  # as a file dialog lists it: "PNG image", marked for the catalogue (the ui translates it)
    needs: ClassVar[str] = ""  # a program it runs, e.g. "ffmpeg"

    @classmethod
    def file_filter(cls, title: str | None = None) -> str:
        """Its entry in a Qt file dialog's filter, "PNG image (*.png)", with `title` (its translation) in place
        of its own where given; a folder takes any name."""
        return f"{title or cls.title} ({' '.join('*' + s for s in all_suffixes(cls))})"

    @classmethod
    def write(cls, *args, **kwargs):
        """Write it (the ui's subclass does: one module of ui/export/formats/)."""
        raise NotImplementedError(f"{cls.title}: no writer is registered (import gemmviz.ui.export.formats)")


# (target, name) -> format; the ui's subclass (its writer) replaces core's description in its place
_REGISTRY: Registry[tuple[str, str], type[ExportFormat]] = Registry(
    "export format", key=lambda cls: (cls.target, cls.name), replaces=True
)


def register(cls: type[ExportFormat]) -> type[ExportFormat]:
    """Add a format (a class decorator). A subclass of a registered format, under its name, replaces it (the
    ui's writer extending core's description); any other clash of name or suffix within a target is refused."""
    for attr in ("name", "target", "suffix", "title"):
        if not isinstance(getattr(cls, attr, None), str):
            raise TypeError(f"{cls.__name__}: an export format needs {attr} (a str)")
    if cls.target not in TARGETS:
        raise ValueError(f"{cls.__name__}: target must be one of {', '.join(TARGETS)}, got {cls.target!r}")
    if not isinstance(cls.aliases, tuple) or (cls.aliases and not cls.suffix):
        raise TypeError(f"{cls.__name__}: aliases are a tuple of the other suffixes a file format is written as")
    for suffix in all_suffixes(cls):
        if not isinstance(suffix, str) or not suffix.startswith(".") or suffix != suffix.lower():
            raise ValueError(f"{cls.__name__}: a suffix must be lower case and start with a dot, got {suffix!r}")
    for other in formats(cls.target):
        if other.name == cls.name:
            continue
        clash = set(all_suffixes(other)) & set(all_suffixes(cls)) or (not other.suffix and not cls.suffix)
        if clash:
            written = " and ".join(sorted(clash)) if isinstance(clash, set) else "a folder"
            raise ValueError(f"{cls.__name__}: {other.name} already writes {cls.target}s as {written}")
    return _REGISTRY.add(cls)


def unregister(cls: type[ExportFormat]) -> None:
    """Remove a format (for tests and plug-ins); a subclass that replaced its base puts the base back."""
    _REGISTRY.remove(cls)


def formats(target: str) -> list[type[ExportFormat]]:
    """The formats registered for `target`, in the order they were first registered."""
    return [cls for (t, _name), cls in _REGISTRY.items() if t == target]


def get(target: str, name: str) -> type[ExportFormat]:
    try:
        return _REGISTRY[(target, name)]
    except KeyError:
        known = ", ".join(cls.name for cls in formats(target))
        raise KeyError(f"no {target} format called {name!r} (known: {known})") from None


def all_suffixes(cls: type[ExportFormat]) -> tuple[str, ...]:
    """A format's suffixes, its own first, then its aliases; () for a folder."""
    return (cls.suffix, *cls.aliases) if cls.suffix else ()


def suffixes(target: str) -> tuple[str, ...]:
    """The file suffixes `target` can be written as, aliases included (folders, which take any name, left out)."""
    return tuple(s for cls in formats(target) for s in all_suffixes(cls))


def file_filter(target: str, translate: Callable[[str], str] = str) -> str:
    """A Qt file dialog's filter listing every format of `target`: "PNG image (*.png);;SVG drawing (*.svg)",
    each title through `translate` (the window's tr())."""
    return ";;".join(cls.file_filter(translate(cls.title)) for cls in formats(target))


def for_path(target: str, path: str | Path) -> type[ExportFormat]:
    """The format a path's suffix asks for (case-insensitive); a path without a registered suffix is the folder
    format where `target` has one. ValueError names the suffixes otherwise."""
    suffix = Path(path).suffix.lower()
    for cls in formats(target):
        if suffix in all_suffixes(cls):
            return cls
    folder = [cls for cls in formats(target) if not cls.suffix]
    if folder:
        return folder[0]
    raise ValueError(f"{path}: a {target} is written as {' or '.join(suffixes(target))}")


def describe(target: str) -> str:
    """For a command's help: "out.png (PNG image) or out.svg (SVG drawing)"."""
    return " or ".join(
        f"out{cls.suffix} ({cls.title}{', needs ' + cls.needs if cls.needs else ''})"
        for cls in formats(target)
        if cls.suffix
    )


@register
class Png(ExportFormat):
    name = "png"
    target = CHART
    suffix = ".png"
    title = QT_TRANSLATE_NOOP("", "PNG image")


@register
class Svg(ExportFormat):
    name = "svg"
    target = CHART
    suffix = ".svg"
    title = QT_TRANSLATE_NOOP("", "SVG drawing")


@register
class Jpeg(ExportFormat):
    name = "jpeg"
    target = CHART
    suffix = ".jpg"
    aliases = (".jpeg",)
    title = QT_TRANSLATE_NOOP("", "JPEG image")


@register
class Webp(ExportFormat):
    name = "webp"
    target = CHART
    suffix = ".webp"
    title = QT_TRANSLATE_NOOP("", "WebP image")


@register
class Gif(ExportFormat):
    name = "gif"
    target = ANIMATION
    suffix = ".gif"
    title = QT_TRANSLATE_NOOP("", "Animated GIF")


@register
class Mp4(ExportFormat):
    name = "mp4"
    target = ANIMATION
    suffix = ".mp4"
    title = QT_TRANSLATE_NOOP("", "MP4 video")
    needs = "ffmpeg"


@register
class PngFrames(ExportFormat):
    name = "frames"
    target = ANIMATION
    suffix = ""
    title = QT_TRANSLATE_NOOP("", "PNG frames (folder)")

    @classmethod
    def file_filter(cls, title: str | None = None) -> str:
        return f"{title or cls.title} (*)"


@register
class ChromeTrace(ExportFormat):
    """The Chrome Trace Event format (JSON), which Perfetto and chrome://tracing open (core/hardware/chrome_trace.py
    makes the document)."""

    name = "chrome-trace"
    target = TRACE
    suffix = ".json"
    title = QT_TRANSLATE_NOOP("", "Chrome trace for Perfetto")
