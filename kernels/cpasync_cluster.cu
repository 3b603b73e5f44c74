// FP32 SIMT GEMM whose tiles arrive by TMA, optionally in 2-block clusters sharing one operand by TMA multicast
// (technique 2 of the round-3 plan for the FP32 SIMT rung; an experiment beside kernels/cpasync_any.cu).
//
// A is M×K, B is K×N, C is M×N, all row-major FP32. Build for sm_90a:
//   nvcc -cubin -O3 -arch=sm_90a -DBM=128 -DBN=256 -DWM=64 -DWN=64 -DTM=8 -DTN=16 -DSHARE=2 cpasync_cluster.cu
//
// What differs from gpu-cpasync-any (same block, warp and thread tiles, the same FFMA inner product):
//   * Loads: one thread issues cp.async.bulk.tensor (TMA) copies of each K-slice (BK = 32) of A and B into a
//     STAGES-deep ring of shared memory, each stage guarded by a "full" mbarrier (the copy engine counts the bytes
//     in) and, in clusters, an "empty" one (both blocks have read the stage). No thread computes a global address,
//     issues an LDGSTS or tests an edge: TMA zero-fills whatever part of a box lies outside A or B, so ragged M, N
//     and K need only bounds-checked stores. (TMA needs rows that are multiples of 16 bytes: the host maps a
//     padded copy, pad_rows_fp32, of an operand whose rows are not.)
//   * A lands as TMA writes it, As[m][k] (rows of 32 floats = 128 bytes), with the 128-byte swizzle in place of the
//     transposed, padded As[k][m] of gpu-cpasync-any: the 16-byte chunk c of row m is stored at chunk c ^ (m % 8).
//     A thread reads A as As[m][k..k+3] (one LDS.128 per row and 4 k), and its TM rows are m = tr + LR·i
//     (strided, not 4 consecutive), so the LR lanes of a warp that read one chunk read LR rows with distinct
//     m % 8: distinct banks after the swizzle, no conflict. B lands unswizzled as Bs[k][n] (rows of BN floats),
//     read as gpu-cpasync-any reads it (consecutive 16-byte chunks across a warp's lanes).
//   * SHARE=1: clusters of 2 blocks along N share the A tile: each block loads half of its rows and multicasts it
//     to both. SHARE=2: clusters of 2 blocks along M share the B tile, each loading half of its K-rows. The shared
//     operand crosses from L2 to the SMs once per pair instead of twice (128×256 tiles: 48 KiB per block and
//     K-slice without sharing, 40 KiB sharing A, 32 KiB sharing B).
// Block order: grouped (GROUP_M rows of cluster tiles per column), as gpu-cpasync-any's default. No split-K.
#include <stdint.h>

#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 256
#endif
#ifndef WM
#define WM 64
#endif
#ifndef WN
#define WN 64
#endif
#ifndef TM
#define TM 8
#endif
#ifndef TN
#define TN 16
#endif
#ifndef STAGES
#define STAGES 4
#endif
#ifndef GROUP_M
#define GROUP_M 8  // rows of cluster tiles walked before the next column
#endif
#ifndef SHARE
#define SHARE 0  // 0: no cluster; 1: 2-block clusters along N multicast A; 2: along M, multicast B
#endif
#ifndef RELEASE
#define RELEASE 0  // 0: a block barrier per K-slice, then one arrival per block; 1: each warp arrives when it has
                   // read the stage (no block barrier in the mainloop; only the loading thread waits for all)
#endif
#ifndef LAG
#define LAG 0  // 0: refill the stage just read; 1: the one read a K-slice earlier (its readers are surely done,
               // so the loading thread seldom waits; STAGES - 1 slices stay in flight)
#endif

#define BK 32                              // one 128-byte swizzle row of FP32
#define CLUSTER (SHARE ? 2 : 1)
#define THREADS ((BM / WM) * (BN / WN) * 32)
#define LR (WM / TM)                       // lanes of a warp along M
#define LC (WN / TN)                       // lanes of a warp along N
#define NS (TN / 4)                        // 4-column sub-tiles per lane
#define A_BYTES (BM * BK * 4)
#define B_BYTES (BK * BN * 4)
#define STAGE_BYTES (A_BYTES + B_BYTES)
#define MIN_BLOCKS ((TM * TN <= 64 ? 512 : 256) / THREADS)
#define RELEASERS ((RELEASE ? THREADS / 32 : 1) * CLUSTER)  // arrivals that free a stage
static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles divide the block tile");
static_assert(LR * LC == 32 && LR <= 8 && (LR & (LR - 1)) == 0 && LC <= 8, "a warp is LR x LC lanes, LR a power of 2");
static_assert(WM % 8 == 0 && TN % 4 == 0, "a warp's first row is a multiple of 8 (the swizzle's period)");
static_assert(BN <= 256 && BM / CLUSTER <= 256, "a TMA box is at most 256 rows or columns");
static_assert(A_BYTES % (1024 * CLUSTER) == 0, "each half of a shared A tile starts on the swizzle's 1024 bytes");
static_assert(MIN_BLOCKS >= 1, "at most 512 threads");
static_assert(LAG == 0 || LAG == 1, "LAG is 0 or 1");
static_assert(STAGES > LAG, "a stage in flight");

