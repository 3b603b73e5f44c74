// gpu-cpasync-any: the cp.async warp-tiling kernel (kernels/cpasync.cu) for any M, N, K, with no padding pass.
// Same block, warp and thread tiles and the same STAGES-deep cp.async pipeline; what differs:
//   * Edges in the kernel. A copy whose source lies outside A or B is issued with a source size of 0 bytes
//     (cp.async's zero fill): the shared tile gets zeros, nothing is read from global memory, and the FMAs
//     run on the zeros as on the padded matrices before. A is copied in 4-byte copies as before; B in
//     16-byte copies whose source size is cut to the bytes left in the row (N % 4 == 0), or, when rows of
//     B are not 16-byte aligned (N % 4 != 0), in four 4-byte copies. C is stored with bounds checks
//     (a float4 where the four columns exist and N % 4 == 0, else one float at a time).
//     The engine no longer zero-pads: at 1000^3 the kernel reads 1000^3's matrices, not 1024x1024x1008.
//     A last tile that would cross M or N is shifted back inside (it overlaps its neighbour and stores only
//     what it owns), so it runs the interior code too: at 1000^3 split-K fills one wave with 256 blocks and
//     the slowest block sets the time, so 15 predicated edge tiles cost 24% on the H200 (docs/benchmarks.md).
//   * Grouped block order (GROUP_M): consecutive blocks walk GROUP_M block rows of C before moving to
//     the next block column, so a wave of blocks shares fewer distinct panels of A and B in L2.
// Split-K for small grids as in cpasync.cu (grid.y = S * ceil(M / BM)).
//   * SCHED=1: Stream-K (Osama et al., PPoPP 2023) on a grid of G blocks (G from the host,
//     grid.y = 1): the work is T tiles x KT K-slices. Whole waves of tiles run data-parallel (block c takes tiles
//     c, c + G, ...), and the last one or two waves' tiles are cut into K-slice ranges spread evenly over the
//     G blocks, so every block does the same number of K-slices and no SM idles at the end. A tile cut across
//     blocks is summed by whichever of them finishes last: each writes its partial tile to a workspace and
//     counts itself in; the last one adds every partial in block order (the same sum on every run) and stores
//     C. Nobody waits on anybody, so G may exceed the blocks that fit at once: G = T x S is split-K in S
//     slices with this reduction instead of the turn-ordered adds into C.
#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 16
#endif
#ifndef WM
#define WM 32
#endif
#ifndef WN
#define WN 64
#endif
#ifndef TM
#define TM 8
#endif
#ifndef TN
#define TN 8
#endif
#ifndef STAGES
#define STAGES 3
#endif
#ifndef GROUP_M
#define GROUP_M 8         // block rows of C walked before the next block column (1: row-major order)
#endif
#ifndef ORDER
#define ORDER 0           // 0: grouped (GROUP_M); 1: a Hilbert curve over square sub-grids of tiles (see below)
#endif
#ifndef SCHED
#define SCHED 0           // 0: one block per tile and K slice, turn-ordered split-K; 1: Stream-K over G blocks;
                          // 2: Stream-K with the whole tiles taken from an atomic counter
#endif
#ifndef WS_FLOATS
#define WS_FLOATS (16 << 20)  // SCHED 1: workspace of partial tiles (64 MiB): 2 G tiles for G <= 2 x SMs x blocks
#endif
#ifndef FRAG_DB
#define FRAG_DB 1         // fragments in registers: 1 double-buffered within a K-slice (k + 1 read while k multiplies,
                          // cpasync_core.cuh); 0 one buffer; 2 also across slices (see multiply_tile)
#endif
#ifndef PBAR
#define PBAR 0            // 0: one block-wide barrier per K-slice; 1, 2: per warp row and per warp column (below)
#endif
#include "cpasync_core.cuh"  // launch shape, cp.async helpers, the K-slice multiply (shared with gpu-cpasync)

