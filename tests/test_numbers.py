"""One formatting module (core/numbers.py, issue 20): figures never in exponent notation, measured against
model in one wording, and the table, the comparison, the tooltips, the traffic chart and the explanations
using them."""

import re

import pytest

from gemmviz.core.charts.explain import row_text
from gemmviz.core.hardware.counters import LevelRow
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.numbers import of_model, percent, sig
from gemmviz.core.paths import asset_path
from gemmviz.core.session.results import Result, Session

EXPONENT = re.compile(r"\d[eE]\+?\d")  # a large figure as 5.171e+04 (a relative error of 1.2e-07 reads as it is)


def make(variant: str, ms: list[float], n: int = 4096) -> Result:
    return Result(
        variant=variant,
        params={},
        m=n,
        n=n,
        k=n,
        backend=VARIANTS[variant].backend,
        precision="fp32",
        valid=True,
        status="ok",
        samples_ms=ms,
        rel_error=1e-7,
    )


@pytest.mark.parametrize(
    "x,digits,text",
    [
        (51710.3, 4, "51,710"),
        (5171.03, 4, "5,171"),
        (12.3456, 4, "12.35"),
        (0.0123456, 4, "0.01235"),
        (0.5, 4, "0.5"),
        (1e-7, 4, "0.0000001"),
        (0.0, 4, "0"),
        (123456789.0, 4, "123,456,789"),
        (1e6, 1, "1,000,000"),
        (0.01, 1, "0.01"),
        (128.4, 2, "128"),
        (None, 4, "—"),
        (float("nan"), 4, "—"),
        (float("inf"), 4, "—"),
    ],
)
def test_sig_has_significant_digits_and_no_exponent(x, digits, text):
    assert sig(x, digits) == text


@pytest.mark.parametrize(
    "ratio,en,zh",
    [
        (0.019, "1.9% of model", "模型的 1.9%"),
        (0.0155, "1.6% of model", "模型的 1.6%"),
        (0.5, "50% of model", "模型的 50%"),
        (1.0, "1.00× model", "模型的 1.00 倍"),
        (2.5, "2.50× model", "模型的 2.50 倍"),
        (1234.0, "1,234× model", "模型的 1,234 倍"),
    ],
)
def test_measured_against_model_reads_one_way(ratio, en, zh):
    assert of_model(ratio) == en and of_model(ratio, "zh") == zh


def test_explanations_and_traffic_labels_use_that_wording(qapp):
    from gemmviz.ui.hardware.traffic import ratio_label

    row = LevelRow("DRAM", "bytes read", "byte", 550e9, 8.5e9)
    assert row_text(row).endswith(f"({of_model(8.5e9 / 550e9)})") and "the model)" not in row_text(row)
    assert of_model(8.5e9 / 550e9, "zh") in row_text(row, "zh")
    assert ratio_label(10.4e9, 550e9) == f"{percent(10.4e9 / 550e9)}\nof model"  # was "1.9%" beside "0.5× model"
    assert ratio_label(275e9, 550e9) == "50%\nof model"
    assert ratio_label(1.1e12, 550e9) == "2.00×\nmodel"


def test_no_exponent_in_the_table_the_comparison_or_the_tooltips(qapp):
    from gemmviz.ui.charts.base import _tip
    from gemmviz.ui.charts.compare import ComparePanel
    from gemmviz.ui.charts.table import ResultsTable, timing_text

    session = Session.load(asset_path("sessions", "h200-2026-12-01.json"))
    slow = make("cpu-naive", [51710.3, 51800.0, 51690.0])  # 52 s: ".4g" wrote it 5.171e+04
    results = [*session.results, slow]
    table = ResultsTable()
    table.set_results(results)
    model = table.model()
    cells = [str(model.index(r, c).data()) for r in range(model.rowCount()) for c in range(model.columnCount())]
    assert [c for c in cells if EXPONENT.search(c)] == [] and "51,710" in cells
    assert EXPONENT.search(_tip(slow, "")) is None and "51,710" in _tip(slow, "")
    assert EXPONENT.search(timing_text(slow)) is None
    panel = ComparePanel()
    panel.set_results(results, lambda r: "live" if r is slow else "h200")
    grid = panel.table
    texts = [
        grid.item(r, c).text() for r in range(grid.rowCount()) for c in range(grid.columnCount()) if grid.item(r, c)
    ]
    assert "51,710" in texts and not [t for t in texts if EXPONENT.search(t)]


def test_recorded_messages_lose_their_exponents():
    from gemmviz.core.numbers import plain_figures

    text = "cpu-naive at 8192³ would take at least 1.12e+03 s (3 runs; limit 60 s); 1.2e-07 stays"
    assert plain_figures(text) == "cpu-naive at 8192³ would take at least 1,120 s (3 runs; limit 60 s); 1.2e-07 stays"
    assert plain_figures("5.171e+04 ms, v1.2e+3x") == "51,710 ms, v1.2e+3x"  # inside a word: left as it is


def test_rates_just_under_a_decade_keep_three_digits():
    from gemmviz.core.numbers import rate

    assert [rate(x) for x in (0.99971, 0.9994, 9.9971, 99.97, 0.0012345)] == ["1.00", "0.999", "10.0", "100", "0.00123"]
