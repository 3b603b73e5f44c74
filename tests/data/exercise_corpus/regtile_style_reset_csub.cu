// corpus: another style (sa, sb, Csub, kk): Csub zeroed inside the loop over kk
#define BM 64
#define BN 64
#define BK 8
#define TM 4
#define TN 4
extern "C" __global__ void gemm_regtile(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float sa[BM][BK];
    __shared__ float sb[BK][BN];
    int tr = threadIdx.x / 16, tc = threadIdx.x % 16;
    float Csub[TM][TN];
    for (int kk = 0; kk < K; kk += BK) {
        for (int i = 0; i < TM; i++) for (int j = 0; j < TN; j++) Csub[i][j] = 0.0f;
        for (int e = threadIdx.x; e < BM * BK; e += 256) {
            int gr = blockIdx.y * BM + e / BK, gc = kk + e % BK;
            sa[e / BK][e % BK] = (gr < M && gc < K) ? A[gr * K + gc] : 0.0f;
        }
        for (int e = threadIdx.x; e < BK * BN; e += 256) {
            int gr = kk + e / BN, gc = blockIdx.x * BN + e % BN;
            sb[e / BN][e % BN] = (gr < K && gc < N) ? B[gr * N + gc] : 0.0f;
        }
        __syncthreads();
        for (int d = 0; d < BK; d++)
            for (int i = 0; i < TM; i++)
                for (int j = 0; j < TN; j++)
                    Csub[i][j] += sa[tr * TM + i][d] * sb[d][tc * TN + j];
        __syncthreads();
    }
    for (int i = 0; i < TM; i++)
        for (int j = 0; j < TN; j++) {
            int gr = blockIdx.y * BM + tr * TM + i, gc = blockIdx.x * BN + tc * TN + j;
            if (gr < M && gc < N) C[gr * N + gc] = Csub[i][j];
        }
}
