// 2D block tiling: each thread computes a TM x TN register tile of C from TM values of A and TN values
// of B held in registers, so every shared-memory read feeds TN (or TM) multiply-adds.
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
#define NUM_THREADS ((BM * BN) / (TM * TN))
static_assert(BM % TM == 0 && BN % TN == 0, "a thread tile divides the block tile");
static_assert(NUM_THREADS % BK == 0 && BM % (NUM_THREADS / BK) == 0, "the A tile loads in whole rounds");
static_assert(NUM_THREADS % BN == 0 && BK % (NUM_THREADS / BN) == 0, "the B tile loads in whole rounds");
static_assert(NUM_THREADS <= 1024, "at most 1024 threads per block");

extern "C" __global__ void __launch_bounds__(NUM_THREADS)
gemm_blocktile2d(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                 int M, int N, int K) {
    __shared__ float As[BM * BK];
    __shared__ float Bs[BK * BN];
    const int threadCol = threadIdx.x % (BN / TN);
    const int threadRow = threadIdx.x / (BN / TN);
    A += blockIdx.y * BM * K;
    B += blockIdx.x * BN;
    C += blockIdx.y * BM * N + blockIdx.x * BN;
    const int innerRowA = threadIdx.x / BK, innerColA = threadIdx.x % BK;
    const int strideA = NUM_THREADS / BK;
    const int innerRowB = threadIdx.x / BN, innerColB = threadIdx.x % BN;
    const int strideB = NUM_THREADS / BN;
    float acc[TM * TN] = {0.0f};
    float regM[TM], regN[TN];
    for (int bk = 0; bk < K; bk += BK) {
        for (int off = 0; off < BM; off += strideA)                                // A tile  gemmviz:step load
            As[(innerRowA + off) * BK + innerColA] = A[(innerRowA + off) * K + innerColA];
        for (int off = 0; off < BK; off += strideB)                                // B tile
            Bs[(innerRowB + off) * BN + innerColB] = B[(innerRowB + off) * N + innerColB];
        __syncthreads();                                                           // tiles ready  gemmviz:step sync
        A += BK;
        B += BK * N;
        #pragma unroll
        for (int dot = 0; dot < BK; ++dot) {
            #pragma unroll
            for (int i = 0; i < TM; ++i) regM[i] = As[(threadRow * TM + i) * BK + dot];   // shared -> registers
            #pragma unroll
            for (int i = 0; i < TN; ++i) regN[i] = Bs[dot * BN + threadCol * TN + i];
            #pragma unroll
            for (int m = 0; m < TM; ++m)
                #pragma unroll
                for (int n = 0; n < TN; ++n) acc[m * TN + n] += regM[m] * regN[n];   // register tile  gemmviz:step compute
        }
        __syncthreads();                                                           // tiles consumed  gemmviz:step sync2
    }
    #pragma unroll
    for (int m = 0; m < TM; ++m)
        #pragma unroll
        for (int n = 0; n < TN; ++n) C[(threadRow * TM + m) * N + threadCol * TN + n] = acc[m * TN + n];   // gemmviz:step store
}
