"""A paint device that draws nothing and records every text drawn on it: (text, its box in the device's
coordinates), through whatever transformation, picture or chart scene it was drawn. What a test of a page's
layout needs from any drawing code (the handout's pages: slides scaled onto A4, their charts' legends and axes),
without reading a PDF or an image."""

from __future__ import annotations

from PySide6.QtCore import QRectF
from PySide6.QtGui import QPaintDevice, QPaintEngine

Text = tuple[str, QRectF]


class _Engine(QPaintEngine):
    def __init__(self) -> None:
        super().__init__(QPaintEngine.PaintEngineFeature.AllFeatures)
        self.texts: list[Text] = []

    def begin(self, _device) -> bool:
        return True

    def end(self) -> bool:
        return True

    def type(self) -> QPaintEngine.Type:
        return QPaintEngine.Type.Pdf  # drawn as into the handout.pdf: charts in export mode, as vectors

    def updateState(self, _state) -> None:
        pass

    def drawTextItem(self, p, item) -> None:
        box = QRectF(p.x(), p.y() - item.ascent(), item.width(), item.ascent() + item.descent())
        text = item.text().replace("\u2060", "")
        if text.strip():
            self.texts.append((text, self.painter().combinedTransform().mapRect(box)))

    # every other drawing: nothing (the default of a few of them would call back here)
    def drawPixmap(self, *_a) -> None:
        pass

    def drawImage(self, *_a) -> None:
        pass

    def drawTiledPixmap(self, *_a) -> None:
        pass

    def drawPath(self, *_a) -> None:
        pass

    def drawPolygon(self, *_a) -> None:
        pass

    def drawRects(self, *_a) -> None:
        pass

    def drawLines(self, *_a) -> None:
        pass

    def drawEllipse(self, *_a) -> None:
        pass

    def drawPoints(self, *_a) -> None:
        pass


class TextRecorder(QPaintDevice):
    """`width` × `height` pixels at 96 dpi; `texts` after a QPainter on it has ended."""

    def __init__(self, width: int, height: int) -> None:
        super().__init__()
        self.w, self.h = width, height
        self.engine = _Engine()

    @property
    def texts(self) -> list[Text]:
        return self.engine.texts

    def paintEngine(self) -> QPaintEngine:
        return self.engine

    def metric(self, m) -> int:
        M = QPaintDevice.PaintDeviceMetric
        values = {
            M.PdmWidth: self.w,
            M.PdmHeight: self.h,
            M.PdmWidthMM: round(self.w * 25.4 / 96),
            M.PdmHeightMM: round(self.h * 25.4 / 96),
            M.PdmDpiX: 96,
            M.PdmDpiY: 96,
            M.PdmPhysicalDpiX: 96,
            M.PdmPhysicalDpiY: 96,
            M.PdmDepth: 32,
            M.PdmNumColors: 1 << 24,
            M.PdmDevicePixelRatio: 1,
        }
        return values[m] if m in values else super().metric(m)  # the ratio's encoded forms from the ratio