// PBAR 1 and 2, barriers over half or a quarter of the block. The warps form a WARPS_M x WARPS_N grid (warp w: row
// w / WARPS_N, column w % WARPS_N); warp (r, c) reads only rows [r·WM, r·WM + WM) of a stage's A tile and columns
// [c·WN, c·WN + WN) of its B tile. So the copies are re-partitioned: the WARPS_N warps of row r ("row group r")
// copy exactly A's rows r·WM.., and the WARPS_M warps of column c ("column group c") exactly B's columns c·WN..
// Each K-slice's block-wide __syncthreads becomes a barrier over row group r's threads (half the block at
// 128x256, a quarter at 128x128) and one over column group c's (a quarter at 128x256, half at 128x128). Why no
// warp reads a stage that another group may still be overwriting:
//   * A's rows of row r, in every stage, are written only by row group r's copies and read only by row group r's
//     warps; B's columns of column c only by column group c's. Every writer and every reader of a region is in
//     the one group whose barrier guards it, so for that region the argument for __syncthreads holds unchanged
//     within the group: at slice t's barrier each of its threads has (a) waited for its own copies of slice t
//     (cp.async.wait_group before it arrives; the barrier then makes them visible to the group) and (b) finished
//     its reads of slice t - 1, whose stage is the one refilled (with slice t + STAGES - 1) after the barrier.
//   * A thread is in one row group and one column group; its one commit group per slice holds its A copies (row
//     region) and its B copies (column region), and it waits for it before arriving at either barrier.
//   * A thread arrives at its barriers of slice t + 1 only after both of slice t's completed (it waited on them),
//     so two slices' arrivals never mix on one barrier; and every thread arrives at both of slice t's barriers
//     before it waits on either (PBAR 2), or waits on its row's before its column's (PBAR 1): by induction on t
//     every slice's barriers complete, no cycle of waits. Barrier 0 (__syncthreads) is still used outside the loop.
// PBAR 1: named barriers, bar.sync 1 + r then bar.sync 1 + WARPS_M + c. The second waits for warp (r', c) to have
// passed ITS row barrier, i.e. for all of row r' to have arrived: the pair is as strong as one block-wide barrier
// (every warp has arrived before any leaves), so it can only add latency; it is here to be measured.
// PBAR 2: one mbarrier per row group and per column group in shared memory; each thread arrives on both, then
// waits for both phases. A warp then waits for its row and its column only, not the warps in neither: a slow warp
// holds back the others one slice later, not at once (SCHED 0 only: the mbarriers are made once per block).
#define WARPS_N (BN / WN)
#define WARPS_M (BM / WM)
#if PBAR
#define A_STEP (4 * WARPS_N / KH)            // rows of A between one thread's copies (within its row group's WM)
#define B_STEP (WARPS_M * 32 / (WN / 4))     // rows of B between one thread's copies (its column group's WN)
static_assert(WARPS_N % KH == 0 && A_COPIES * A_STEP == WM, "PBAR: a row group copies its WM rows x BK in rounds");
static_assert((WARPS_M * 32) % (WN / 4) == 0 && B_COPIES * B_STEP == BK, "PBAR: a column group copies BK x WN");
static_assert(1 + WARPS_M + WARPS_N <= 16, "PBAR: named barriers 1 .. WARPS_M + WARPS_N (16 per block)");
static_assert(PBAR == 1 || (PBAR == 2 && SCHED == 0), "PBAR 2: one K loop per block (its mbarriers' phases)");
#else
#define A_STEP A_ROW_STEP
#define B_STEP B_ROW_STEP
#endif

// This thread's copies of a K-slice: A rows am + j·A_STEP at k ak (4-byte copies; a warp takes 4 rows x 8 k, so
// the transposed stores As[k][m] are conflict-free), B rows br + j·B_STEP at columns bc .. bc + 3 (16-byte copies).
struct CopyMap {
    int am, ak, br, bc;
};

__device__ __forceinline__ CopyMap copy_map() {
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    CopyMap c;
#if PBAR
    const int wr = warp / WARPS_N, wc = warp % WARPS_N, ct = wr * 32 + lane;  // ct: place in column group wc
    c.am = wr * WM + 4 * (wc / KH) + (lane / 8) % 4, c.ak = 8 * (wc % KH) + lane % 8;
    c.br = ct / (WN / 4), c.bc = wc * WN + 4 * (ct % (WN / 4));
#else
    c.am = 4 * (warp / KH) + (lane / 8) % 4, c.ak = 8 * (warp % KH) + lane % 8;
    c.br = tid / (BN / 4), c.bc = 4 * (tid % (BN / 4));
#endif
    return c;
}

#if PBAR == 2
__device__ __forceinline__ unsigned int pbar_mbarriers() {  // shared address of WARPS_M + WARPS_N mbarriers
    __shared__ __align__(8) unsigned long long bars[WARPS_M + WARPS_N];
    return static_cast<unsigned int>(__cvta_generic_to_shared(bars));
}

__device__ __forceinline__ void mbarrier_wait(unsigned int bar, unsigned int parity) {
    asm volatile(
        "{\n.reg .pred done;\nWAIT:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
        "@!done bra WAIT;\n}\n" ::"r"(bar), "r"(parity) : "memory");
}
#endif

