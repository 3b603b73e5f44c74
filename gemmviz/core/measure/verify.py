"""Element-wise verification of C = A·B against the float64 reference, beside the relative norm.

One relative Frobenius norm over C lets a wrong tile pass: at 4096² one zeroed 16×16 tile moves the norm by
about 4e-3, under the TF32 threshold. So every element must also lie within the bound of GEMM error analysis
(Higham, *Accuracy and Stability of Numerical Algorithms*, §3.5):

    |ĉ_ij − c_ij| ≤ tol(precision, K) · (|A|·|B|)_ij + atol

    tol = (2·u_in + u_in²) + γ_K(u_acc),   γ_K(u) = K·u / (1 − K·u)

u_in is the rounding of each input to the unit's format (0 for FP32; 2⁻¹⁰ for TF32, which keeps 10 mantissa
bits, allowing for truncation rather than rounding), u_acc the unit roundoff of the accumulation (2⁻²⁴ for FP32;
2⁻²³ for the tensor cores, allowing truncating adders). The bound holds for any order of summation (split-K,
trees, FMA chains), so a correct kernel never exceeds it; a missing, shifted or stale element of a random
problem exceeds it by orders of magnitude. atol covers products flushed to zero below FLT_MIN (K·2⁻¹²⁶·2).

The check runs in row blocks, so its temporaries stay small at 8192² and above. An invalid result says how
many elements are wrong, where the first one is, and which regions of C are wrong (a small map of counts).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gemmviz.core.kernels.variants import THRESHOLDS

if TYPE_CHECKING:  # numpy is imported where it is used: not on the window's first frame's path
    import numpy as np

# (u_in, u_acc) per precision; see the module's docstring.
ROUNDING = {"fp32": (0.0, 2.0**-24), "tf32": (2.0**-10, 2.0**-23)}
FLT_MIN = 2.0**-126
MAP_CELLS = 16  # the error map has at most this many cells along each side of C
ROW_BLOCK_ELEMENTS = 1 << 22  # elements of C checked per step (about 32 MB of float64 temporaries)


def tolerance(precision: str, k: int) -> float:
    """tol(precision, K): the factor of (|A|·|B|)_ij that no correct element's error exceeds."""
    u_in, u_acc = ROUNDING[precision]
    ku = k * u_acc
    gamma = ku / (1 - ku) if ku < 1 else math.inf
    return 2 * u_in + u_in * u_in + gamma


def absolute_tolerance(k: int) -> float:
    return 2 * k * FLT_MIN


