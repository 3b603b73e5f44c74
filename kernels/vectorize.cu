// 2D block tiling with 16-byte (float4) global loads and stores, and A stored transposed in shared
// memory (As[k][m]) so the inner loop reads both operands as consecutive floats.
// DOUBLE_BUFFER=1: two shared buffers; the next tiles are fetched into registers while the current
// ones are used, and one barrier per K-step instead of two.
// Needs M % BM == 0, N % BN == 0, K % BK == 0 (the engine zero-pads other sizes).
#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 8
#endif
#ifndef TM
#define TM 8
#endif
#ifndef TN
#define TN 8
#endif
#ifndef DOUBLE_BUFFER
#define DOUBLE_BUFFER 0
#endif
#define NUM_THREADS ((BM * BN) / (TM * TN))
#define ROW_STRIDE_A ((NUM_THREADS * 4) / BK)
#define ROW_STRIDE_B (NUM_THREADS / (BN / 4))
#define LOADS_A (BM / ROW_STRIDE_A)
#define LOADS_B (BK / ROW_STRIDE_B)
#define STAGES (DOUBLE_BUFFER ? 2 : 1)
static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0, "registers and tiles move as float4");
static_assert(NUM_THREADS <= 1024 && (NUM_THREADS * 4) % BK == 0 && NUM_THREADS % (BN / 4) == 0,
              "the threads cover whole rows of both tiles");
static_assert(ROW_STRIDE_A > 0 && BM % ROW_STRIDE_A == 0, "the A tile loads in whole rounds");
static_assert(ROW_STRIDE_B > 0 && BK % ROW_STRIDE_B == 0, "the B tile loads in whole rounds");

extern "C" __global__ void __launch_bounds__(NUM_THREADS)
gemm_vectorize(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
               int M, int N, int K) {
    __shared__ __align__(16) float As[STAGES][BK * BM];
    __shared__ __align__(16) float Bs[STAGES][BK * BN];
    const int threadCol = threadIdx.x % (BN / TN);
    const int threadRow = threadIdx.x / (BN / TN);
    A += blockIdx.y * BM * K;
    B += blockIdx.x * BN;
    C += blockIdx.y * BM * N + blockIdx.x * BN;
    const int innerRowA = threadIdx.x / (BK / 4), innerColA = threadIdx.x % (BK / 4);
    const int innerRowB = threadIdx.x / (BN / 4), innerColB = threadIdx.x % (BN / 4);
    float acc[TM * TN] = {0.0f};
    float regM[TM], regN[TN];
    float4 nextA[LOADS_A], nextB[LOADS_B];

    auto fetch = [&](int bk) {                                                     // global -> registers
        #pragma unroll
        for (int i = 0; i < LOADS_A; ++i)
            nextA[i] = *reinterpret_cast<const float4*>(&A[(innerRowA + i * ROW_STRIDE_A) * K + bk + innerColA * 4]);
        #pragma unroll
        for (int i = 0; i < LOADS_B; ++i)
            nextB[i] = *reinterpret_cast<const float4*>(&B[(bk + innerRowB + i * ROW_STRIDE_B) * N + innerColB * 4]);
    };
    auto stash = [&](int s) {                                                      // registers -> shared
        #pragma unroll
        for (int i = 0; i < LOADS_A; ++i) {
            const int m = innerRowA + i * ROW_STRIDE_A;
            As[s][(innerColA * 4 + 0) * BM + m] = nextA[i].x;                      // transpose A
            As[s][(innerColA * 4 + 1) * BM + m] = nextA[i].y;
            As[s][(innerColA * 4 + 2) * BM + m] = nextA[i].z;
            As[s][(innerColA * 4 + 3) * BM + m] = nextA[i].w;
        }
        #pragma unroll
        for (int i = 0; i < LOADS_B; ++i)
            *reinterpret_cast<float4*>(&Bs[s][(innerRowB + i * ROW_STRIDE_B) * BN + innerColB * 4]) = nextB[i];
    };
    auto compute = [&](int s) {
        #pragma unroll
        for (int dot = 0; dot < BK; ++dot) {
            #pragma unroll
            for (int i = 0; i < TM; i += 4)
                *reinterpret_cast<float4*>(&regM[i]) = *reinterpret_cast<const float4*>(&As[s][dot * BM + threadRow * TM + i]);
            #pragma unroll
            for (int i = 0; i < TN; i += 4)
                *reinterpret_cast<float4*>(&regN[i]) = *reinterpret_cast<const float4*>(&Bs[s][dot * BN + threadCol * TN + i]);
            #pragma unroll
            for (int m = 0; m < TM; ++m)
                #pragma unroll
                for (int n = 0; n < TN; ++n) acc[m * TN + n] += regM[m] * regN[n];
        }
    };

#if DOUBLE_BUFFER
    fetch(0);
    stash(0);
    __syncthreads();
    int s = 0;
    for (int bk = 0; bk < K; bk += BK) {
        const bool more = bk + BK < K;
        if (more) fetch(bk + BK);          // prefetch the next tiles while computing this one
        compute(s);
        if (more) stash(s ^ 1);            // the other buffer: nobody reads it during this step
        __syncthreads();
        s ^= 1;
    }
#else
    for (int bk = 0; bk < K; bk += BK) {
        fetch(bk);
        stash(0);
        __syncthreads();
        compute(0);
        __syncthreads();
    }
#endif
    #pragma unroll
    for (int m = 0; m < TM; ++m)
        #pragma unroll
        for (int n = 0; n < TN; n += 4) {
            float4 v = make_float4(acc[m * TN + n], acc[m * TN + n + 1], acc[m * TN + n + 2], acc[m * TN + n + 3]);
            *reinterpret_cast<float4*>(&C[(threadRow * TM + m) * N + threadCol * TN + n]) = v;
        }
}
