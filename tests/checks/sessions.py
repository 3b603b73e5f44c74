"""Checks over the shipped sessions."""

from gemmviz.core.kernels.variants import NOT_RECORDED, VARIANTS
from gemmviz.core.session.results import Session
from gemmviz.core.session.workspace import default_replay_session


def h200_session_has_every_variant_and_size() -> None:
    """The shipped H200 session holds every registry variant but those in NOT_RECORDED (each with its reason)."""
    s = Session.load(default_replay_session())
    assert s.kind == "measured" and s.environment["backends"]["cuda"]["name"] == "NVIDIA H200"
    valid = [r for r in s.results if r.valid]
    recorded = {r.variant for r in valid}
    # every variant of the registry was recorded, but those named as not recorded yet (each with its reason)
    assert recorded == set(VARIANTS) - set(NOT_RECORDED)
    assert all(NOT_RECORDED[v].strip() and v in VARIANTS for v in NOT_RECORDED)
    assert {r.m for r in valid if r.variant == "gpu-tiled"} >= {256, 512, 1024, 2048, 4096, 8192}
    assert any((r.m, r.n, r.k) == (2048, 3072, 4096) for r in valid)  # seed 001's M x N x K
    assert {r.params.get("tile") for r in valid if r.variant == "gpu-tiled"} == {8, 16, 32}
    for r in valid:
        assert r.rel_error <= r.threshold
        # at least `repeats` kept samples (GPU kernels: more, until the noise was under 0.5% or a cap)
        assert len(r.samples_ms) >= min(r.repeats, 3 if r.variant == "cpu-naive" else r.repeats)
        if r.backend == "cuda":
            assert r.timing == "kernel" and r.noise is not None and r.wrong_elements == 0


def recorded_variants() -> set[str]:
    """The variants the shipped H200 session can draw: the registry's, less those not recorded yet."""
    return set(VARIANTS) - set(NOT_RECORDED)
