// The shared core of the cp.async warp-tiling kernels, kernels/cpasync.cu (gpu-cpasync) and kernels/cpasync_any.cu
// (gpu-cpasync-any): the launch shape derived from the includer's BM, BN, BK, WM, WN, TM, TN and STAGES, the
// cp.async helpers, and the multiply of one K-slice from shared memory, so the two kernels' interior loops are
// one piece of code. gemmviz inlines this file where a kernel #includes it (core/paths.kernel_source), so the
// kernel cache keys and the code view see it, and no include path is needed.
#pragma once
#define THREADS ((BM / WM) * (BN / WN) * 32)
#define WARPS (THREADS / 32)
#define LR (WM / TM)      // lanes of a warp along M
#define LC (WN / TN)      // lanes of a warp along N
#define MS (TM / 4)       // 4-row sub-tiles per lane
#define NS (TN / 4)       // 4-column sub-tiles per lane
#define AS_LD (BM + 4)    // padded row of the transposed A tile (floats)
#define A_STAGE (BK * AS_LD)
#define B_STAGE (BK * BN)
#define A_COPIES (BM * BK / THREADS)          // 4-byte copies of A per thread per K-slice
#define B_COPIES (BK * BN / 4 / THREADS)      // 16-byte copies of B per thread per K-slice
#define KH (BK / 8)                           // 8-wide k groups of a K-slice
#define A_ROW_STEP (4 * WARPS / KH)           // rows of A between one thread's copies
#define B_ROW_STEP (THREADS / (BN / 4))       // rows of B between one thread's copies
// Registers: 64 accumulators fit 128 registers (two blocks of 256 threads per SM), 128 need up to 255.
#define MIN_BLOCKS ((TM * TN <= 64 ? 512 : 256) / THREADS)
#define SPLITK_TILES 4096                     // turn counters: the host splits K only below this many tiles
#define SPIN_LIMIT (1u << 24)                 // ~1 s: a lost turn gives a wrong C (caught), never a hang
static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles divide the block tile");
static_assert(LR * LC == 32 && LR <= 8 && LC <= 8, "a warp is LR x LC lanes; a fragment read is <= 128 bytes");
static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are whole 4x4 sub-tiles");
static_assert(BK % 8 == 0 && WARPS % KH == 0, "a warp copies 4 rows x 8 k of A; the warps cover the k groups");
static_assert(A_COPIES * A_ROW_STEP == BM && A_COPIES * THREADS == BM * BK, "the A tile copies in whole rounds");
static_assert((BK * BN / 4) % THREADS == 0 && THREADS % (BN / 4) == 0, "the B tile copies in whole rounds");
static_assert(MIN_BLOCKS >= 1, "at most 512 threads");

__device__ __forceinline__ unsigned int shared_address(const float* p) {
    return static_cast<unsigned int>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void cp_async4(unsigned int dst, const float* src) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(src) : "memory");
}

__device__ __forceinline__ void cp_async16(unsigned int dst, const float* src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

template <int PENDING>
__device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING) : "memory");
}

__device__ __forceinline__ unsigned int load_acquire(const unsigned int* p) {
    unsigned int v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
    return v;
}

// One K-slice of the block tile: fragments of A (transposed, `as` = this lane's first column) and B (`bs`) read
// from shared memory with LDS.128, double-buffered (k + 1 loads while k multiplies), TM x TN FMAs per k.
__device__ __forceinline__ void cpasync_multiply_slice(const float* as, const float* bs, float (&acc)[TM][TN]) {
    float a[2][TM], b[2][TN];
    #pragma unroll
    for (int kk = 0; kk <= BK; ++kk) {
        if (kk < BK) {
            #pragma unroll
            for (int s = 0; s < MS; ++s) {
                const float4 v = *reinterpret_cast<const float4*>(as + kk * AS_LD + s * LR * 4);
                a[kk % 2][4 * s] = v.x, a[kk % 2][4 * s + 1] = v.y, a[kk % 2][4 * s + 2] = v.z,
                a[kk % 2][4 * s + 3] = v.w;
            }
            #pragma unroll
            for (int s = 0; s < NS; ++s) {
                const float4 v = *reinterpret_cast<const float4*>(bs + kk * BN + s * LC * 4);
                b[kk % 2][4 * s] = v.x, b[kk % 2][4 * s + 1] = v.y, b[kk % 2][4 * s + 2] = v.z,
                b[kk % 2][4 * s + 3] = v.w;
            }
        }
        if (kk > 0) {
            const int f = (kk - 1) % 2;
            #pragma unroll
            for (int i = 0; i < TM; ++i)
                #pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[f][i], b[f][j], acc[i][j]);
        }
    }
}
