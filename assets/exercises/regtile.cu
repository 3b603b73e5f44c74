// Exercise "regtile" (gemmviz exercise check regtile.cu): 2D register tiling.
// A is M x K, B is K x N, C is M x N, all row-major float. Launch: 256 threads per block (1D),
// grid ceil(N / BN) x ceil(M / BM). The checker compiles with -DBM=64 -DBN=64 -DBK=8 -DTM=4 -DTN=4.
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
    const int tileRow = threadIdx.x / (BN / TN);   // which TM-row strip of the block tile
    const int tileCol = threadIdx.x % (BN / TN);   // which TN-column strip
    const int rowBase = blockIdx.y * BM, colBase = blockIdx.x * BN;
    float acc[TM][TN] = {};
    float regM[TM], regN[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
        // TODO: each thread loads elements threadIdx.x and threadIdx.x + THREADS of the A tile
        //       (As[e / BK][e % BK] = A[rowBase + e / BK][k0 + e % BK], 0.0f outside A)
        // TODO: ... and of the B tile (Bs[e / BN][e % BN] = B[k0 + e / BN][colBase + e % BN], 0.0f outside B)
        // TODO: barrier
        for (int dot = 0; dot < BK; ++dot) {
            // TODO: regM[i] = As[tileRow * TM + i][dot]; regN[j] = Bs[dot][tileCol * TN + j]
            // TODO: acc[i][j] += regM[i] * regN[j]
        }
        // TODO: barrier
    }
    // TODO: store acc[i][j] at C[rowBase + tileRow * TM + i][colBase + tileCol * TN + j] where inside C
}
