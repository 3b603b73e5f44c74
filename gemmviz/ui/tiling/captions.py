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
        (
            rf"^k-tile (?P<i>\d+)/(?P<n>\d+): load A\[(?P<a>{_R})\] and B\[(?P<b>{_R})\] into shared memory "
            r"\((?P<loads>\d+) global loads, (?P<pad>\d+) zero-padded\)$",
            QT_TRANSLATE_NOOP(
                "",
                "k-tile {i}/{n}: load A[{a}] and B[{b}] into shared memory ({loads} global loads, {pad} zero-padded)",
            ),
        ),
        (
            rf"^k-tile (?P<i>\d+)/(?P<n>\d+): load A\[(?P<a>{_R})\] and B\[(?P<b>{_R})\] into shared memory "
            r"\((?P<loads>\d+) global loads\)$",
            QT_TRANSLATE_NOOP("", "k-tile {i}/{n}: load A[{a}] and B[{b}] into shared memory ({loads} global loads)"),
        ),
        (
            r"^__syncthreads\(\): both tiles are in shared memory$",
            QT_TRANSLATE_NOOP("", "__syncthreads(): both tiles are in shared memory"),
        ),
        (
            r"^each of (?P<threads>\d+) threads does (?P<t>\d+) multiply-adds from shared memory "
            r"\(k = (?P<k0>\d+)…(?P<k1>\d+)\)$",
            QT_TRANSLATE_NOOP(
                "", "each of {threads} threads does {t} multiply-adds from shared memory (k = {k0}…{k1})"
            ),
        ),
        (
            r"^__syncthreads\(\): done with these tiles before they are overwritten$",
            QT_TRANSLATE_NOOP("", "__syncthreads(): done with these tiles before they are overwritten"),
        ),
        (
            rf"^store the C tile \[(?P<c>{_R})\] \((?P<n>\d+) global stores\)$",
            QT_TRANSLATE_NOOP("", "store the C tile [{c}] ({n} global stores)"),
        ),
        (
            rf"^k-tile (?P<i>\d+)/(?P<n>\d+): load A\[(?P<a>{_R})\] and B\[(?P<b>{_R})\] into shared memory: "
            r"(?P<per>\d+) values per thread \(run zero-padded: (?P<padded>[^)]+)\)$",
            QT_TRANSLATE_NOOP(
                "",
                "k-tile {i}/{n}: load A[{a}] and B[{b}] into shared memory: {per} values per thread (run "
                "zero-padded: {padded})",
            ),
        ),
        (
            rf"^k-tile (?P<i>\d+)/(?P<n>\d+): load A\[(?P<a>{_R})\] \((?P<ash>[^)]+)\) and B\[(?P<b>{_R})\] "
            r"\((?P<bsh>[^)]+)\) into shared memory: (?P<per>\d+) values per thread$",
            QT_TRANSLATE_NOOP(
                "", "k-tile {i}/{n}: load A[{a}] ({ash}) and B[{b}] ({bsh}) into shared memory: {per} values per thread"
            ),
        ),
        (
            r"^for each of (?P<bk>\d+) k: every thread copies (?P<tm>\d+) values of A and (?P<tn>\d+) of B from shared "
            r"memory into registers and does (?P<prod>\d+×\d+ = \d+) multiply-adds from registers$",
            QT_TRANSLATE_NOOP(
                "",
                "for each of {bk} k: every thread copies {tm} values of A and {tn} of B from shared "
                "memory into registers and does {prod} multiply-adds from registers",
            ),
        ),
        (
            rf"^each thread stores its (?P<tile>\d+×\d+) register tile: C\[(?P<c>{_R})\] \((?P<n>\d+) global stores\)$",
            QT_TRANSLATE_NOOP("", "each thread stores its {tile} register tile: C[{c}] ({n} global stores)"),
        ),
        (
            r"^k (?P<k0>\d+)…(?P<k1>\d+): each of (?P<active>\d+) threads reads (?P<w>\d+) of its A row and "
            r"(?P<w2>\d+) of its B column from global memory \((?P<loads>\d+) loads, no reuse\)$",
            QT_TRANSLATE_NOOP(
                "",
                "k {k0}…{k1}: each of {active} threads reads {w} of its A row and {w2} of its B "
                "column from global memory ({loads} loads, no reuse)",
            ),
        ),
        (
            rf"^store C\[(?P<c>{_R})\] \((?P<n>\d+) global stores\)$",
            QT_TRANSLATE_NOOP("", "store C[{c}] ({n} global stores)"),
        ),
        # the seed's bounds check (bounds = "or", core/schedule.py's store_step)
        (
            rf"^store the C tile \[(?P<c>{_R})\] under row < M \|\| col < N: (?P<n>\d+) right, "
            r"(?P<w>\d+) wrong writes \((?P<i>\d+) over other cells of C, (?P<o>\d+) past its end\)$",
            QT_TRANSLATE_NOOP(
                "",
                "store the C tile [{c}] under row < M || col < N: {n} right, {w} wrong writes "
                "({i} over other cells of C, {o} past its end)",
            ),
        ),
        (
            rf"^store C\[(?P<c>{_R})\] under row < M \|\| col < N: (?P<n>\d+) right, "
            r"(?P<w>\d+) wrong writes \((?P<i>\d+) over other cells of C, (?P<o>\d+) past its end\)$",
            QT_TRANSLATE_NOOP(
                "",
                "store C[{c}] under row < M || col < N: {n} right, {w} wrong writes "
                "({i} over other cells of C, {o} past its end)",
            ),
        ),
        # the Hopper kernel's steps (core/schedule_kind_hopper.py)
        (
            r"^producer thread, k-step (?P<k>\d+)/(?P<n>\d+): waits on empty\[(?P<st>\d+)\] — a fresh barrier passes at "
            r"once \(the ring is filling\)$",
            QT_TRANSLATE_NOOP(
                "",
                "producer thread, k-step {k}/{n}: waits on empty[{st}] — a fresh barrier passes at once "
                "(the ring is filling)",
            ),
        ),
        (
            r"^producer thread, k-step (?P<k>\d+)/(?P<n>\d+): waits on empty\[(?P<st>\d+)\] — already released by the "
            r"consumers \(k-step (?P<done>\d+) is done\), passes$",
            QT_TRANSLATE_NOOP(
                "",
                "producer thread, k-step {k}/{n}: waits on empty[{st}] — already released by the "
                "consumers (k-step {done} is done), passes",
            ),
        ),
        (
            r"^producer thread, k-step (?P<k>\d+)/(?P<n>\d+): waits on empty\[(?P<st>\d+)\] — the ring is full, it "
            r"sleeps until the consumers release stage (?P<st2>\d+)$",
            QT_TRANSLATE_NOOP(
                "",
                "producer thread, k-step {k}/{n}: waits on empty[{st}] — the ring is full, it sleeps "
                "until the consumers release stage {st2}",
            ),
        ),
        (
            rf"^producer thread: expect_tx\(full\[(?P<st>\d+)\], (?P<bytes>[\d,]+) bytes\), then one TMA copy each for "
            rf"(?P<share>the A tile|its half of the A tile \(multicast to both blocks of the cluster\)) A\[(?P<a>{_R})\] "
            rf"and the B tile B\[(?P<b>{_R})\] into stage (?P<st2>\d+): whole tiles, no other thread helps "
            r"\((?P<zero>[\d,]+) values outside the matrix: zero-filled\)$",
            QT_TRANSLATE_NOOP(
                "",
                "producer thread: expect_tx(full[{st}], {bytes} bytes), then one TMA copy each for "
                "{share} A[{a}] and the B tile B[{b}] into stage {st2}: whole tiles, no other thread "
                "helps ({zero} values outside the matrix: zero-filled)",
            ),
        ),
        (
            rf"^producer thread: expect_tx\(full\[(?P<st>\d+)\], (?P<bytes>[\d,]+) bytes\), then one TMA copy each for "
            rf"(?P<share>the A tile|its half of the A tile \(multicast to both blocks of the cluster\)) A\[(?P<a>{_R})\] "
            rf"and the B tile B\[(?P<b>{_R})\] into stage (?P<st2>\d+): whole tiles, no other thread helps$",
            QT_TRANSLATE_NOOP(
                "",
                "producer thread: expect_tx(full[{st}], {bytes} bytes), then one TMA copy each for "
                "{share} A[{a}] and the B tile B[{b}] into stage {st2}: whole tiles, no other thread "
                "helps",
            ),
        ),
        (
            r"^producer thread: all (?P<n>\d+) k-steps issued; it waits on the empty barrier of every stage \(the ring "
            r"drains\) so that no consumer arrives on a finished block, then exits$",
            QT_TRANSLATE_NOOP(
                "",
                "producer thread: all {n} k-steps issued; it waits on the empty barrier of every stage "
                "(the ring drains) so that no consumer arrives on a finished block, then exits",
            ),
        ),
        (
            r"^(?P<c>\d+) consumer warpgroups, k-step (?P<k>\d+)/(?P<n>\d+): wait on full\[(?P<st>\d+)\] \(parity "
            r"(?P<par>\d+)\) — the TMA bytes have all landed, the stage is full$",
            QT_TRANSLATE_NOOP(
                "",
                "{c} consumer warpgroups, k-step {k}/{n}: wait on full[{st}] (parity {par}) — the TMA "
                "bytes have all landed, the stage is full",
            ),
        ),
        (
            r"^each consumer warpgroup loads its 32×64 slice of the B tile into registers and issues (?P<g>\d+) wgmma "
            r"(?P<shape>m64n\d+k8) reading the whole (?P<a>\d+×32) A tile from stage (?P<st>\d+): Cᵀ \+= Bᵀ·Aᵀ on the "
            r"tensor cores, (?P<fmas>[\d,]+) multiply-adds$",
            QT_TRANSLATE_NOOP(
                "",
                "each consumer warpgroup loads its 32×64 slice of the B tile into registers and issues "
                "{g} wgmma {shape} reading the whole {a} A tile from stage {st}: Cᵀ += Bᵀ·Aᵀ on the "
                "tensor cores, {fmas} multiply-adds",
            ),
        ),
        (
            r"^consumers: k-step (?P<k>\d+)'s wgmma are complete; each of the (?P<w>\d+) consumer warps arrives on "
            r"empty\[(?P<st>\d+)\] — stage (?P<st2>\d+) may be refilled"
            r"(?P<late> \(one wgmma group was kept in flight, so the release trails by a step\))?$",
            QT_TRANSLATE_NOOP(
                "",
                "consumers: k-step {k}'s wgmma are complete; each of the {w} consumer warps arrives on "
                "empty[{st}] — stage {st2} may be refilled{late}",
            ),
        ),
        (
            rf"^epilogue: each consumer thread stores its accumulators \(read back transposed: wgmma rows are columns of "
            rf"C\) to C\[(?P<c>{_R})\], bounds-checked \((?P<n>[\d,]+) global stores\)$",
            QT_TRANSLATE_NOOP(
                "",
                "epilogue: each consumer thread stores its accumulators (read back transposed: wgmma "
                "rows are columns of C) to C[{c}], bounds-checked ({n} global stores)",
            ),
        ),
    )
)
# phrases a caption's group may hold, translated with it
PHRASES = {
    "the A tile": QT_TRANSLATE_NOOP("", "the A tile"),
    "its half of the A tile (multicast to both blocks of the cluster)":
        QT_TRANSLATE_NOOP("", "its half of the A tile (multicast to both blocks of the cluster)"),
    " (one wgmma group was kept in flight, so the release trails by a step)":
        QT_TRANSLATE_NOOP("", " (one wgmma group was kept in flight, so the release trails by a step)"),
}  # fmt: skip


def caption_words(text: str) -> str:
    """A step caption of core/schedule.py in the window's language (as it is where its form is not listed)."""
    for pattern, template in CAPTIONS:
        m = pattern.match(text)
        if m:
            groups = {k: tr(PHRASES[v]) if v in PHRASES else (v or "") for k, v in m.groupdict().items()}
            return tr(template).format(**groups)
    return text
