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
#include "cpasync_core.cuh"  // launch shape, cp.async helpers, the K-slice multiply (shared with gpu-cpasync)

extern "C" {
__device__ unsigned int gemm_cpasync_any_turn[SPLITK_TILES];  // split-K: which slice of each tile may add next
}

// `bytes` of the source are copied, the rest of the destination is zero-filled (0: nothing is read).
__device__ __forceinline__ void cp_async4(unsigned int dst, const float* src, unsigned int bytes) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(bytes) : "memory");
}

__device__ __forceinline__ void cp_async16(unsigned int dst, const float* src, unsigned int bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(bytes) : "memory");
}

extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
gemm_cpasync_any(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
             int M, int N, int K) {
    extern __shared__ __align__(16) float smem[];
    float* const As = smem;                       // [STAGES][BK][AS_LD]: A transposed
    float* const Bs = smem + STAGES * A_STAGE;    // [STAGES][BK][BN]
    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int wm0 = (warp / (BN / WN)) * WM, wn0 = (warp % (BN / WN)) * WN;
    const int tr = lane / LC, tc = lane % LC;
    const int tilesM = (M + BM - 1) / BM, tilesN = gridDim.x;
    const int slice = blockIdx.y / tilesM, slices = gridDim.y / tilesM;
    // Grouped order: the block's place in launch order (x fastest) -> (tile row tm, tile column tn).
    const int linear = (blockIdx.y % tilesM) * tilesN + blockIdx.x;
    const int per_group = GROUP_M * tilesN, first_m = (linear / per_group) * GROUP_M;
    const int rows_in_group = min(tilesM - first_m, GROUP_M);
    int tm = first_m + (linear % per_group) % rows_in_group, tn = (linear % per_group) / rows_in_group;
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
    const int ktiles = (K + BK - 1) / BK;
    const int kt0 = ktiles * slice / slices, kt1 = ktiles * (slice + 1) / slices;  // this slice's K-slices
    const int ntiles = kt1 - kt0;

    // This thread's copies: A rows am + j * A_ROW_STEP at k ak; B rows br + j * B_ROW_STEP at columns bc..bc+3.
    const int am = 4 * (warp / KH) + (lane / 8) % 4, ak = 8 * (warp % KH) + lane % 8;
    const int br = tid / (BN / 4), bc = 4 * (tid % (BN / 4));
    // Shifted last tiles: a tile that would cross M (or N) is moved back to end at M (N) when the matrix has
    // at least BM rows (BN columns), so every copy stays inside A and B and the unpredicated interior code
    // runs; it overlaps the tile before it and stores only the rows and columns it owns (from tm·BM, tn·BN).
    const bool b_aligned = (N & 3) == 0;                 // B's rows start on 16 bytes: one 16-byte copy
    const int row0 = M >= BM ? min(tm * BM, M - BM) : tm * BM;
    const int col0 = N >= BN && b_aligned ? min(tn * BN, N - BN) : tn * BN;
    const bool shifted = row0 != tm * BM || col0 != tn * BN;
    const int arow = row0 + am, bcol = col0 + bc;
    unsigned int a_rows_in = 0;  // bit j: row arow + j * A_ROW_STEP of A exists
    #pragma unroll
    for (int j = 0; j < A_COPIES; ++j) a_rows_in |= (arow + j * A_ROW_STEP < M ? 1u : 0u) << j;
    const int b_cols = max(0, min(4, N - bcol));         // columns of this thread's 4 that exist
    // Interior blocks (every row and column of the tile inside C, B's rows 16-byte aligned) copy every K-slice
    // but a ragged last one as gpu-cpasync does, with no predicates: the edge test is one branch per slice.
    const bool interior = row0 + BM <= M && col0 + BN <= N && b_aligned;
    int k0 = kt0 * BK;                                   // first k of the next K-slice
    const float* Ag = A + arow * K + k0 + ak;            // dereferenced only where in range
    const float* Bg = B + (k0 + br) * N + bcol;
    const unsigned int as0 = shared_address(As + ak * AS_LD + am), bs0 = shared_address(Bs + br * BN + bc);
    auto load_tile = [&](int stage) {  // the next K-slice of A and B, global -> shared, asynchronously
        const unsigned int a_dst = as0 + 4 * stage * A_STAGE, b_dst = bs0 + 4 * stage * B_STAGE;  // bytes
        if (interior && k0 + BK <= K) {
            #pragma unroll
            for (int j = 0; j < A_COPIES; ++j) cp_async4(a_dst + 4 * j * A_ROW_STEP, Ag + j * A_ROW_STEP * K);
            #pragma unroll
            for (int j = 0; j < B_COPIES; ++j) cp_async16(b_dst + 4 * j * B_ROW_STEP * BN, Bg + j * B_ROW_STEP * N);
        } else {  // an edge: each copy reads only what lies inside A or B, zero-filling the rest
            const int ka = k0 + ak;
            #pragma unroll
            for (int j = 0; j < A_COPIES; ++j) {
                const bool in = ka < K && ((a_rows_in >> j) & 1u);
                cp_async4(a_dst + 4 * j * A_ROW_STEP, in ? A + (arow + j * A_ROW_STEP) * K + ka : A, in ? 4u : 0u);
            }
            #pragma unroll
            for (int j = 0; j < B_COPIES; ++j) {
                const int k = k0 + br + j * B_ROW_STEP;
                const unsigned int dst = b_dst + 4 * j * B_ROW_STEP * BN;
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

    float acc[TM][TN];
    #pragma unroll
    for (int i = 0; i < TM; ++i)
        #pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

    #pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {  // prologue: the first STAGES - 1 K-slices in flight
        if (s < ntiles) load_tile(s);
        cp_async_commit();
    }
    int read_stage = 0, write_stage = STAGES - 1;
    for (int t = 0; t < ntiles; ++t) {
        cp_async_wait<STAGES - 2>();  // this thread's copies of slice t have landed
        __syncthreads();              // everyone's have; and everyone is done with the stage refilled next
        if (t + STAGES - 1 < ntiles) load_tile(write_stage);
        cp_async_commit();            // (an empty group at the end keeps the count uniform)
        cpasync_multiply_slice(As + read_stage * A_STAGE + wm0 + tr * 4, Bs + read_stage * B_STAGE + wn0 + tc * 4,
                               acc);  // kernels/cpasync_core.cuh
        read_stage = read_stage + 1 == STAGES ? 0 : read_stage + 1;
        write_stage = write_stage + 1 == STAGES ? 0 : write_stage + 1;
    }

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
    const int crow = row0 + wm0 + tr * 4, ccol = col0 + wn0 + tc * 4;
    if (interior && shifted) {  // a shifted last tile: float4 stores of the rows and columns it owns
        const int own_m = tm * BM, own_n = tn * BN;
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
                    if (slice > 0) {
                        const float4 prev = __ldcg(dst);
                        v.x = prev.x + v.x, v.y = prev.y + v.y, v.z = prev.z + v.z, v.w = prev.w + v.w;
                    }
                    *dst = v;
                }
    } else if (interior) {  // the whole tile inside C: float4 stores as in gpu-cpasync, no checks
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
                    if (slice > 0) {  // L2, not L1: the previous slice wrote it from another SM
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
                if (m >= M || m < tm * BM) continue;  // (rows below tm·BM: a shifted tile's overlap)
                #pragma unroll
                for (int sj = 0; sj < NS; ++sj) {
                    const int n = ccol + sj * LC * 4;
                    if (n < tn * BN) continue;
                    float* dst = C + m * N + n;
                    float v[4] = {acc[4 * si + i][4 * sj], acc[4 * si + i][4 * sj + 1], acc[4 * si + i][4 * sj + 2],
                                  acc[4 * si + i][4 * sj + 3]};
                    if (b_aligned && n + 3 < N) {
                        if (slice > 0) {
                            const float4 prev = __ldcg(reinterpret_cast<const float4*>(dst));
                            v[0] += prev.x, v[1] += prev.y, v[2] += prev.z, v[3] += prev.w;
                        }
                        *reinterpret_cast<float4*>(dst) = make_float4(v[0], v[1], v[2], v[3]);
                    } else {
                        #pragma unroll
                        for (int e = 0; e < 4; ++e)
                            if (n + e < N) dst[e] = slice > 0 ? __ldcg(dst + e) + v[e] : v[e];
                    }
                }
            }
    }
    if (slices > 1) {  // hand the tile to the next slice (the last one resets the turn for the next launch)
        __threadfence();
        __syncthreads();
        if (tid == 0) atomicExch(&gemm_cpasync_any_turn[tile], slice + 1 == slices ? 0u : slice + 1u);
    }
}