#include "hopper_ptx.cuh"  // tensor map, mbarriers, clusters, TMA loads (shared with the other TMA kernel)

__device__ __forceinline__ float4 lds128(uint32_t addr) {
    float4 v;
    asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "r"(addr)
                 : "memory");  // ordered after the stage's mbarrier wait and before the barrier that frees it
    return v;
}

// The cluster tile (ctm, ctn) that cluster `cid` computes: GROUP_M rows of cluster tiles per column.
__device__ __forceinline__ void cluster_tile(int cid, int ctiles_m, int ctiles_n, int& ctm, int& ctn) {
    const int per_group = GROUP_M * ctiles_n, first_m = (cid / per_group) * GROUP_M;
    const int rows = min(ctiles_m - first_m, GROUP_M);
    ctm = first_m + (cid % per_group) % rows, ctn = (cid % per_group) / rows;
}

// One block per BM×BN tile of C, in clusters of CLUSTER blocks (grid: whole clusters, 1-D; see tma_fp32_grid in
// backends/tma_fp32.py). A block past M or N (the second of a pair at an odd edge) loads zeros and stores nothing.
// THREADS threads; dynamic shared memory STAGES·STAGE_BYTES + 1024 (alignment) + 16·STAGES (barriers) bytes.
extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
#if CLUSTER > 1
    __cluster_dims__(CLUSTER, 1, 1)
