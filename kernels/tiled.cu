// Seed V2: shared-memory tiling. A TILE x TILE block of threads computes a
// TILE x TILE tile of C. Each step loads one tile of A and one of B into shared
// memory (zero-padding outside the matrix), syncs, does TILE multiply-adds per
// thread from shared memory, syncs again. Each element loaded from global
// memory is used TILE times. The store is guarded with && (seed 001's || is a bug).
#ifndef TILE
#define TILE 16
#endif
// PAD=1 adds a column to each shared array, the usual fix for bank conflicts (a rung of the ladder).
#ifndef PAD
#define PAD 0
#endif
static_assert(TILE * TILE <= 1024, "a TILE x TILE block has at most 1024 threads");

extern "C" __global__ void gemm_tiled(const float* __restrict__ A,
                                      const float* __restrict__ B,
                                      float* __restrict__ C,
                                      int M, int N, int K) {
    __shared__ float tile_A[TILE][TILE + PAD];
    __shared__ float tile_B[TILE][TILE + PAD];

    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float sum = 0.0f;

    int num_tiles = (K + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int a_col = t * TILE + threadIdx.x;
        tile_A[threadIdx.y][threadIdx.x] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;  // load A tile  gemmviz:step load
        int b_row = t * TILE + threadIdx.y;
        tile_B[threadIdx.y][threadIdx.x] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;  // load B tile
        __syncthreads();                                                                         // tiles ready  gemmviz:step sync
        for (int k = 0; k < TILE; ++k) {
            sum += tile_A[threadIdx.y][k] * tile_B[k][threadIdx.x];                              // from shared  gemmviz:step compute
        }
        __syncthreads();                                                                         // tiles consumed  gemmviz:step sync2
    }
    if (row < M && col < N) {
        C[row * N + col] = sum;                                                                  // gemmviz:step store
    }
}