// The barrier before each K-slice's reads (and the refill of the stage read the slice before); n: how many this
// thread has passed in this K loop.
__device__ __forceinline__ void stage_barrier(int n) {
#if PBAR == 1
    const int warp = threadIdx.x / 32;
    asm volatile("bar.sync %0, %1;\n" ::"r"(1 + warp / WARPS_N), "n"(WARPS_N * 32) : "memory");            // row
    asm volatile("bar.sync %0, %1;\n" ::"r"(1 + WARPS_M + warp % WARPS_N), "n"(WARPS_M * 32) : "memory");  // column
#elif PBAR == 2
    const int warp = threadIdx.x / 32;
    const unsigned int row = pbar_mbarriers() + 8 * (warp / WARPS_N);
    const unsigned int col = pbar_mbarriers() + 8 * (WARPS_M + warp % WARPS_N);
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(row) : "memory");  // (release: the copies
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(col) : "memory");  // waited for, the reads done)
    mbarrier_wait(row, n & 1);  // (acquire: the group's copies of this slice are visible)
    mbarrier_wait(col, n & 1);
#else
    __syncthreads();
#endif
}

extern "C" {
__device__ unsigned int gemm_cpasync_any_turn[SPLITK_TILES];  // split-K: which slice of each tile may add next;
                                                              // Stream-K: how many blocks of a cut tile are done
#if SCHED >= 1
__device__ float gemm_cpasync_any_ws[WS_FLOATS];               // Stream-K: partial tiles, BM x BN floats each
__device__ unsigned int gemm_cpasync_any_next[2];              // SCHED 2: the next whole tile; blocks finished
#endif
}

// `bytes` of the source are copied, the rest of the destination is zero-filled (0: nothing is read).
__device__ __forceinline__ void cp_async4(unsigned int dst, const float* src, unsigned int bytes) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(bytes) : "memory");
}

__device__ __forceinline__ void cp_async16(unsigned int dst, const float* src, unsigned int bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(bytes) : "memory");
}

// The tile of C (tm, tn) that the linear-th block in launch order computes: the grouped order (GROUP_M block
// rows per block column), or with ORDER 1 a Hilbert curve where the grid of tiles is a stack of squares.
__device__ __forceinline__ void tile_of(int linear, int tilesM, int tilesN, int& tm, int& tn) {
    const int per_group = GROUP_M * tilesN, first_m = (linear / per_group) * GROUP_M;
    const int rows_in_group = min(tilesM - first_m, GROUP_M);
    tm = first_m + (linear % per_group) % rows_in_group, tn = (linear % per_group) / rows_in_group;
#if ORDER == 1
    // Hilbert order: where the grid of tiles is a stack of squares of a power-of-two side (tilesN a power of two
    // dividing tilesM: 8192^3 in 128x256 tiles is two 32x32 squares), consecutive blocks walk a Hilbert curve
    // through each square, so any run of blocks in flight covers a compact patch of C and shares its panels of
    // A and B in L2; other grids keep the grouped order.
    if ((tilesN & (tilesN - 1)) == 0 && tilesM % tilesN == 0) {
        const int side = tilesN, square = linear / (side * side);
        int t = linear % (side * side), x = 0, y = 0;
        for (int s = 1; s < side; s *= 2) {
            const int rx = 1 & (t / 2), ry = 1 & (t ^ rx);
            if (ry == 0) {
                if (rx == 1) { x = s - 1 - x; y = s - 1 - y; }
                const int swap = x; x = y; y = swap;
            }
            x += s * rx;
            y += s * ry;
            t /= 4;
        }
        tm = square * side + y;
        tn = x;
    }
#endif
}

// FRAG_DB 0 and 2: one k of this thread's fragments, TM floats of A (transposed: `as` is this lane's first column)
// and TN of B, read with LDS.128 as cpasync_core.cuh reads them; and their TM x TN FMAs.
__device__ __forceinline__ void load_fragments(const float* as, const float* bs, int kk, float (&a)[TM],
                                               float (&b)[TN]) {
    #pragma unroll
    for (int s = 0; s < MS; ++s) {
        const float4 v = *reinterpret_cast<const float4*>(as + kk * AS_LD + s * LR * 4);
        a[4 * s] = v.x, a[4 * s + 1] = v.y, a[4 * s + 2] = v.z, a[4 * s + 3] = v.w;
    }
    #pragma unroll
    for (int s = 0; s < NS; ++s) {
        const float4 v = *reinterpret_cast<const float4*>(bs + kk * BN + s * LC * 4);
        b[4 * s] = v.x, b[4 * s + 1] = v.y, b[4 * s + 2] = v.z, b[4 * s + 3] = v.w;
    }
}

