"""Why a correct kernel is slower than the reference: the two kernels' Nsight Compute counters side by side (bank
conflicts, uncoalesced loads, L2 traffic, occupancy), with the fix. Pure Python."""

from __future__ import annotations

from gemmviz.core.messages import Message, msg
from gemmviz.core.numbers import rate

RATIO_LIMIT = 1.5


def speed_cause(record: dict) -> Message | None:
    """Why the kernel is slower than the reference, from the two kernels' Nsight Compute counters, with the fix."""
    timing = record.get("timing") or {}
    yours, ref = timing.get("yours") or {}, timing.get("reference") or {}
    if not (yours.get("median_ms") and ref.get("median_ms")):
        return None
    slower = yours["median_ms"] / ref["median_ms"]
    counters = record.get("counters") or {}
    mine, theirs = counters.get("yours") or {}, counters.get("reference") or {}
    head = msg("speed.slower", ratio=rate(slower))
    reasons = []
    conflicts = counter_ratio(
        mine, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "smsp__inst_executed_op_shared_ld.sum"
    )
    ref_conflicts = counter_ratio(
        theirs, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "smsp__inst_executed_op_shared_ld.sum"
    )
    if conflicts and conflicts > RATIO_LIMIT * (ref_conflicts or 1.0):
        reasons.append(msg("speed.conflicts", ways=f"{conflicts:.1f}", ref=f"{ref_conflicts or 1.0:.1f}"))
    sectors = counter_ratio(
        mine, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
    )
    ref_sectors = counter_ratio(
        theirs, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
    )
    if sectors and ref_sectors and sectors > RATIO_LIMIT * ref_sectors:
        reasons.append(msg("speed.uncoalesced", sectors=rate(sectors), ref=rate(ref_sectors)))
    l2, ref_l2 = mine.get("lts__t_bytes.sum"), theirs.get("lts__t_bytes.sum")
    if l2 and ref_l2 and l2 > RATIO_LIMIT * ref_l2:
        reasons.append(msg("speed.l2", ratio=rate(l2 / ref_l2)))
    occ, ref_occ = (
        mine.get("sm__warps_active.avg.pct_of_peak_sustained_active"),
        theirs.get("sm__warps_active.avg.pct_of_peak_sustained_active"),
    )
    if occ and ref_occ and occ * RATIO_LIMIT < ref_occ:
        reasons.append(msg("speed.occupancy", occ=f"{occ:.0f}", ref=f"{ref_occ:.0f}"))
    if reasons:
        return msg("cause.speed", head=head, reasons=reasons)
    if not mine:
        return msg("cause.speed_no_counters", head=head, why=counters.get("note") or "ncu did not run")
    return msg("cause.speed_same", head=head)


def counter_ratio(counters: dict, top: str, bottom: str) -> float | None:
    """counters[top] / counters[bottom] (sectors per request, wavefronts per load); None if either is missing."""
    a, b = counters.get(top), counters.get(bottom)
    return a / b if a is not None and b else None
