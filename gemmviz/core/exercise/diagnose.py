"""What a wrong C is made of, as facts the checker's causes may state: which elements were
written, whether every written value is a whole number or zero, whether the wrong elements lie in every
TILE-th column or row, whether a block of C holds the right block transposed, and what C is a sum of: C
against the partial products A[:, k]·B[k, :], each counted 0, 1, 2, ... times (a k missing, a tile summed
twice, only the last tile kept).

Worked out where C is at hand (the CPU emulator, the GPU's child process) and kept in the check record's size
entry as `facts`; core/exercise/check.py reads them. Pure numpy."""

from __future__ import annotations

import numpy as np

MAX_RUNS = 24  # runs of k kept in `k_counts`; a C that needs more is no simple partial sum
MAX_FIT_K = 512  # the partial-sum fit solves for one count per k; larger K is not fitted
MAX_WORK = 8_000_000  # M·N·K past which only the cheap facts are worked out (1020³ on a GPU: a second more)


def diagnose(c: np.ndarray, a: np.ndarray, b: np.ndarray, block_tile) -> dict:
    """The facts of a wrong C (m×n) of A (m×k) · B (k×n): see the module's docstring. `block_tile` is the
    (columns, rows) of C per block."""
    m, k = a.shape
    n = b.shape[1]
    c = np.asarray(c, dtype=np.float64)[:m, :n]
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = a64 @ b64
    bound = np.abs(a64) @ np.abs(b64) + 1e-30
    written = ~np.isnan(c)
    with np.errstate(invalid="ignore"):
        wrong = ~(np.abs(c - ref) <= 1e-5 * (bound + 1))
    facts: dict = {"written": _written(written)}
    if facts["written"] == "some":
        facts.update(_written_region(written, int(block_tile[1]), int(block_tile[0])))
    facts.update(_values(c[written & np.isfinite(c)], ref))
    cols, rows = int(block_tile[0]), int(block_tile[1])
    for axis, name, period in ((0, "cols", cols), (1, "rows", rows)):
        every = _every(np.asarray(wrong.any(axis=axis)), period)
        if every is not None:
            facts[f"wrong_{name}_every"] = every
    affine = _affine(c, ref, bound) if written.all() else None
    if affine is not None:
        facts["affine"] = affine
    if m * n * k > MAX_WORK:  # a GPU's large size: the smaller sizes of the same check tell the rest
        return facts
    for width in sorted({2, 4, 8, 16, 32, 64, rows} - {1}):
        if rows == cols and _blocks_transposed(c, ref, bound, width, width):
            facts["transposed_blocks"] = width
            break
    counts = _partial_sum(c, a64, b64, bound) if written.all() else None
    if counts is not None:
        runs = _runs(counts)
        if len(runs) <= MAX_RUNS:
            facts["k_counts"] = runs
        else:
            every = _periodic(counts)
            if every is not None:
                facts["k_every"] = every
    elif written.all():
        fixed = _one_tile_fixed(c, a64, b64, bound)
        if fixed is not None:
            facts["fixed_tile"] = fixed
    return facts


def _values(values: np.ndarray, ref: np.ndarray) -> dict:
    """{"zeros": True} where every written value is 0, {"whole_numbers": True} where every one is a whole number
    (zero too: an int sum of small products is 0) and A·B's are not."""
    out: dict = {}
    if not values.size:
        return out
    if np.all(values == 0) and np.any(ref != 0):
        out["zeros"] = True
    if np.all(values == np.round(values)) and not np.all(ref == np.round(ref)):
        out["whole_numbers"] = True
    return out


def _written(written: np.ndarray) -> str:
    """'all', 'none', 'column 0', 'row 0', or 'some'."""
    if written.all():
        return "all"
    if not written.any():
        return "none"
    if written[:, 0].all() and not written[:, 1:].any() and written.shape[1] > 1:
        return "column 0"
    if written[0, :].all() and not written[1:, :].any() and written.shape[0] > 1:
        return "row 0"
    return "some"