__device__ __forceinline__ void outer_product(const float (&a)[TM], const float (&b)[TN], float (&acc)[TM][TN]) {
    #pragma unroll
    for (int i = 0; i < TM; ++i)
        #pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
}

// Where one block's tile of C lies and which of its copies fall inside A and B.
struct TileGeom {
    int tm, tn;           // the tile of C it owns (rows from tm·BM, columns from tn·BN)
    int row0, col0;       // where its BM x BN window starts (a shifted last tile overlaps the one before it)
    bool interior, shifted, b_aligned;
    int arow, bcol, b_cols;
    unsigned int a_rows_in;
};

__device__ __forceinline__ TileGeom tile_geom(int tm, int tn, int M, int N) {
    // This thread's copies: A rows am + j * A_STEP at k ak; B rows br + j * B_STEP at columns bc..bc+3.
    const CopyMap cm = copy_map();
    const int am = cm.am, bc = cm.bc;
    TileGeom g;
    g.tm = tm, g.tn = tn;
    // Shifted last tiles: a tile that would cross M (or N) is moved back to end at M (N) when the matrix has
    // at least BM rows (BN columns), so every copy stays inside A and B and the unpredicated interior code
    // runs; it overlaps the tile before it and stores only the rows and columns it owns (from tm·BM, tn·BN).
    g.b_aligned = (N & 3) == 0;                          // B's rows start on 16 bytes: one 16-byte copy
    g.row0 = M >= BM ? min(tm * BM, M - BM) : tm * BM;
    g.col0 = N >= BN && g.b_aligned ? min(tn * BN, N - BN) : tn * BN;
    g.shifted = g.row0 != tm * BM || g.col0 != tn * BN;
    g.arow = g.row0 + am, g.bcol = g.col0 + bc;
    g.a_rows_in = 0;  // bit j: row arow + j * A_STEP of A exists
    #pragma unroll
    for (int j = 0; j < A_COPIES; ++j) g.a_rows_in |= (g.arow + j * A_STEP < M ? 1u : 0u) << j;
    g.b_cols = max(0, min(4, N - g.bcol));               // columns of this thread's 4 that exist
    // Interior blocks (every row and column of the tile inside C, B's rows 16-byte aligned) copy every K-slice
    // but a ragged last one as gpu-cpasync does, with no predicates: the edge test is one branch per slice.
    g.interior = g.row0 + BM <= M && g.col0 + BN <= N && g.b_aligned;
    return g;
}

