"""The animation's step captions in the window's language. core/schedule.py writes each step in English, with
its figures in it (the same words for the model, the CLI and the tests); each form is matched here and put
through the catalogue with its figures as they are. A caption of a form not listed stays English (a test
holds every form the schedules make to a translation)."""

from __future__ import annotations

import re

from gemmviz.ui.text import QT_TRANSLATE_NOOP, tr

_R = r"[^\]]+"  # a slice inside [ ]: "0:16, 16:32"
CAPTIONS: tuple[tuple[re.Pattern, str], ...] = tuple(
    (re.compile(pattern), template)
    for pattern, template in (
        (rf"^k-tile (?P<i>\d+)/(?P<n>\d+): load A\[(?P<a>{_R})\] and B\[(?P<b>{_R})\] into shared memory "
         r"\((?P<loads>\d+) global loads, (?P<pad>\d+) zero-padded\)$",
         QT_TRANSLATE_NOOP("", "k-tile {i}/{n}: load A[{a}] and B[{b}] into shared memory ({loads} global loads, "
                               "{pad} zero-padded)")),
        (rf"^k-tile (?P<i>\d+)/(?P<n>\d+): load A\[(?P<a>{_R})\] and B\[(?P<b>{_R})\] into shared memory "
         r"\((?P<loads>\d+) global loads\)$",
         QT_TRANSLATE_NOOP("", "k-tile {i}/{n}: load A[{a}] and B[{b}] into shared memory ({loads} global loads)")),
        (r"^__syncthreads\(\): both tiles are in shared memory$",
         QT_TRANSLATE_NOOP("", "__syncthreads(): both tiles are in shared memory")),
        (r"^each of (?P<threads>\d+) threads does (?P<t>\d+) multiply-adds from shared memory "
         r"\(k = (?P<k0>\d+)…(?P<k1>\d+)\)$",
         QT_TRANSLATE_NOOP("", "each of {threads} threads does {t} multiply-adds from shared memory (k = {k0}…{k1})")),
        (r"^__syncthreads\(\): done with these tiles before they are overwritten$",
         QT_TRANSLATE_NOOP("", "__syncthreads(): done with these tiles before they are overwritten")),
        (rf"^store the C tile \[(?P<c>{_R})\] \((?P<n>\d+) global stores\)$",
         QT_TRANSLATE_NOOP("", "store the C tile [{c}] ({n} global stores)")),
        (rf"^k-tile (?P<i>\d+)/(?P<n>\d+): load A\[(?P<a>{_R})\] \((?P<ash>[^)]+)\) and B\[(?P<b>{_R})\] "
         r"\((?P<bsh>[^)]+)\) into shared memory: (?P<per>\d+) values per thread "
         r"\(the kernel runs the zero-padded (?P<padded>[^)]+)\)$",
         QT_TRANSLATE_NOOP("", "k-tile {i}/{n}: load A[{a}] ({ash}) and B[{b}] ({bsh}) into shared memory: {per} "
                               "values per thread (the kernel runs the zero-padded {padded})")),
        (rf"^k-tile (?P<i>\d+)/(?P<n>\d+): load A\[(?P<a>{_R})\] \((?P<ash>[^)]+)\) and B\[(?P<b>{_R})\] "
         r"\((?P<bsh>[^)]+)\) into shared memory: (?P<per>\d+) values per thread$",
         QT_TRANSLATE_NOOP("", "k-tile {i}/{n}: load A[{a}] ({ash}) and B[{b}] ({bsh}) into shared memory: {per} "
                               "values per thread")),
        (r"^for each of (?P<bk>\d+) k: every thread copies (?P<tm>\d+) values of A and (?P<tn>\d+) of B from shared "
         r"memory into registers and does (?P<prod>\d+×\d+ = \d+) multiply-adds from registers$",
         QT_TRANSLATE_NOOP("", "for each of {bk} k: every thread copies {tm} values of A and {tn} of B from shared "
                               "memory into registers and does {prod} multiply-adds from registers")),
        (rf"^each thread stores its (?P<tile>\d+×\d+) register tile: C\[(?P<c>{_R})\] \((?P<n>\d+) global stores\)$",
         QT_TRANSLATE_NOOP("", "each thread stores its {tile} register tile: C[{c}] ({n} global stores)")),
        (r"^k (?P<k0>\d+)…(?P<k1>\d+): each of (?P<active>\d+) threads reads (?P<w>\d+) of its A row and "
         r"(?P<w2>\d+) of its B column from global memory \((?P<loads>\d+) loads, no reuse\)$",
         QT_TRANSLATE_NOOP("", "k {k0}…{k1}: each of {active} threads reads {w} of its A row and {w2} of its B "
                               "column from global memory ({loads} loads, no reuse)")),
        (rf"^store C\[(?P<c>{_R})\] \((?P<n>\d+) global stores\)$",
         QT_TRANSLATE_NOOP("", "store C[{c}] ({n} global stores)")),
    )
)  # fmt: skip


def caption_words(text: str) -> str:
    """A step caption of core/schedule.py in the window's language (as it is where its form is not listed)."""
    for pattern, template in CAPTIONS:
        m = pattern.match(text)
        if m:
            return tr(template).format(**m.groupdict())
    return text