def _written_region(written: np.ndarray, rows_per_block: int, cols_per_block: int) -> dict:
    """{"written_box": [first row, last row, first col, last col]} where the written elements fill a box from
    row 0 and column 0 exactly, {"written_first": n} where they are the first n in row-major order, or
    {"written_diagonal": True} where they are the blocks whose block row and block column are the same."""
    r, c = np.indices(written.shape)
    if np.array_equal(written, r // rows_per_block == c // cols_per_block):
        return {"written_diagonal": True}
    rows = np.nonzero(written.any(axis=1))[0]
    cols = np.nonzero(written.any(axis=0))[0]
    box = np.zeros_like(written)
    box[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1] = True
    if rows[0] == 0 and cols[0] == 0 and np.array_equal(box, written):
        return {"written_box": [0, int(rows[-1]), 0, int(cols[-1])]}
    n = int(np.count_nonzero(written))
    if written.reshape(-1)[:n].all():
        return {"written_first": n}
    return {}


def _every(wrong_lines: np.ndarray, period: int) -> list[int] | None:
    """[j, period] where the wrong columns (rows) are exactly those ≡ j (mod period), some but not all of them
    (at least two), None otherwise."""
    size = wrong_lines.size
    if period < 2 or size < 2 * period or not wrong_lines.any() or wrong_lines.all():
        return None
    for j in range(period):
        want = (np.arange(size) % period) == j
        if np.array_equal(want, wrong_lines):
            return [j, period]
    return None


def _blocks_transposed(c: np.ndarray, ref: np.ndarray, bound: np.ndarray, rows: int, cols: int) -> bool:
    """Whether every whole square block of C holds the right block transposed (and C is wrong there)."""
    if rows != cols or rows < 2 or rows > min(ref.shape):
        return False
    m, n = ref.shape
    seen = False
    for r0 in range(0, m - rows + 1, rows):
        for c0 in range(0, n - cols + 1, cols):
            got = c[r0 : r0 + rows, c0 : c0 + cols]
            want = ref[r0 : r0 + rows, c0 : c0 + cols]
            scale = bound[r0 : r0 + rows, c0 : c0 + cols]
            with np.errstate(invalid="ignore"):
                if not np.all(np.abs(got - want.T) <= 1e-4 * scale.T):
                    return False
            seen = True
    return seen and not np.allclose(c, ref, equal_nan=False)


def _partial_sum(c: np.ndarray, a: np.ndarray, b: np.ndarray, bound: np.ndarray) -> np.ndarray | None:
    """C as Σ_k count_k · A[:, k]·B[k, :] with whole counts: the count of each k, None where C is no such sum
    (or K is too large to fit, or C has too few elements to tell the counts apart)."""
    m, k = a.shape
    n = b.shape[1]
    if k > MAX_FIT_K or m * n < 2 * k or not np.all(np.isfinite(c)):
        return None
    # least squares over the K outer products A[:, k]·B[k, :], through their K×K normal equations: the products
    # of outer products are (AᵀA)∘(BBᵀ), and each one's product with C is A[:, k]ᵀ·C·B[k, :]ᵀ
    gram = (a.T @ a) * (b @ b.T)
    rhs = np.einsum("ik,ij,kj->k", a, c, b)
    try:
        fit = np.linalg.solve(gram, rhs)
    except np.linalg.LinAlgError:
        return None
    counts = np.round(fit)
    if np.any(np.abs(fit - counts) > 0.05) or np.any(counts < 0) or np.any(counts > 64):
        return None
    again = (a * counts) @ b
    if not np.all(np.abs(again - c) <= 1e-4 * bound * max(1.0, counts.max())):
        return None
    return counts.astype(int)


def _runs(counts: np.ndarray) -> list[list[int]]:
    """The counts as runs [first k, last k, count]."""
    runs: list[list[int]] = []
    for i, v in enumerate(counts):
        if runs and runs[-1][2] == v and runs[-1][1] == i - 1:
            runs[-1][1] = i
        else:
            runs.append([i, i, int(v)])
    return runs


def _periodic(counts: np.ndarray) -> list[int] | None:
    """[j, period, count] where every k ≡ j (mod period) has `count` (0: missing, 2: twice) and every other k
    has 1; None otherwise."""
    k = counts.size
    for period in range(2, min(65, k // 2 + 1)):
        for j in range(period):
            mask = (np.arange(k) % period) == j
            odd = counts[mask]
            if np.all(counts[~mask] == 1) and odd.size and np.all(odd == odd[0]) and odd[0] != 1:
                return [j, period, int(odd[0])]
    return None


def _one_tile_fixed(c: np.ndarray, a: np.ndarray, b: np.ndarray, bound: np.ndarray) -> list | None:
    """["A", width] where C = Σ_k A[:, k mod width]·B[k, :] (A's tile index does not move with the tiles while
    B's does), ["B", width] for the other way round; None otherwise."""
    k = a.shape[1]
    for width in (8, 16, 32, 64):
        if width >= k:
            break
        idx = np.arange(k) % width
        for which, want in (("A", a[:, idx] @ b), ("B", a @ b[idx, :])):
            with np.errstate(invalid="ignore"):
                if np.all(np.abs(c - want) <= 1e-4 * bound * 2):
                    return [which, width]
    return None


def gather_rules(c: np.ndarray, source: np.ndarray, tile: int) -> list[str] | None:
    """Where each element of C (n×n) comes from when C should equal `source` (A with B = I, or B with A = I):
    [rule of its row, rule of its column], each 'r' (C's row), 'c' (C's column), 'r@c' (the tile of C's row,
    the place in the tile of C's column: a row index taken from threadIdx.x) or 'c@r' (a column index taken
    from threadIdx.y); None where some element of C is not an element of `source`, or no rule fits."""
    n = c.shape[0]
    flat = source.reshape(-1)
    order = np.argsort(flat, kind="stable")
    values = flat[order]
    if np.unique(values).size != values.size or not np.all(np.isfinite(c)):
        return None
    at = np.searchsorted(values, c.reshape(-1))
    at = np.clip(at, 0, values.size - 1)
    if not np.array_equal(values[at], c.reshape(-1)):
        return None
    index = order[at].reshape(n, n)
    src_r, src_c = index // n, index % n
    r, cc = np.indices((n, n))
    rules = {"r": r, "c": cc, "r@c": (r // tile) * tile + cc % tile, "c@r": (cc // tile) * tile + r % tile}
    row = next((name for name, want in rules.items() if np.array_equal(src_r, want)), None)
    col = next((name for name, want in rules.items() if np.array_equal(src_c, want)), None)
    return [row, col] if row and col else None


def _affine(c: np.ndarray, ref: np.ndarray, bound: np.ndarray) -> list[float] | None:
    """[scale, offset] where C = scale·(A·B) + offset at every element (and C is wrong), None otherwise."""
    x = ref.reshape(-1)
    if x.size < 4 or not np.all(np.isfinite(c)):
        return None
    design = np.stack([x, np.ones_like(x)], axis=1)
    (scale, offset), *_ = np.linalg.lstsq(design, c.reshape(-1), rcond=None)
    fitted = scale * ref + offset
    if not np.all(np.abs(fitted - c) <= 1e-4 * (bound + abs(offset) + 1)):
        return None
    if abs(scale - 1) < 1e-4 and abs(offset) < 1e-4:
        return None
    return [round(float(scale), 4), round(float(offset), 4)]
