"""The bars the gap views draw: a decomposition (core/hardware/gap_parts.py) with its cancelling stall bars netted
into one, its parts too small to read on their own folded into one, or its stall bars merged to fit a small chart.
The same measured parts, the same sum: every function returns a Gap whose bars add up to the one it was given.
No Qt."""

from __future__ import annotations

from gemmviz.core.hardware.gap_parts import Gap, Line, Part

SMALL_SHARE = 0.01  # the gap-scale threshold: a bar of its own is at least 1% of the reference kernel's time


CANCELLING = 0.5  # stall bars are netted into one where what they sum to is under half of their sizes' sum


def net_stalls(g: Gap, cancelling: float = CANCELLING) -> Gap:
    """`g` with its stall-reason bars (and "other stalls") netted into one, "stall mix", where they mostly cancel:
    their sum under `cancelling` of the sum of their sizes. Two kernels that stall as long in all but for other
    reasons (a barrier against a fixed-latency wait) otherwise draw bars of several times the gap in opposite
    directions; the one bar shows what the shift costs, and its sentence names the largest bar each way and how
    much the reasons moved between them. The sum of the bars is unchanged."""
    stalls = [p for p in g.parts if p.name.startswith("stall:") or p.name == "stalls_rest"]
    if len(stalls) < 2:
        return g
    net, gross = sum(p.ns for p in stalls), sum(abs(p.ns) for p in stalls)
    ups, downs = [p for p in stalls if p.ns > 0], [p for p in stalls if p.ns < 0]
    if not ups or not downs or abs(net) >= cancelling * gross:
        return g
    up, down = max(ups, key=lambda p: p.ns), min(downs, key=lambda p: p.ns)
    params = {
        "share": net / g.gap_ns if g.gap_ns else 0.0,
        "moved": sum(p.ns for p in ups) / 1e3,
        "net": net / 1e3,
        "up": {"key": up.label.key, "params": up.label.params},
        "upv": up.ns / 1e3,
        "down": {"key": down.label.key, "params": down.label.params},
        "downv": down.ns / 1e3,
    }
    mix = Part("stall_mix", net, Line("gap.label.stall_mix"), Line("gap.part.stall_mix", params))
    at = g.parts.index(stalls[0])
    parts = (*(p for p in g.parts[:at] if p not in stalls), mix, *(p for p in g.parts[at:] if p not in stalls))
    return Gap(g.a, g.b, g.ta_ns, g.tb_ns, g.timing, parts, g.headline, g.notes, g.missing, g.waves_a, g.waves_b)


def readable(g: Gap) -> Gap:
    """The bars the views draw: cancelling stall bars netted (net_stalls), then parts too small to read on
    their own folded (fold_small). The same measured parts, the same sum."""
    return fold_small(net_stalls(g))


def fold_small(g: Gap, share_of_time: float = SMALL_SHARE) -> Gap:
    """`g` with the parts that say little on their own added into one bar, placed before "not attributed" (which
    stays its own bar, as does a "stall mix" of net_stalls); the sum of the bars is unchanged.

    Folded: every part under `share_of_time` of the reference kernel's time; then, while their sum is itself
    above that, the part of the opposite sign that brings the sum closest to zero (never one that makes it
    larger). Two kernels a few percent apart otherwise draw bars many times the gap that cancel each other
    (-328% against +319% of a 10 µs gap): the waterfall shows what is left of them, and the bar's sentence says
    how much they add and take away and names the largest, so nothing is hidden. Nothing is folded where fewer
    than two parts would be."""
    limit = share_of_time * abs(g.tb_ns)
    movable = [p for p in g.parts if p.name not in ("other", "small", "stall_mix")]  # those say what they hold
    small = [p for p in movable if abs(p.ns) < limit]
    kept = [p for p in movable if p not in small]
    while small and abs(total := sum(p.ns for p in small)) >= limit:
        best = min((p for p in kept if p.ns * total < 0), key=lambda p: abs(total + p.ns), default=None)
        if best is None or abs(total + best.ns) >= abs(total):
            break
        kept.remove(best)
        small.append(best)
    if len(small) < 2:
        return g
    ns = sum(p.ns for p in small)
    up, down = sum(p.ns for p in small if p.ns > 0), -sum(p.ns for p in small if p.ns < 0)
    largest = max(small, key=lambda p: abs(p.ns))
    params: dict[str, object] = {"count": len(small), "share": ns / g.gap_ns if g.gap_ns else 0.0}
    if any(abs(p.ns) >= limit for p in small):  # a larger part cancelled by the small ones
        key = "small"
        label = {"key": largest.label.key, "params": largest.label.params}
        params.update(up=up / 1e3, down=down / 1e3, largest=label, big=largest.ns / 1e3)
    else:
        key = "small_one_way"
        params.update(limit=share_of_time, b=g.b.label, up=up / 1e3, down=down / 1e3)
    folded = Part("small", ns, Line(f"gap.label.{key}"), Line(f"gap.part.{key}", params))
    order = [p for p in g.parts if p not in small and p.name != "other"]
    tail = [p for p in g.parts if p.name == "other"]
    parts = (*order, folded, *tail)
    return Gap(g.a, g.b, g.ta_ns, g.tb_ns, g.timing, parts, g.headline, g.notes, g.missing, g.waves_a, g.waves_b)


def merge_stalls(g: Gap, keep: int) -> Gap:
    """`g` with only its `keep` largest stall-reason bars kept, the others added to "other stalls": the same
    measured parts, fewer bars (a chart with little room). The sum and every other bar are unchanged."""
    stalls = [p for p in g.parts if p.name.startswith("stall:")]
    if len(stalls) <= keep:
        return g
    kept = sorted(stalls, key=lambda p: abs(p.ns), reverse=True)[: max(0, keep)]
    merged = [p for p in stalls if p not in kept]
    old = next((p for p in g.parts if p.name == "stalls_rest"), None)
    ns = sum(p.ns for p in merged) + (old.ns if old else 0.0)
    count = len(merged) + (old.sentence.params["count"] if old else 0)
    share = ns / g.gap_ns if g.gap_ns else 0.0
    label = Line("gap.label.stalls_merged", {"count": count})  # the sentences name reasons it now holds
    rest = Part("stalls_rest", ns, label, Line("gap.part.stalls_rest", {"count": count, "share": share}))
    head = [p for p in g.parts if not p.name.startswith("stall") and p.name not in ("small", "other")]
    tail = [p for p in g.parts if p.name in ("small", "other")]
    parts = (*head, *(p for p in stalls if p in kept), rest, *tail)
    return Gap(g.a, g.b, g.ta_ns, g.tb_ns, g.timing, parts, g.headline, g.notes, g.missing, g.waves_a, g.waves_b)
