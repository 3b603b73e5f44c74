// 1D block tiling: a block computes a BM x BN tile of C with BM*BN/TM threads; each thread computes
// TM results down a column, so one value of B read from shared memory feeds TM multiply-adds.
// Needs M % BM == 0, N % BN == 0, K % BK == 0 (the engine zero-pads other sizes) and
// BM*BK == BN*BK == BM*BN/TM (every thread loads one element of each tile).
#ifndef BM
#define BM 64
#endif
#ifndef BN
#define BN 64
#endif
#ifndef BK
#define BK 8
#endif
#ifndef TM
#define TM 8
#endif
static_assert(BM % TM == 0, "a thread computes TM rows of the block tile");
static_assert(BM * BK == (BM * BN) / TM && BN * BK == (BM * BN) / TM,
              "every thread loads exactly one element of each tile");
static_assert((BM * BN) / TM <= 1024, "at most 1024 threads per block");

extern "C" __global__ void __launch_bounds__((BM * BN) / TM)
gemm_blocktile1d(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                 int M, int N, int K) {
    __shared__ float As[BM * BK];
    __shared__ float Bs[BK * BN];
    const int threadCol = threadIdx.x % BN;
    const int threadRow = threadIdx.x / BN;
    A += blockIdx.y * BM * K;
    B += blockIdx.x * BN;
    C += blockIdx.y * BM * N + blockIdx.x * BN;
    const int innerColA = threadIdx.x % BK, innerRowA = threadIdx.x / BK;
    const int innerColB = threadIdx.x % BN, innerRowB = threadIdx.x / BN;
    float acc[TM] = {0.0f};
    for (int bk = 0; bk < K; bk += BK) {
        As[innerRowA * BK + innerColA] = A[innerRowA * K + innerColA];   // load A tile
        Bs[innerRowB * BN + innerColB] = B[innerRowB * N + innerColB];   // load B tile
        __syncthreads();
        A += BK;
        B += BK * N;
        for (int dot = 0; dot < BK; ++dot) {
            const float b = Bs[dot * BN + threadCol];
            #pragma unroll
            for (int r = 0; r < TM; ++r) acc[r] += As[(threadRow * TM + r) * BK + dot] * b;
        }
        __syncthreads();
    }
    #pragma unroll
    for (int r = 0; r < TM; ++r) C[(threadRow * TM + r) * N + threadCol] = acc[r];
}
