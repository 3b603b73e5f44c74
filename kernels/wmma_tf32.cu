// Tensor cores through WMMA in TF32 (m16n16k8): a 128x128 block tile from 8 warps, each warp a
// 64x32 tile of 4x2 accumulator fragments; A and B tiles staged in shared memory (padded rows),
// the next K-slice copied with cp.async while the current one feeds the tensor cores.
// Inputs are rounded to TF32 (10-bit mantissa); accumulation in FP32.
// Needs M % 128 == 0, N % 128 == 0, K % 32 == 0 (the engine zero-pads other sizes).
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
#define SKEW 8
#define THREADS 256

extern "C" __global__ void __launch_bounds__(THREADS)
gemm_wmma_tf32(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
               int M, int N, int K) {
    extern __shared__ __align__(128) float smem[];
    float (*As)[BM][BK + SKEW] = reinterpret_cast<float (*)[BM][BK + SKEW]>(smem);
    float (*Bs)[BK][BN + SKEW] = reinterpret_cast<float (*)[BK][BN + SKEW]>(smem + 2 * BM * (BK + SKEW));
    const int warp = threadIdx.x / 32;
    const int wr = warp / 4, wc = warp % 4;                        // 2 x 4 warps
    const float* Ablk = A + blockIdx.y * BM * K;
    const float* Bblk = B + blockIdx.x * BN;

    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc[4][2];
    #pragma unroll
    for (int i = 0; i < 4; ++i)
        #pragma unroll
        for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    auto load = [&](int stage, int k0) {                            // global -> shared, asynchronously
        #pragma unroll
        for (int i = threadIdx.x; i < BM * BK / 4; i += THREADS) {
            const int r = i / (BK / 4), c = (i % (BK / 4)) * 4;
            __pipeline_memcpy_async(&As[stage][r][c], &Ablk[r * K + k0 + c], 16);
        }
        #pragma unroll
        for (int i = threadIdx.x; i < BK * BN / 4; i += THREADS) {
            const int r = i / (BN / 4), c = (i % (BN / 4)) * 4;
            __pipeline_memcpy_async(&Bs[stage][r][c], &Bblk[(k0 + r) * N + c], 16);
        }
        __pipeline_commit();
    };

    load(0, 0);
    int stage = 0;
    for (int k0 = 0; k0 < K; k0 += BK) {
        if (k0 + BK < K) {
            load(stage ^ 1, k0 + BK);                               // prefetch the next K-slice
            __pipeline_wait_prior(1);
        } else {
            __pipeline_wait_prior(0);
        }
        __syncthreads();
        #pragma unroll
        for (int kk = 0; kk < BK; kk += 8) {
            wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a[4];
            wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b[2];
            #pragma unroll
            for (int i = 0; i < 4; ++i) {
                wmma::load_matrix_sync(a[i], &As[stage][wr * 64 + i * 16][kk], BK + SKEW);
                #pragma unroll
                for (int t = 0; t < a[i].num_elements; ++t) a[i].x[t] = wmma::__float_to_tf32(a[i].x[t]);
            }
            #pragma unroll
            for (int j = 0; j < 2; ++j) {
                wmma::load_matrix_sync(b[j], &Bs[stage][kk][wc * 32 + j * 16], BN + SKEW);
                #pragma unroll
                for (int t = 0; t < b[j].num_elements; ++t) b[j].x[t] = wmma::__float_to_tf32(b[j].x[t]);
            }
            #pragma unroll
            for (int i = 0; i < 4; ++i)
                #pragma unroll
                for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();                                            // this stage may be overwritten next
        stage ^= 1;
    }
    #pragma unroll
    for (int i = 0; i < 4; ++i)
        #pragma unroll
        for (int j = 0; j < 2; ++j)
            wmma::store_matrix_sync(&C[(blockIdx.y * BM + wr * 64 + i * 16) * N + blockIdx.x * BN + wc * 32 + j * 16],
                                    acc[i][j], N, wmma::mem_row_major);
}
