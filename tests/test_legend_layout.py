"""The legend lays its entries out once per batch and finds how many fit by bisection: the same layout as an
entry at a time, without the quadratic cost (459 relayouts in one 4K dashboard export; issue 35 item 8)."""

import pytest

pytest.importorskip("PySide6")

import pyqtgraph as pg

from gemmviz.ui.charts.axes import SeriesLegend

NAMES = [f"gpu-tiled (tile {t}, a name long enough to wrap) {n}³" for t in (8, 16, 32) for n in (256, 512, 1024, 2048)]


@pytest.fixture
def relayouts(monkeypatch):
    calls = []
    real = SeriesLegend._relayout

    def counted(self):
        calls.append(self)
        real(self)

    monkeypatch.setattr(SeriesLegend, "_relayout", counted)
    return calls


def filled(batched: bool) -> SeriesLegend:
    legend = SeriesLegend()
    legend.setLabelTextSize("14pt")

    def add():
        for i, name in enumerate(NAMES):
            legend.add_entry(pg.PlotDataItem(symbol="o"), name, series=name, hidden=i % 5 == 0)

    if batched:
        with legend.batch():
            add()
    else:
        add()
    return legend


def placement(legend: SeriesLegend):
    return (
        legend.maximumWidth(),
        legend.maximumHeight(),
        legend.capacity,
        legend.columnCount,
        [lab.geometry().getRect() if lab.isVisible() else None for _, lab in legend.items],
    )


def row_at_a_time(self, height_px, start):
    """The former search: a row (per column) fewer at a time until the legend fits."""
    self.capacity = start
    while self.maximumHeight() > height_px and (self.capacity or len(self.items)) > 1:
        self.capacity = (self.capacity or len(self.items)) - self.columnCount
        self._relayout()


def test_a_batch_lays_the_entries_out_once_as_one_at_a_time_would(qapp, relayouts):
    one_by_one = filled(batched=False)
    assert relayouts.count(one_by_one) == len(NAMES)
    batched = filled(batched=True)
    assert relayouts.count(batched) == 1
    assert placement(batched) == placement(one_by_one)


@pytest.mark.parametrize(("height", "width"), [(60, 500), (140, 500), (300, 900), (200, 160), (400, 120), (1000, 300)])
def test_the_fit_finds_as_many_entries_as_a_row_at_a_time_did(qapp, relayouts, monkeypatch, height, width):
    """Bisection over the rows given up, checked against the former search; in fewer layouts."""
    bisected = filled(batched=True)
    relayouts.clear()
    bisected.fit(20, height, width)
    tries = len(relayouts)
    with monkeypatch.context() as m:
        m.setattr(SeriesLegend, "_shrink_to", row_at_a_time)
        stepped = filled(batched=True)
        relayouts.clear()
        stepped.fit(20, height, width)
    assert placement(bisected) == placement(stepped)
    assert tries < len(relayouts) if width < 200 else tries <= len(relayouts)  # names wrapped: many rows off
    assert bisected.maximumHeight() <= height or bisected.capacity <= 1