// acc = the tile's product over K-slices kt0 .. kt1 - 1, through the STAGES-deep cp.async pipeline.
__device__ __forceinline__ void multiply_tile(const float* __restrict__ A, const float* __restrict__ B, int M, int N,
                                              int K, const TileGeom& g, int kt0, int kt1, float* smem,
                                              float (&acc)[TM][TN]) {
    float* const As = smem;                       // [STAGES][BK][AS_LD]: A transposed
    float* const Bs = smem + STAGES * A_STAGE;    // [STAGES][BK][BN]
    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int wm0 = (warp / (BN / WN)) * WM, wn0 = (warp % (BN / WN)) * WN;
    const int tr = lane / LC, tc = lane % LC;
    const CopyMap cm = copy_map();
    const int am = cm.am, ak = cm.ak, br = cm.br, bc = cm.bc;
    const int ntiles = kt1 - kt0;
    const bool interior = g.interior, b_aligned = g.b_aligned;
    const int arow = g.arow, bcol = g.bcol, b_cols = g.b_cols;
    const unsigned int a_rows_in = g.a_rows_in;
    int k0 = kt0 * BK;                                   // first k of the next K-slice
    const float* Ag = A + arow * K + k0 + ak;            // dereferenced only where in range
    const float* Bg = B + (k0 + br) * N + bcol;
    const unsigned int as0 = shared_address(As + ak * AS_LD + am), bs0 = shared_address(Bs + br * BN + bc);
    auto load_tile = [&](int stage) {  // the next K-slice of A and B, global -> shared, asynchronously
        const unsigned int a_dst = as0 + 4 * stage * A_STAGE, b_dst = bs0 + 4 * stage * B_STAGE;  // bytes
        if (interior && k0 + BK <= K) {
            #pragma unroll
            for (int j = 0; j < A_COPIES; ++j) cp_async4(a_dst + 4 * j * A_STEP, Ag + j * A_STEP * K);
            #pragma unroll
            for (int j = 0; j < B_COPIES; ++j) cp_async16(b_dst + 4 * j * B_STEP * BN, Bg + j * B_STEP * N);
        } else {  // an edge: each copy reads only what lies inside A or B, zero-filling the rest
            const int ka = k0 + ak;
            #pragma unroll
            for (int j = 0; j < A_COPIES; ++j) {
                const bool in = ka < K && ((a_rows_in >> j) & 1u);
                cp_async4(a_dst + 4 * j * A_STEP, in ? A + (arow + j * A_STEP) * K + ka : A, in ? 4u : 0u);
            }
            #pragma unroll
            for (int j = 0; j < B_COPIES; ++j) {
                const int k = k0 + br + j * B_STEP;
                const unsigned int dst = b_dst + 4 * j * B_STEP * BN;
                const int cols = k < K ? b_cols : 0;
                if (b_aligned) {
                    cp_async16(dst, cols > 0 ? B + k * N + bcol : B, 4u * cols);
                } else {
                    #pragma unroll
                    for (int e = 0; e < 4; ++e)
                        cp_async4(dst + 4 * e, e < cols ? B + k * N + bcol + e : B, e < cols ? 4u : 0u);
                }
            }
        }
        k0 += BK;
        Ag += BK;
        Bg += BK * N;
    };

    #pragma unroll
    for (int i = 0; i < TM; ++i)
        #pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

#if PBAR == 2
    // (made before the first copy is issued: no copy is in flight while the barriers are made)
    if (tid < WARPS_M + WARPS_N)  // row groups' mbarriers, then columns': every thread of the group arrives
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(pbar_mbarriers() + 8 * tid),
                     "r"(tid < WARPS_M ? WARPS_N * 32 : WARPS_M * 32) : "memory");
    __syncthreads();
#endif
    #pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {  // prologue: the first STAGES - 1 K-slices in flight
        if (s < ntiles) load_tile(s);
        cp_async_commit();
    }
    int read_stage = 0, write_stage = STAGES - 1, barriers = 0;
#if FRAG_DB == 2
    // Fragments double-buffered across the slice boundary too (CUTLASS's multistage order): the barrier of slice
    // t + 1 sits in slice t's last k, after its fragments' reads and before its FMAs, so k = 0 of slice t + 1 is
    // read while k = BK - 1 of slice t multiplies. The stage refilled after that barrier is slice t's: every warp
    // that reads it (the block, or with PBAR its group) has read all of slice t into registers before arriving.
    float a[2][TM], b[2][TN];
    if (ntiles > 0) {
        cp_async_wait<STAGES - 2>();
        stage_barrier(barriers++);
        if (STAGES - 1 < ntiles) load_tile(write_stage);
        cp_async_commit();
        write_stage = write_stage + 1 == STAGES ? 0 : write_stage + 1;
        load_fragments(As + wm0 + tr * 4, Bs + wn0 + tc * 4, 0, a[0], b[0]);
    }
    for (int t = 0; t < ntiles; ++t) {
        const float* const as = As + read_stage * A_STAGE + wm0 + tr * 4;
        const float* const bs = Bs + read_stage * B_STAGE + wn0 + tc * 4;
        #pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            if (kk + 1 < BK) {
                load_fragments(as, bs, kk + 1, a[(kk + 1) % 2], b[(kk + 1) % 2]);
            } else if (t + 1 < ntiles) {  // slice t is all in registers: wait for t + 1, refill slice t's stage
                cp_async_wait<STAGES - 2>();
                stage_barrier(barriers++);
                if (t + STAGES < ntiles) load_tile(write_stage);
                cp_async_commit();
                read_stage = read_stage + 1 == STAGES ? 0 : read_stage + 1;
                write_stage = write_stage + 1 == STAGES ? 0 : write_stage + 1;
                load_fragments(As + read_stage * A_STAGE + wm0 + tr * 4, Bs + read_stage * B_STAGE + wn0 + tc * 4, 0,
                               a[0], b[0]);  // (BK is even: k = 0 goes in buffer 0)
            }
            outer_product(a[kk % 2], b[kk % 2], acc);
        }
    }
