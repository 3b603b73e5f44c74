// corpus: the k loop stops at min(TILE, K - t*TILE), no zero fill for K
#ifndef TILE
#define TILE 16
#endif
extern "C" __global__ void gemm_tiled(const float* __restrict__ A, const float* __restrict__ B,
                                      float* __restrict__ C, int M, int N, int K) {
    __shared__ float tile_A[TILE][TILE];
    __shared__ float tile_B[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float sum = 0.0f;
    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        int a_col = t * TILE + threadIdx.x, b_row = t * TILE + threadIdx.y;
        tile_A[threadIdx.y][threadIdx.x] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        tile_B[threadIdx.y][threadIdx.x] = B[(b_row < K ? b_row : K - 1) * N + (col < N ? col : N - 1)];
        __syncthreads();
        int kmax = min(TILE, K - t * TILE);
        for (int k = 0; k < kmax; ++k) sum += tile_A[threadIdx.y][k] * tile_B[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = sum;
}
