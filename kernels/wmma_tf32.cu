// Tensor cores through WMMA in TF32 (m16n16k8). A BM x BN block tile from WARPS_M x WARPS_N warps,
// each warp a (BM/WARPS_M) x (BN/WARPS_N) tile of 16x16 accumulator fragments. A and B tiles are
// staged in shared memory (rows padded against bank conflicts) through a STAGES-deep cp.async pipeline, so
// the next K-slices are in flight while the tensor cores work on this one.
// ROUND_TF32 (below) says whether inputs are rounded to TF32 (10-bit mantissa) or truncated by the tensor
// cores; the registry default rounds, the configuration tuned for the H200 does not. Accumulation in FP32.
// Needs M % BM == 0, N % BN == 0, K % BK == 0 (the engine zero-pads other sizes).
#include <mma.h>
#include <cuda_pipeline.h>
using namespace nvcuda;

#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 32
#endif
#ifndef WARPS_M
#define WARPS_M 2
#endif
#ifndef WARPS_N
#define WARPS_N 2
#endif
#ifndef STAGES
#define STAGES 2
#endif
// Row padding of the shared tiles, in floats. A fragment loads read rows g and g+8 at columns t, t+4
// (g = lane/4, t = lane%4): a row stride of BK+4 puts those 32 reads in 32 different banks, BK+8 in 16.
#ifndef SKEW_A
#define SKEW_A 4
#endif
#define SKEW_B 8
// ROUND_TF32=1 rounds each input to TF32 (__float_to_tf32, round to nearest) after loading a fragment;
// ROUND_TF32=0 hands the FP32 bits to the tensor cores, which use the top 19 bits (truncation): half
// the instructions in the inner loop, a slightly larger error, still checked against the TF32 threshold.
#ifndef ROUND_TF32
#define ROUND_TF32 1
#endif
#define WTM (BM / WARPS_M)
#define WTN (BN / WARPS_N)
#define FM (WTM / 16)
#define FN (WTN / 16)
#define THREADS (WARPS_M * WARPS_N * 32)
#define A_STAGE (BM * (BK + SKEW_A))
#define B_STAGE (BK * (BN + SKEW_B))
static_assert(BM % (16 * WARPS_M) == 0 && BN % (16 * WARPS_N) == 0, "warp tiles are whole 16x16 fragments");
static_assert(BK % 8 == 0 && SKEW_A % 4 == 0, "K-slices are whole k8 steps; rows stay 16-byte aligned");
static_assert(THREADS <= 1024, "at most 1024 threads per block");

extern "C" __global__ void __launch_bounds__(THREADS)
gemm_wmma_tf32(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
               int M, int N, int K) {
    extern __shared__ __align__(128) float smem[];
    float* As = smem;                       // [STAGES][BM][BK + SKEW_A]
    float* Bs = smem + STAGES * A_STAGE;    // [STAGES][BK][BN + SKEW_B]
    const int warp = threadIdx.x / 32;
    const int wr = warp / WARPS_N, wc = warp % WARPS_N;
    const float* Ablk = A + blockIdx.y * BM * K;
    const float* Bblk = B + blockIdx.x * BN;

    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc[FM][FN];
    #pragma unroll
    for (int i = 0; i < FM; ++i)
        #pragma unroll
        for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    auto load = [&](int stage, int k0) {    // global -> shared, asynchronously (load A tile, B tile)
        float* as = As + stage * A_STAGE;
        float* bs = Bs + stage * B_STAGE;
        #pragma unroll
        for (int i = threadIdx.x; i < BM * BK / 4; i += THREADS) {
            const int r = i / (BK / 4), c = (i % (BK / 4)) * 4;
            __pipeline_memcpy_async(&as[r * (BK + SKEW_A) + c], &Ablk[r * K + k0 + c], 16);
        }
        #pragma unroll
        for (int i = threadIdx.x; i < BK * BN / 4; i += THREADS) {
            const int r = i / (BN / 4), c = (i % (BN / 4)) * 4;
            __pipeline_memcpy_async(&bs[r * (BN + SKEW_B) + c], &Bblk[(k0 + r) * N + c], 16);
        }
    };

    const int k_tiles = K / BK;
    #pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < k_tiles) load(s, s * BK);
        __pipeline_commit();
    }
    for (int kt = 0; kt < k_tiles; ++kt) {
        const int pf = kt + STAGES - 1;     // prefetch into the stage computed last iteration
        if (pf < k_tiles) load(pf % STAGES, pf * BK);
        __pipeline_commit();
        __pipeline_wait_prior(STAGES - 1);  // the slice for this iteration has landed
        __syncthreads();
        const float* as = As + (kt % STAGES) * A_STAGE;
        const float* bs = Bs + (kt % STAGES) * B_STAGE;
        #pragma unroll
        for (int kk = 0; kk < BK; kk += 8) {
            wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a[FM];
            wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b[FN];
            #pragma unroll
            for (int i = 0; i < FM; ++i) {
                wmma::load_matrix_sync(a[i], &as[(wr * WTM + i * 16) * (BK + SKEW_A) + kk], BK + SKEW_A);
#if ROUND_TF32
                #pragma unroll
                for (int t = 0; t < a[i].num_elements; ++t) a[i].x[t] = wmma::__float_to_tf32(a[i].x[t]);
#endif
            }
            #pragma unroll
            for (int j = 0; j < FN; ++j) {
                wmma::load_matrix_sync(b[j], &bs[kk * (BN + SKEW_B) + wc * WTN + j * 16], BN + SKEW_B);
#if ROUND_TF32
                #pragma unroll
                for (int t = 0; t < b[j].num_elements; ++t) b[j].x[t] = wmma::__float_to_tf32(b[j].x[t]);
#endif
            }
            #pragma unroll
            for (int i = 0; i < FM; ++i)
                #pragma unroll
                for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);   // tensor cores
        }
        __syncthreads();                    // everyone is done with this stage before it is refilled
    }
    #pragma unroll
    for (int i = 0; i < FM; ++i)
        #pragma unroll
        for (int j = 0; j < FN; ++j)        // store C
            wmma::store_matrix_sync(&C[(blockIdx.y * BM + wr * WTM + i * 16) * N + blockIdx.x * BN + wc * WTN + j * 16],
                                    acc[i][j], N, wmma::mem_row_major);
}