#else
    for (int t = 0; t < ntiles; ++t) {
        cp_async_wait<STAGES - 2>();  // this thread's copies of slice t have landed
        stage_barrier(barriers++);    // everyone's have; and everyone is done with the stage refilled next
        if (t + STAGES - 1 < ntiles) load_tile(write_stage);
        cp_async_commit();            // (an empty group at the end keeps the count uniform)
#if FRAG_DB == 0
        const float* const as = As + read_stage * A_STAGE + wm0 + tr * 4;
        const float* const bs = Bs + read_stage * B_STAGE + wn0 + tc * 4;
        #pragma unroll
        for (int kk = 0; kk < BK; ++kk) {  // one buffer: each k's fragments read, then multiplied
            float a[TM], b[TN];
            load_fragments(as, bs, kk, a, b);
            outer_product(a, b, acc);
        }
#else
        cpasync_multiply_slice(As + read_stage * A_STAGE + wm0 + tr * 4, Bs + read_stage * B_STAGE + wn0 + tc * 4,
                               acc);  // kernels/cpasync_core.cuh
#endif
        read_stage = read_stage + 1 == STAGES ? 0 : read_stage + 1;
        write_stage = write_stage + 1 == STAGES ? 0 : write_stage + 1;
    }
#endif
}

// Store acc (the tile's sum, or with add the sum of a split-K slice after the first) into C.
__device__ __forceinline__ void store_tile(float* __restrict__ C, int M, int N, const TileGeom& g, bool add,
                                           const float (&acc)[TM][TN]) {
    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int wm0 = (warp / (BN / WN)) * WM, wn0 = (warp % (BN / WN)) * WN;
    const int tr = lane / LC, tc = lane % LC;
    const int crow = g.row0 + wm0 + tr * 4, ccol = g.col0 + wn0 + tc * 4;
    if (g.interior && g.shifted) {  // a shifted last tile: float4 stores of the rows and columns it owns
        const int own_m = g.tm * BM, own_n = g.tn * BN;
        #pragma unroll
        for (int si = 0; si < MS; ++si)
            #pragma unroll
            for (int i = 0; i < 4; ++i)
                #pragma unroll
                for (int sj = 0; sj < NS; ++sj) {
                    const int m = crow + si * LR * 4 + i, n = ccol + sj * LC * 4;
                    if (m < own_m || n < own_n) continue;
                    float4* dst = reinterpret_cast<float4*>(C + m * N + n);
                    float4 v = make_float4(acc[4 * si + i][4 * sj], acc[4 * si + i][4 * sj + 1],
                                           acc[4 * si + i][4 * sj + 2], acc[4 * si + i][4 * sj + 3]);
                    if (add) {
                        const float4 prev = __ldcg(dst);
                        v.x = prev.x + v.x, v.y = prev.y + v.y, v.z = prev.z + v.z, v.w = prev.w + v.w;
                    }
                    *dst = v;
                }
    } else if (g.interior) {  // the whole tile inside C: float4 stores as in gpu-cpasync, no checks
        float* const Cw = C + crow * N + ccol;
        #pragma unroll
        for (int si = 0; si < MS; ++si)
            #pragma unroll
            for (int i = 0; i < 4; ++i)
                #pragma unroll
                for (int sj = 0; sj < NS; ++sj) {
                    float4* dst = reinterpret_cast<float4*>(Cw + (si * LR * 4 + i) * N + sj * LC * 4);
                    float4 v = make_float4(acc[4 * si + i][4 * sj], acc[4 * si + i][4 * sj + 1],
                                           acc[4 * si + i][4 * sj + 2], acc[4 * si + i][4 * sj + 3]);
                    if (add) {  // L2, not L1: the previous slice wrote it from another SM
                        const float4 prev = __ldcg(dst);
                        v.x = prev.x + v.x, v.y = prev.y + v.y, v.z = prev.z + v.z, v.w = prev.w + v.w;
                    }
                    *dst = v;
                }
    } else {  // an edge tile: rows past M skipped, a float4 where its four columns exist (N % 4 == 0)
        #pragma unroll
        for (int si = 0; si < MS; ++si)
            #pragma unroll
            for (int i = 0; i < 4; ++i) {
                const int m = crow + si * LR * 4 + i;
                if (m >= M || m < g.tm * BM) continue;  // (rows below tm·BM: a shifted tile's overlap)
                #pragma unroll
                for (int sj = 0; sj < NS; ++sj) {
                    const int n = ccol + sj * LC * 4;
                    if (n < g.tn * BN) continue;
                    float* dst = C + m * N + n;
                    float v[4] = {acc[4 * si + i][4 * sj], acc[4 * si + i][4 * sj + 1], acc[4 * si + i][4 * sj + 2],
                                  acc[4 * si + i][4 * sj + 3]};
                    if (g.b_aligned && n + 3 < N) {
                        if (add) {
                            const float4 prev = __ldcg(reinterpret_cast<const float4*>(dst));
                            v[0] += prev.x, v[1] += prev.y, v[2] += prev.z, v[3] += prev.w;
                        }
                        *reinterpret_cast<float4*>(dst) = make_float4(v[0], v[1], v[2], v[3]);
                    } else {
                        #pragma unroll
                        for (int e = 0; e < 4; ++e)
                            if (n + e < N) dst[e] = add ? __ldcg(dst + e) + v[e] : v[e];
                    }
                }
            }
    }
}

