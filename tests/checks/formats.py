"""Checks over the export formats registered when called (core/export_formats.py, ui/export/formats/)."""

from __future__ import annotations

from gemmviz.core import export_formats


def titles_without_translation(app, lang: str = "zh") -> list[str]:
    """The registered formats' titles (as a file dialog lists them) the window's catalogue does not translate
    into `lang`: a new format's title needs its line in tools/zh_CN.py and `python tools/catalogue.py`."""
    from gemmviz.ui import i18n
    from gemmviz.ui.text import tr

    assert i18n.install(app, lang)
    try:
        titles = [cls.title for target in export_formats.TARGETS for cls in export_formats.formats(target)]
        return [t for t in titles if tr(t) == t]
    finally:
        i18n.install(app, "en")


def image_round_trip(fmt, width: int = 64, height: int = 36) -> None:
    """An ImageFormat's encoder over a small drawn image: Qt reads back an image of its size."""
    from PySide6.QtCore import QByteArray
    from PySide6.QtGui import QColor, QImage

    from gemmviz.ui.export.exporters import image_bytes

    image = QImage(width, height, QImage.Format.Format_ARGB32)
    image.fill(QColor("#3070b0"))
    data = image_bytes(image, fmt.qt_format, fmt.quality, fmt.options)
    back = QImage.fromData(QByteArray(data))
    assert not back.isNull() and (back.width(), back.height()) == (width, height), fmt.name