def abs_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|A|·|B| in float32, raised by the most its own rounding can have lowered it (a sum of K positive
    terms is low by at most γ_K(2⁻²⁴) relative), so the bound built on it is never too tight."""
    import numpy as np

    out = np.abs(a) @ np.abs(b)
    k = a.shape[1]
    out *= np.float32(1 + 2 * tolerance("fp32", k))
    return out


@dataclass
class Check:
    """What verification found. `error_map` is None when every element is right."""

    valid: bool
    rel_error: float
    unwritten: int = 0
    wrong: int = 0  # elements outside the bound (unwritten ones included)
    first_wrong: tuple[int, int, float, float] | None = None  # row, column, got, expected
    margin: float = 0.0  # the largest |error| / bound over C: under 1 passes
    error_map: dict | None = None  # {"cell": [rows, cols], "wrong": [[count, ...], ...]}
    reason: str | None = None
    extra: dict = field(default_factory=dict)

    def result_fields(self) -> dict:
        """The fields of a Result this check fills in."""
        return {
            "rel_error": self.rel_error,
            "unwritten": self.unwritten,
            "wrong_elements": self.wrong,
            "first_wrong": None if self.first_wrong is None else _finite_or_none(self.first_wrong),
            "error_margin": self.margin if math.isfinite(self.margin) else None,
            "error_map": self.error_map,
        }


def _finite_or_none(first: tuple) -> list:
    row, col, got, expected = first
    return [row, col, got if math.isfinite(got) else None, expected]


def map_shape(m: int, n: int) -> tuple[int, int]:
    """Rows and columns of C per cell of the error map."""
    return -(-m // min(m, MAP_CELLS)), -(-n // min(n, MAP_CELLS))


def _squares(err: np.ndarray, ref: np.ndarray, work: np.ndarray) -> tuple[float, float]:
    """The sums of the finite errors' squares and of the reference's squares, through `work`."""
    import numpy as np

    np.copyto(work, 0.0)
    np.copyto(work, err, where=np.isfinite(err))  # np.where(np.isfinite(err), err, 0.0)
    np.multiply(work, work, out=work)
    d2 = float(np.sum(work))
    np.multiply(ref, ref, out=work)
    return d2, float(np.sum(work))


def verify(c: np.ndarray, reference: np.ndarray, bound: np.ndarray, precision: str, k: int) -> Check:
    """Check c against the float64 reference element by element (|c − ref| ≤ tol·bound + atol, where bound is
    |A|·|B|) and by the relative Frobenius norm against the precision's threshold."""
    import numpy as np

    m, n = reference.shape
    tol, atol = tolerance(precision, k), absolute_tolerance(k)
    ch, cw = map_shape(m, n)
    counts = np.zeros((-(-m // ch), -(-n // cw)), dtype=np.int64)
    diff2 = ref2 = 0.0
    unwritten = wrong = 0
    margin = 0.0
    first: tuple[int, int, float, float] | None = None  # the first wrong element: row, column, got, expected
    rows = max(1, ROW_BLOCK_ELEMENTS // max(n, 1))
    # the row block's float64 temporaries, made once and reused; every value is the one the plain
    # expressions give (c.astype(np.float64), np.abs(got - ref), tol * bound + atol, ...)
    shape = (min(rows, m), n)
    got_buf, err_buf, limit_buf, work_buf = (np.empty(shape) for _ in range(4))
    with np.errstate(invalid="ignore", over="ignore"):
        for r0 in range(0, m, rows):
            h = min(rows, m - r0)
            got, err, limit, work = got_buf[:h], err_buf[:h], limit_buf[:h], work_buf[:h]
            np.copyto(got, c[r0 : r0 + rows], casting="unsafe")
            ref = reference[r0 : r0 + rows]
            np.subtract(got, ref, out=err)
            np.abs(err, out=err)
            np.multiply(bound[r0 : r0 + rows], tol, out=limit, dtype=np.float64)
            limit += atol
            nan = np.isnan(got)
            unwritten += int(np.count_nonzero(nan))
            bad = ~(err <= limit)  # NaN and inf are bad
            nbad = int(np.count_nonzero(bad))
            if nbad:
                wrong += nbad
                ii, jj = np.nonzero(bad)
                if first is None:
                    i, j = int(ii[0]), int(jj[0])
                    first = (r0 + i, j, float(got[i, j]), float(ref[i, j]))
                cells = ((r0 + ii) // ch) * counts.shape[1] + jj // cw
                counts += np.bincount(cells, minlength=counts.size).reshape(counts.shape)
                margin = math.inf if np.isnan(err[bad]).any() else max(margin, float(np.max(err[bad] / limit[bad])))
            else:
                margin = max(margin, float(np.max(np.divide(err, limit, out=work))) if err.size else 0.0)
            d2, r2 = _squares(err, ref, work)
            diff2 += d2
            ref2 += r2
    rel = math.sqrt(diff2 / ref2) if ref2 > 0 else math.sqrt(diff2)
    threshold = THRESHOLDS[precision]
    check = Check(valid=True, rel_error=rel, unwritten=unwritten, wrong=wrong, first_wrong=first, margin=margin)
    if first is not None:  # an element is wrong: `first` is the first one found
        check.valid = False
        check.error_map = {"cell": [ch, cw], "wrong": counts.tolist()}
        regions = int(np.count_nonzero(counts))
        row, col, got_v, want = first
        where = f"first at row {row}, column {col}: got {got_v:.6g}, expected {want:.6g}"
        if unwritten:
            what = f"{unwritten:,} element(s) of C were never written (still NaN)"
            if wrong > unwritten:
                what += f" and {wrong - unwritten:,} more are wrong"
        else:
            what = f"{wrong:,} of {m * n:,} elements of C are outside the {precision.upper()} error bound"
        check.reason = f"{what}; {where}; {regions} of {counts.size} regions of C affected"
    elif not (math.isfinite(rel) and rel <= threshold):
        check.valid = False
        check.reason = f"relative error {rel:.3g} exceeds the {precision.upper()} threshold {threshold:g}"
    return check
