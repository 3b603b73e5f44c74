// Tensor cores through raw mma.sync (m16n8k8, TF32) with ldmatrix fragment loads. A BM x BN block tile
// from WARPS_M x WARPS_N warps; each warp computes a (BM/WARPS_M) x (BN/WARPS_N) tile as MI x NI
// m16n8 accumulators. A fragments come from shared memory with one ldmatrix.x4 each (four 8x4-float
// blocks land exactly in the a0..a3 registers mma expects); B fragments with two 32-bit loads.
// A STAGES-deep cp.async pipeline keeps the next K-slices in flight.
// ROUND_TF32=1 rounds inputs to TF32 (cvt.rna); 0 lets the tensor cores use the top 19 bits.
// Needs M % BM == 0, N % BN == 0, K % BK == 0 (the engine zero-pads other sizes).
#include <cuda_pipeline.h>
#include <stdint.h>

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
#define STAGES 3
#endif
#ifndef ROUND_TF32
#define ROUND_TF32 0
#endif
#define SKEW_A 4   // row stride BK+4 floats: the 8 rows of an ldmatrix hit 8 different 16-byte bank groups
#define SKEW_B 8   // row stride BN+8 floats: B fragment loads (k = t, n = g) hit 32 different banks
#define WTM (BM / WARPS_M)
#define WTN (BN / WARPS_N)
#define MI (WTM / 16)
#define NI (WTN / 8)
#define THREADS (WARPS_M * WARPS_N * 32)
#define LDA (BK + SKEW_A)
#define LDB (BN + SKEW_B)
static_assert(BM % (16 * WARPS_M) == 0 && BN % (8 * WARPS_N) == 0, "warp tiles are whole m16n8 tiles");
static_assert(BK % 8 == 0, "K-slices are whole k8 steps");
static_assert(THREADS <= 1024, "at most 1024 threads per block");

__device__ __forceinline__ uint32_t to_tf32(float x) {
#if ROUND_TF32
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return r;
#else
    return __float_as_uint(x);
#endif
}

extern "C" __global__ void __launch_bounds__(THREADS)
gemm_mma_tf32(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
              int M, int N, int K) {
    extern __shared__ __align__(128) float smem[];
    float* As = smem;                           // [STAGES][BM][LDA]
    float* Bs = smem + STAGES * BM * LDA;       // [STAGES][BK][LDB]
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wr = warp / WARPS_N, wc = warp % WARPS_N;
    const int g = lane >> 2, t = lane & 3;
    const int a_row = (lane & 7) + ((lane >> 3) & 1) * 8;   // ldmatrix: lane l gives a row of block l/8
    const int a_col = (lane >> 4) * 4;
    const float* Ablk = A + blockIdx.y * BM * K;
    const float* Bblk = B + blockIdx.x * BN;

    float acc[MI][NI][4];
    #pragma unroll
    for (int i = 0; i < MI; ++i)
        #pragma unroll
        for (int j = 0; j < NI; ++j)
            #pragma unroll
            for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.0f;

    auto load = [&](int stage, int k0) {        // global -> shared, asynchronously (load A tile, B tile)
        float* as = As + stage * BM * LDA;
        float* bs = Bs + stage * BK * LDB;
        #pragma unroll
        for (int i = threadIdx.x; i < BM * BK / 4; i += THREADS) {
            const int r = i / (BK / 4), c = (i % (BK / 4)) * 4;
            __pipeline_memcpy_async(&as[r * LDA + c], &Ablk[r * K + k0 + c], 16);
        }
        #pragma unroll
        for (int i = threadIdx.x; i < BK * BN / 4; i += THREADS) {
            const int r = i / (BN / 4), c = (i % (BN / 4)) * 4;
            __pipeline_memcpy_async(&bs[r * LDB + c], &Bblk[(k0 + r) * N + c], 16);
        }
    };

    const int k_tiles = K / BK;
    #pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < k_tiles) load(s, s * BK);
        __pipeline_commit();
    }
    for (int kt = 0; kt < k_tiles; ++kt) {
        const int pf = kt + STAGES - 1;
        if (pf < k_tiles) load(pf % STAGES, pf * BK);
        __pipeline_commit();
        __pipeline_wait_prior(STAGES - 1);
        __syncthreads();                                        // this K-slice is in shared memory
        const float* as = As + (kt % STAGES) * BM * LDA;
        const float* bs = Bs + (kt % STAGES) * BK * LDB;
        #pragma unroll
        for (int kk = 0; kk < BK; kk += 8) {
            uint32_t a[MI][4], b[NI][2];
            #pragma unroll
            for (int i = 0; i < MI; ++i) {
                const uint32_t addr = static_cast<uint32_t>(
                    __cvta_generic_to_shared(&as[(wr * WTM + i * 16 + a_row) * LDA + kk + a_col]));
                asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                             : "=r"(a[i][0]), "=r"(a[i][1]), "=r"(a[i][2]), "=r"(a[i][3]) : "r"(addr));
#if ROUND_TF32
                #pragma unroll
                for (int r = 0; r < 4; ++r) a[i][r] = to_tf32(__uint_as_float(a[i][r]));
#endif
            }
            #pragma unroll
            for (int j = 0; j < NI; ++j) {
                const float* q = &bs[(kk + t) * LDB + wc * WTN + j * 8 + g];
                b[j][0] = to_tf32(q[0]);
                b[j][1] = to_tf32(q[4 * LDB]);
            }
            #pragma unroll
            for (int i = 0; i < MI; ++i)
                #pragma unroll
                for (int j = 0; j < NI; ++j)                    // tensor cores
                    asm volatile(
                        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                        : "+f"(acc[i][j][0]), "+f"(acc[i][j][1]), "+f"(acc[i][j][2]), "+f"(acc[i][j][3])
                        : "r"(a[i][0]), "r"(a[i][1]), "r"(a[i][2]), "r"(a[i][3]), "r"(b[j][0]), "r"(b[j][1]));
        }
        __syncthreads();                                        // done with this stage before it is refilled
    }
    #pragma unroll
    for (int i = 0; i < MI; ++i)
        #pragma unroll
        for (int j = 0; j < NI; ++j) {                          // store C: rows g and g+8, columns 2t, 2t+1
            const int row = blockIdx.y * BM + wr * WTM + i * 16 + g;
            const int col = blockIdx.x * BN + wc * WTN + j * 8 + 2 * t;
            *reinterpret_cast<float2*>(&C[row * N + col]) = make_float2(acc[i][j][0], acc[i][j][1]);
            *reinterpret_cast<float2*>(&C[(row + 8) * N + col]) = make_float2(acc[i][j][2], acc[i][j][3]);
        }
}