#if SCHED >= 1
// Stream-K: the block (of G) holding K-slice x of the cut tiles' run, whose ranges start at floor(c·total / G).
__device__ __forceinline__ int sk_block(int x, int total, int G) {
    return static_cast<int>(((x + 1LL) * G + total - 1) / total) - 1;
}

// Stream-K's partial tiles: thread tid's accumulators as float4s at (e · THREADS + tid) · 4 of its slot.
__device__ __forceinline__ void ws_store(int slot, const float (&acc)[TM][TN]) {
    float4* ws = reinterpret_cast<float4*>(gemm_cpasync_any_ws + static_cast<long long>(slot) * (BM * BN));
    #pragma unroll
    for (int i = 0; i < TM; ++i)
        #pragma unroll
        for (int q = 0; q < TN / 4; ++q)
            __stcg(ws + (i * (TN / 4) + q) * THREADS + threadIdx.x,
                   make_float4(acc[i][4 * q], acc[i][4 * q + 1], acc[i][4 * q + 2], acc[i][4 * q + 3]));
}

__device__ __forceinline__ void ws_add(int slot, float (&acc)[TM][TN]) {
    const float4* ws = reinterpret_cast<const float4*>(gemm_cpasync_any_ws + static_cast<long long>(slot) * (BM * BN));
    #pragma unroll
    for (int i = 0; i < TM; ++i)
        #pragma unroll
        for (int q = 0; q < TN / 4; ++q) {
            const float4 v = __ldcg(ws + (i * (TN / 4) + q) * THREADS + threadIdx.x);
            acc[i][4 * q] += v.x, acc[i][4 * q + 1] += v.y, acc[i][4 * q + 2] += v.z, acc[i][4 * q + 3] += v.w;
        }
}
#endif

extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
gemm_cpasync_any(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
             int M, int N, int K) {
    extern __shared__ __align__(16) float smem[];
    const int tid = threadIdx.x;
    const int tilesM = (M + BM - 1) / BM, tilesN = (N + BN - 1) / BN;
    const int ktiles = (K + BK - 1) / BK;
    float acc[TM][TN];
#if SCHED == 0
    const int slice = blockIdx.y / tilesM, slices = gridDim.y / tilesM;
    // The block's place in launch order (x fastest) -> (tile row tm, tile column tn).
    const int linear = (blockIdx.y % tilesM) * tilesN + blockIdx.x;
    int tm, tn;
    tile_of(linear, tilesM, tilesN, tm, tn);
    const int kt0 = ktiles * slice / slices, kt1 = ktiles * (slice + 1) / slices;  // this slice's K-slices
    const TileGeom g = tile_geom(tm, tn, M, N);
    multiply_tile(A, B, M, N, K, g, kt0, kt1, smem, acc);

    const int tile = tm * tilesN + tn;
    if (slice > 0) {  // wait for slice - 1 of this tile to have added its part
        if (tid == 0) {
            unsigned int spins = 0;
            const unsigned int mine = static_cast<unsigned int>(slice);
            while (load_acquire(&gemm_cpasync_any_turn[tile]) != mine && ++spins < SPIN_LIMIT) __nanosleep(64);
            __threadfence();
        }
        __syncthreads();
    }
    store_tile(C, M, N, g, slice > 0, acc);
    if (slices > 1) {  // hand the tile to the next slice (the last one resets the turn for the next launch)
        __threadfence();
        __syncthreads();
        if (tid == 0) atomicExch(&gemm_cpasync_any_turn[tile], slice + 1 == slices ? 0u : slice + 1u);
    }
#else
    // Stream-K over G = gridDim.x blocks. The first dp_tiles tiles in whole waves (block c: c, c + G, ...); the
    // rest cut into K-slice ranges, block c taking [floor(c·total / G), floor((c+1)·total / G)) of their run.
    __shared__ unsigned int s_last;
    const int G = gridDim.x, c = blockIdx.x, tiles = tilesM * tilesN;
    const int dp_tiles = tiles % G == 0 ? tiles : max(0, tiles / G - 1) * G;
    // (32-bit counts: the cut run is under 2 G tiles; products in 64 bits)
    const int total = (tiles - dp_tiles) * ktiles;        // K-slices of the cut tiles
    const int Gs = min(G, total);                         // blocks with K-slices to do
    int it = c < Gs ? static_cast<int>(static_cast<long long>(total) * c / Gs) : total;
    const int end = c < Gs ? static_cast<int>(static_cast<long long>(total) * (c + 1) / Gs) : total;
    const int first_tile = it / ktiles;                   // (of the cut run) where this block's range starts
#if SCHED == 2
    // SCHED 2: the whole tiles are handed out one at a time by an atomic counter (a block takes the next one when
    // it is done with its last), so SMs that run slower take fewer; the cut tiles keep their even static ranges.
    __shared__ int s_tile;
    if (tid == 0) s_tile = static_cast<int>(atomicAdd(&gemm_cpasync_any_next[0], 1u));
    __syncthreads();
    int dp_next = s_tile;
#else
    int dp_next = c;                                      // this block's next whole tile
#endif
    // One loop over the block's work (its whole tiles, then its K-slice range), one copy of the mainloop.
    while (dp_next < dp_tiles || it < end) {
        int rt = -1, kt0 = 0, kt1 = ktiles, tile = dp_next;
        const bool whole_tile = dp_next < dp_tiles;
        if (whole_tile) {
#if SCHED == 1
            dp_next += G;
#endif
        } else {
            rt = it / ktiles, kt0 = it % ktiles;
            kt1 = min(ktiles, kt0 + (end - it));
            tile = dp_tiles + rt;
            it += kt1 - kt0;
        }
        int tm, tn;
        tile_of(tile, tilesM, tilesN, tm, tn);
        const TileGeom g = tile_geom(tm, tn, M, N);
        __syncthreads();  // everyone is done with the stages of the tile before
#if SCHED == 2
        if (whole_tile && tid == 0) s_tile = static_cast<int>(atomicAdd(&gemm_cpasync_any_next[0], 1u));
#endif
        multiply_tile(A, B, M, N, K, g, kt0, kt1, smem, acc);
        bool store = kt0 == 0 && kt1 == ktiles;  // the whole tile in this block
        if (!store) {  // a cut tile: park the partial, count in; the last of its blocks sums them all
            const int t0 = rt * ktiles;
            const int c_lo = sk_block(t0, total, Gs), c_hi = sk_block(t0 + ktiles - 1, total, Gs);
            // slot: c for the range's first tile, Gs + c for its last (a block cuts at most these two); the
            // arrival counter of the cut tile: its place rt in the cut run (fewer than 2 G tiles)
            const int slot = rt == first_tile ? c : Gs + c;
            if (rt >= SPLITK_TILES || static_cast<long long>(slot + 1) * (BM * BN) > WS_FLOATS) __trap();
            ws_store(slot, acc);
            __threadfence();
            __syncthreads();
            if (tid == 0) s_last = atomicAdd(&gemm_cpasync_any_turn[rt], 1u) == static_cast<unsigned int>(c_hi - c_lo);
            __syncthreads();
            store = s_last != 0;
            if (store) {
                __threadfence();
                #pragma unroll
                for (int i = 0; i < TM; ++i)
                    #pragma unroll
                    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
                for (int b = c_lo; b <= c_hi; ++b) {  // in block order: the same sum whoever is last
                    const int b_first = static_cast<int>(static_cast<long long>(total) * b / Gs) / ktiles;
                    ws_add(rt == b_first ? b : Gs + b, acc);
                }
                if (tid == 0) gemm_cpasync_any_turn[rt] = 0u;  // for the next launch
            }
        }
        if (store) store_tile(C, M, N, g, false, acc);
#if SCHED == 2
        if (whole_tile) {
            __syncthreads();  // s_tile holds the next whole tile
            dp_next = s_tile;
        }
#endif
    }
#if SCHED == 2
    __syncthreads();
    if (tid == 0) {  // the last block to finish resets the counters for the next launch (every take is done)
        __threadfence();
        if (atomicAdd(&gemm_cpasync_any_next[1], 1u) == static_cast<unsigned int>(G - 1)) {
            gemm_cpasync_any_next[0] = 0u;
            gemm_cpasync_any_next[1] = 0u;
        }
    }
#endif
#endif
}
