"""How numbers read in tables, tooltips, charts, lessons and the CLI, in one place: rates with at least three
significant digits (the CPU loop's 0.452 GFLOP/s, never "0"), figures with significant digits and never an
exponent (51,710 ms, not 5.171e+04), noise as a percentage, measured against model in one wording ("1.9% of
model", "2.5× model"), and the error map of an invalid result as text."""

from __future__ import annotations

import math
import re


def times_text(x: float) -> str:
    """A ratio as charts and lessons write it: 1.53×, 15.3×, 153×, 15,300× (three figures up to 100)."""
    if round(x, 1) >= 100:
        return f"{x:,.0f}×"
    return f"{x:.1f}×" if round(x, 2) >= 10 else f"{x:.2f}×"


def rate(x: float | None, empty: str = "—") -> str:
    """A rate (GFLOP/s, GB/s) with at least three significant digits: 0.452, 4.52, 45.2, 452, 4,520."""
    if x is None or not math.isfinite(x):
        return empty
    # the thresholds are where rounding moves a figure up a decade (0.9997 reads 1.00, never "1")
    if abs(x) >= 99.95:
        return f"{x:,.0f}"
    if abs(x) >= 9.995:
        return f"{x:.1f}"
    if abs(x) >= 0.9995:
        return f"{x:.2f}"
    return f"{x:.3g}"


def sig(x: float | None, digits: int = 4, empty: str = "—") -> str:
    """`x` to `digits` significant digits, with thousands separators and never an exponent, trailing zeros
    dropped as "g" drops them: 0.001234, 0.5, 1.234, 1,234, 51,710 (more integer digits are all kept)."""
    if x is None or not math.isfinite(x):
        return empty
    if x == 0:
        return "0"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(x))))
    text = f"{x:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


_EXPONENT = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?[eE]\+\d+)(?![\w.])")


def plain_figures(text: str) -> str:
    """Prose with its large figures in exponent notation written out ("1.12e+03 s" -> "1,120 s"): messages
    recorded in older sessions, shown in the table."""
    return _EXPONENT.sub(lambda m: sig(float(m.group(1))), text)


def of_model(ratio: float | None, lang: str = "en", empty: str = "—") -> str:
    """Measured over modelled (traffic, bytes): below 1 a share, "1.9% of model"; from 1 a multiple, "2.5×
    model". Chinese: 模型的 1.9%, 模型的 2.5 倍."""
    if ratio is None or not math.isfinite(ratio):
        return empty
    words = WORDS[_check(lang)]
    if ratio < 1:
        return words["of_model"].format(share=percent(ratio))
    times = times_text(ratio)
    return words["times_model"].format(times=times, n=times[:-1])


def percent(x: float | None, empty: str = "—") -> str:
    """A fraction as a percentage: 0.0042 -> '0.42%', 0.12 -> '12%'."""
    if x is None or not math.isfinite(x):
        return empty
    p = 100 * x
    return f"{p:.2g}%" if p < 10 else f"{p:.0f}%"


def error_map_text(error_map: dict | None) -> str:
    """The map of wrong regions of C as rows of text: '█' where a region holds wrong elements, '·' where not."""
    if not error_map:
        return ""
    ch, cw = error_map["cell"]
    rows = ["".join("█" if x else "·" for x in row) for row in error_map["wrong"]]
    return f"regions of C ({ch}×{cw} elements each; █ = wrong elements):\n" + "\n".join(rows)


# ---- figures inside sentences, per language (lesson placeholders, slide tables) -----------------------------
LANGUAGES = ("en", "zh")  # a lesson's and the window's languages; English is the default and the fallback


# Each language's words around a figure: a language more is one entry here (and its message templates).
WORDS: dict[str, dict] = {
    "en": {
        "of_model": "{share} of model",
        "times_model": "{times} model",
        "faster": "{times}",
        "slower": "{n}× slower",
        "count_units": (("billion", 1e9), ("million", 1e6)),  # as Chinese: three digits under ten (4.29 billion)
        "bytes": "{n} bytes",
        "missing": "n/a (not in these results)",
        "time_units": ("s", "ms", "µs"),
    },
    "zh": {
        "of_model": "模型的 {share}",
        "times_model": "模型的 {n} 倍",
        "faster": "{n} 倍",
        "slower": "慢 {n} 倍",
        "count_units": (("万亿", 1e12), ("亿", 1e8), ("万", 1e4)),
        "bytes": "{n} 字节",
        "missing": "暂无（这些结果中没有）",
        "time_units": ("秒", "毫秒", "微秒"),
    },
}


def _check(lang: str) -> str:
    if lang not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, got {lang!r}")
    return lang


def ratio(x: float, lang: str = "en") -> str:
    """How many times faster, as the charts' bars write it (times_text); below 0.1, how many times slower
    (the CPU loop against cuBLAS). Chinese says 倍 inside a sentence: 快 12.0 倍, 慢 16,265 倍."""
    words = WORDS[_check(lang)]
    if x < 0.1:
        return words["slower"].format(n=times_text(1 / x)[:-1])
    times = times_text(x)
    return words["faster"].format(times=times, n=times[:-1])


def count(x: float, lang: str = "en") -> str:
    """A large count (the FLOPs of a product): '137 billion'; in Chinese by 万 (10⁴), 亿 (10⁸) and 万亿 (10¹²),
    as Chinese writes them: '1,374 亿', never '137 billion' inside a Chinese sentence."""
    for unit, size in WORDS[_check(lang)]["count_units"]:
        if x >= size:
            value = x / size
            return f"{value:,.0f} {unit}" if value >= 100 else f"{value:.3g} {unit}"  # three figures, as byte_size
    return f"{x:,.0f}"


def duration(ms: float, lang: str = "en") -> str:
    """Three significant digits, trailing zeros kept (17.0 ms, not 17 ms); µs below 0.1 ms, s from 1 s."""
    s, milli, micro = WORDS[_check(lang)]["time_units"]
    if ms >= 100_000:
        return f"{ms / 1000:,.0f} {s}"
    if ms < 0.1:  # a tiny kernel: microseconds, not 1.00e-04 ms
        return f"{f'{ms * 1000:#.3g}'.rstrip('.')} {micro}"
    value, unit = (ms, milli) if ms < 999.5 else (ms / 1000, s)
    return f"{f'{value:#.3g}'.rstrip('.')} {unit}"


def byte_size(n: float, lang: str = "en") -> str:
    """Bytes in decimal units, three figures: 34.4 GB, 268 MB; GB, MB and kB read the same in Chinese."""
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:,.3g} {unit}"
    return WORDS[_check(lang)]["bytes"].format(n=f"{n:,.0f}")


def missing(lang: str = "en") -> str:
    """What a placeholder reads when the results lack its figure."""
    return WORDS[_check(lang)]["missing"]


def microseconds(us: float, lang: str = "en") -> str:
    """A time in µs at three significant digits, whatever its size (the bars of one chart in one unit): 87.2 µs,
    187 µs, 1,870 µs; negative times keep their sign."""
    return f"{sig(us, 3)} {WORDS[_check(lang)]['time_units'][2]}"