#endif
    gemm_tma_fp32(const __grid_constant__ TensorMap tmA, const __grid_constant__ TensorMap tmB, float* __restrict__ C,
                  int M, int N, int K) {
    extern __shared__ uint8_t smem_raw[];
    const uint32_t base = (smem_u32(smem_raw) + 1023) & ~1023u;  // the swizzle repeats every 1024 bytes
    const uint32_t full = base + STAGES * STAGE_BYTES, empty = full + 8 * STAGES;
#if CLUSTER > 1
    const uint32_t rank = cluster_rank();
#else
    const uint32_t rank = 0;
#endif
    constexpr int CM = SHARE == 2 ? 2 : 1, CN = SHARE == 1 ? 2 : 1;  // the cluster tile is CM·BM × CN·BN
    int ctm, ctn;
    cluster_tile(blockIdx.x / CLUSTER, (M + CM * BM - 1) / (CM * BM), (N + CN * BN - 1) / (CN * BN), ctm, ctn);
    const int row0 = (ctm * CM + (SHARE == 2 ? rank : 0)) * BM, col0 = (ctn * CN + (SHARE == 1 ? rank : 0)) * BN;
    const int KT = (K + BK - 1) / BK;

    const int tid = threadIdx.x;
    if (tid == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(full + 8 * s, 1);         // this block's expect_tx arrival (and the bytes)
            mbar_init(empty + 8 * s, RELEASERS);  // every releaser (block or warp) of every block of the cluster
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
#if CLUSTER > 1
    cluster_sync();  // the peer's barriers are initialised before anyone multicasts into or arrives on them
#else
    __syncthreads();
#endif

    // K-slice t into its stage: this block's A and B, the shared operand's half multicast to both blocks.
    auto issue = [&](int t) {
        const int s = t % STAGES;
        const uint32_t bar = full + 8 * s, a_dst = base + s * STAGE_BYTES, b_dst = a_dst + A_BYTES;
        mbar_expect_tx(bar, STAGE_BYTES);  // the whole stage, zero-filled parts too, lands in every block
#if SHARE == 1
        tma_load_2d_multicast(a_dst + rank * (A_BYTES / 2), &tmA, t * BK, row0 + rank * (BM / 2), bar, 3);
#else
        tma_load_2d(a_dst, &tmA, t * BK, row0, bar);
#endif
#if SHARE == 2
        tma_load_2d_multicast(b_dst + rank * (B_BYTES / 2), &tmB, col0, t * BK + rank * (BK / 2), bar, 3);
#else
        tma_load_2d(b_dst, &tmB, col0, t * BK, bar);
#endif
    };
    if (tid == 0)
        for (int t = 0; t < STAGES && t < KT; ++t) issue(t);

    const int warp = tid / 32, lane = tid % 32;
    const int wm0 = (warp / (BN / WN)) * WM, wn0 = (warp % (BN / WN)) * WN;
    const int tr = lane / LC, tc = lane % LC;
    // This thread's rows of the tile: wm0 + tr + LR·i (i < TM); its columns: wn0 + 4·tc + 4·LC·s + e (s < NS).
    // Row m's chunk c of A sits at byte m·128 + ((c ^ (m % 8)) << 4), and m % 8 = tr ^ (LR·i % 8) (tr < LR, LR a
    // power of 2, wm0 a multiple of 8), so the chunk read for k-group g is (g ^ (LR·i % 8)) ^ tr: a compile-time
    // constant XOR tr.
    const uint32_t a_thread = (wm0 + tr) * 128, b_thread = (wn0 + 4 * tc) * 4;

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

    for (int kt = 0; kt < KT; ++kt) {
        const int s = kt % STAGES;
        mbar_wait(full + 8 * s, (kt / STAGES) & 1);
        const uint32_t as = base + s * STAGE_BYTES + a_thread, bs = base + s * STAGE_BYTES + A_BYTES + b_thread;
#pragma unroll
        for (int g = 0; g < BK / 4; ++g) {
            float a[TM][4];
#pragma unroll
            for (int i = 0; i < TM; ++i) {
                const float4 v = lds128(as + LR * i * 128 + (((g ^ ((LR * i) & 7)) ^ tr) << 4));
                a[i][0] = v.x, a[i][1] = v.y, a[i][2] = v.z, a[i][3] = v.w;
            }
#pragma unroll
            for (int kk = 0; kk < 4; ++kk) {
                float b[TN];
#pragma unroll
                for (int q = 0; q < NS; ++q) {
                    const float4 v = lds128(bs + (4 * g + kk) * BN * 4 + q * LC * 16);
                    b[4 * q] = v.x, b[4 * q + 1] = v.y, b[4 * q + 2] = v.z, b[4 * q + 3] = v.w;
                }
#pragma unroll
                for (int i = 0; i < TM; ++i)
#pragma unroll
                    for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i][kk], b[j], acc[i][j]);
            }
        }
        // Release stage s in every block of the cluster (a peer's half of a shared operand lands in both). The
        // default .release.cta semantics order this thread's reads (finished: their values are in registers)
        // before the arrival; the warp or block barrier before it covers the other readers.
#if RELEASE
        __syncwarp();
        if (lane == 0)
#else
        __syncthreads();
        if (tid == 0)
#endif
#if CLUSTER > 1
            for (uint32_t r = 0; r < CLUSTER; ++r) mbar_arrive_cluster(empty + 8 * s, r);
#else
            mbar_arrive(empty + 8 * s);
#endif
        // Refill the stage of K-slice j = kt - LAG with K-slice j + STAGES once every releaser has freed it. The
        // n-th completion of a stage's "empty" barrier frees it after K-slice s + n·STAGES; it cannot run two
        // phases ahead of this wait, since the next phase needs K-slice j + STAGES, which this thread loads.
        const int j = kt - LAG;
        if (tid == 0 && j >= 0 && j + STAGES < KT) {
            mbar_wait(empty + 8 * (j % STAGES), (j / STAGES) & 1);
            issue(j + STAGES);
        }
    }

    // C, bounds-checked: a float4 where the four columns exist and rows of C are 16-byte aligned.
    const bool vec = (N & 3) == 0;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int m = row0 + wm0 + tr + LR * i;
        if (m >= M) continue;
        float* const crow = C + (size_t)m * N;
#pragma unroll
        for (int q = 0; q < NS; ++q) {
            const int n = col0 + wn0 + 4 * tc + 4 * LC * q;
            if (vec && n + 3 < N) {
                *reinterpret_cast<float4*>(crow + n) =
                    make_float4(acc[i][4 * q], acc[i][4 * q + 1], acc[i][4 * q + 2], acc[i][4 * q + 3]);
            } else {
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    if (n + e < N) crow[n + e] = acc[i][4 * q + e];
            }
        }
    }
#if CLUSTER > 1
    cluster_sync();  // no block exits while its peer may still arrive on its barriers
#endif
}

// dst (rows × ld floats, ld ≥ cols a multiple of 4) = src (rows × cols): the row pitch TMA needs. The tail of each
// row is left as it is: the tensor map's width is cols, so TMA reads it as zeros. Block (32, 8).
extern "C" __global__ void pad_rows_fp32(const float* __restrict__ src, float* __restrict__ dst, int rows, int cols,
                                         int ld) {
    const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 8 + threadIdx.y;
    if (x < cols && y < rows) dst[(size_t)y * ld + x] = src[(size_t)y * cols + x];
}
