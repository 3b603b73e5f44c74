// corpus: another style (sA, r, c, p, acc): acc = 0 at the top of each tile
#define TILE 16
extern "C" __global__ void gemm_tiled(const float* __restrict__ A, const float* __restrict__ B,
                                      float* __restrict__ C, int M, int N, int K) {
    __shared__ float sA[TILE][TILE];
    __shared__ float sB[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int r = blockIdx.y * TILE + ty;
    int c = blockIdx.x * TILE + tx;
    float acc;
    for (int p = 0; p < (K + TILE - 1) / TILE; p++) {
        acc = 0.0f;
        sA[ty][tx] = (r < M && p * TILE + tx < K) ? A[r * K + p * TILE + tx] : 0.0f;
        sB[ty][tx] = (c < N && p * TILE + ty < K) ? B[(p * TILE + ty) * N + c] : 0.0f;
        __syncthreads();
        for (int i = 0; i < TILE; i++)
            acc += sA[ty][i] * sB[i][tx];
        __syncthreads();
    }
    if (r < M && c < N)
        C[r * N + c] = acc;
}
