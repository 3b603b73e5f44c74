// Warp tiling fed by a cp.async pipeline (sm_80+). Block tile BM x BN, each warp a WM x WN tile, each lane a
// TM x TN register tile made of 4x4 sub-tiles LR*4 rows (LC*4 columns) apart, so that every shared-memory read
// is one LDS.128 and a warp's distinct addresses are contiguous (broadcast, no bank conflicts).
// Global -> shared copies are asynchronous (LDGSTS), STAGES K-slices deep: the next slices land while the FMAs
// run on this one, with no registers spent on staging and one barrier per slice.
//   A is stored transposed (k-major). A copy cannot transpose a 16-byte chunk, so A goes in 4-byte copies: a
//   warp's 32 copies are 4 rows x 8 consecutive k of A (one whole 32-byte sector per row) and land at As[k][m]
//   with rows padded to BM + 4 floats, bank (4k + m) % 32: all 32 banks, no conflict, and rows stay 16-byte
//   aligned for the LDS.128 reads. B goes in 16-byte copies into Bs[k][n]: a warp writes whole rows.
// Split-K for small grids: when the tiles of C are too few to fill the GPU, the host launches S slices of K
// per tile (grid.y = S * M / BM). Slice z adds its partial sums into C after slice z - 1 is done (a turn
// counter per tile, reset to 0 by the last slice), so the sum order and the result are the same every run.
// Needs M % BM == 0, N % BN == 0, K % BK == 0 (the engine zero-pads other sizes).
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
#include "cpasync_core.cuh"  // launch shape, cp.async helpers, the K-slice multiply (shared with gpu-cpasync-any)

extern "C" {
__device__ unsigned int gemm_cpasync_turn[SPLITK_TILES];  // split-K: which slice of each tile may add next
}

extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
gemm_cpasync(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
             int M, int N, int K) {
    extern __shared__ __align__(16) float smem[];
    float* const As = smem;                       // [STAGES][BK][AS_LD]: A transposed
    float* const Bs = smem + STAGES * A_STAGE;    // [STAGES][BK][BN]
    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int wm0 = (warp / (BN / WN)) * WM, wn0 = (warp % (BN / WN)) * WN;
    const int tr = lane / LC, tc = lane % LC;
    const int tilesM = M / BM;
    const int by = blockIdx.y % tilesM, slice = blockIdx.y / tilesM, slices = gridDim.y / tilesM;
    const int ktiles = K / BK;
    const int kt0 = ktiles * slice / slices, kt1 = ktiles * (slice + 1) / slices;  // this slice's K-slices
    const int ntiles = kt1 - kt0;

    // This thread's copies: A rows am + j * A_ROW_STEP at k ak; B rows br + j * B_ROW_STEP at columns bc..bc+3.
    const int am = 4 * (warp / KH) + (lane / 8) % 4, ak = 8 * (warp % KH) + lane % 8;
    const int br = tid / (BN / 4), bc = 4 * (tid % (BN / 4));
    const float* Ag = A + (by * BM + am) * K + kt0 * BK + ak;
    const float* Bg = B + (kt0 * BK + br) * N + blockIdx.x * BN + bc;
    const unsigned int as0 = shared_address(As + ak * AS_LD + am), bs0 = shared_address(Bs + br * BN + bc);
    auto load_tile = [&](int stage) {  // the next K-slice of A and B, global -> shared, asynchronously
        const unsigned int a_dst = as0 + 4 * stage * A_STAGE, b_dst = bs0 + 4 * stage * B_STAGE;  // bytes
        #pragma unroll
        for (int j = 0; j < A_COPIES; ++j) cp_async4(a_dst + 4 * j * A_ROW_STEP, Ag + j * A_ROW_STEP * K);
        #pragma unroll
        for (int j = 0; j < B_COPIES; ++j) cp_async16(b_dst + 4 * j * B_ROW_STEP * BN, Bg + j * B_ROW_STEP * N);
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

    const int tile = by * gridDim.x + blockIdx.x;
    if (slice > 0) {  // wait for slice - 1 of this tile to have added its part
        if (tid == 0) {
            unsigned int spins = 0;
            const unsigned int mine = static_cast<unsigned int>(slice);
            while (load_acquire(&gemm_cpasync_turn[tile]) != mine && ++spins < SPIN_LIMIT) __nanosleep(64);
            __threadfence();
        }
        __syncthreads();
    }
    float* const Cw = C + (by * BM + wm0 + tr * 4) * N + blockIdx.x * BN + wn0 + tc * 4;
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
    if (slices > 1) {  // hand the tile to the next slice (the last one resets the turn for the next launch)
        __threadfence();
        __syncthreads();
        if (tid == 0) atomicExch(&gemm_cpasync_turn[tile], slice + 1 == slices ? 0u : slice + 1u);
    }
}
