"""Colours and sizes. Okabe–Ito colour-blind-safe palette everywhere; projector mode scales fonts and lines."""

from __future__ import annotations

from dataclasses import dataclass, replace

OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
# On white, Okabe–Ito's pale yellow is lost on a projector: the light themes take Tol's wine in its place.
LIGHT_PALETTE = (*OKABE_ITO[:6], "#882255", OKABE_ITO[7])


@dataclass(frozen=True)
class Theme:
    name: str = "light"
    background: str = "#FFFFFF"
    foreground: str = "#202020"
    grid_alpha: float = 0.25
    font_pt: int = 10
    line_px: float = 2.0
    symbol_px: int = 8
    palette: tuple[str, ...] = LIGHT_PALETTE

    def color(self, index: int) -> str:
        return self.palette[index % len(self.palette)]

    def scaled(self, factor: float) -> Theme:
        """The same look at another resolution: fonts, lines and symbols grow with the pixel size."""
        return replace(
            self,
            font_pt=max(1, round(self.font_pt * factor)),
            line_px=self.line_px * factor,
            symbol_px=max(1, round(self.symbol_px * factor)),
        )


def theme_for(projector: bool = False, dark: bool = False) -> Theme:
    if dark:
        return (
            PROJECTOR_DARK if projector else replace(PROJECTOR_DARK, name="dark", font_pt=10, line_px=2.0, symbol_px=8)
        )
    return PROJECTOR_LIGHT if projector else LIGHT


LIGHT = Theme()
PROJECTOR_LIGHT = Theme(name="projector-light", font_pt=20, line_px=4.0, symbol_px=14)
PROJECTOR_DARK = Theme(
    name="projector-dark",
    background="#101010",
    foreground="#F0F0F0",
    font_pt=20,
    line_px=4.0,
    symbol_px=14,
    palette=("#56B4E9", "#E69F00", "#009E73", "#F0E442", "#CC79A7", "#D55E00", "#0072B2", "#FFFFFF"),
)
