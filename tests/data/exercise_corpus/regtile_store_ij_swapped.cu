// corpus: the store's column uses i
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
#define TM 4
#endif
#ifndef TN
#define TN 4
#endif
#define THREADS ((BM * BN) / (TM * TN))

extern "C" __global__ void __launch_bounds__(THREADS)
gemm_regtile(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
             int M, int N, int K) {
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];
    const int tileRow = threadIdx.x / (BN / TN);
    const int tileCol = threadIdx.x % (BN / TN);
    const int rowBase = blockIdx.y * BM, colBase = blockIdx.x * BN;
    float acc[TM][TN] = {};
    float regM[TM], regN[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int e = threadIdx.x; e < BM * BK; e += THREADS) {
            int r = rowBase + e / BK, c = k0 + e % BK;
            As[e / BK][e % BK] = (r < M && c < K) ? A[r * K + c] : 0.0f;
        }
        for (int e = threadIdx.x; e < BK * BN; e += THREADS) {
            int r = k0 + e / BN, c = colBase + e % BN;
            Bs[e / BN][e % BN] = (r < K && c < N) ? B[r * N + c] : 0.0f;
        }
        __syncthreads();
        #pragma unroll
        for (int dot = 0; dot < BK; ++dot) {
            #pragma unroll
            for (int i = 0; i < TM; ++i) regM[i] = As[tileRow * TM + i][dot];
            #pragma unroll
            for (int j = 0; j < TN; ++j) regN[j] = Bs[dot][tileCol * TN + j];
            #pragma unroll
            for (int i = 0; i < TM; ++i)
                #pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += regM[i] * regN[j];
        }
        __syncthreads();
    }
    #pragma unroll
    for (int i = 0; i < TM; ++i)
        #pragma unroll
        for (int j = 0; j < TN; ++j) {
            int r = rowBase + tileRow * TM + i, c = colBase + tileCol * TN + i;
            if (r < M && c < N) C[r * N + c] = acc[i][j];
        }
}
