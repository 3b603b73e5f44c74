"""Two kernels' blocks animated in lockstep (the side-by-side view: naive vs tiled, TILE 16 vs 32): the frame
of one schedule that matches a frame of the other, by how far along K their partial sums are. No Qt.

The schedule with more steps leads (its frames are the keys' frames); the other shows its last step whose
partial sums cover no more of K than the leader's, so that its counters are never ahead of the leader's
progress, and both reach their store together."""

from __future__ import annotations

from gemmviz.core.schedule.records import Schedule


def _progress(schedule: Schedule, i: int) -> int:
    step = schedule.steps[i]
    return schedule.run_problem.k + 1 if step.kind == "store" else step.k_done


def leader_first(a: Schedule, b: Schedule) -> bool:
    """Whether `a` leads (has at least as many steps as `b`)."""
    return len(a.steps) >= len(b.steps)


def follower_step(leader: Schedule, follower: Schedule, i: int) -> int:
    """The follower's step shown beside the leader's step `i`."""
    i = max(0, min(i, len(leader.steps) - 1))
    if _same_steps(leader, follower):  # tiled beside tiled-pad: step for step (a load beside a load, not its sync)
        return i
    target = _progress(leader, i)
    best = 0
    for j in range(len(follower.steps)):
        if _progress(follower, j) <= target:
            best = j
    return best


def _same_steps(a: Schedule, b: Schedule) -> bool:
    """The two schedules walk K alike: the same kinds of step, each as far along K."""
    return len(a.steps) == len(b.steps) and all(
        x.kind == y.kind and x.k_done == y.k_done for x, y in zip(a.steps, b.steps)
    )
