// Exercise "tiled" (gemmviz exercise check tiled.cu): shared-memory tiling, the seeds' V2.
// A is M x K, B is K x N, C is M x N, all row-major float. Launch: TILE x TILE threads per block,
// grid ceil(N / TILE) x ceil(M / TILE). The checker compiles with -DTILE=16.
#ifndef TILE
#define TILE 16
#endif

extern "C" __global__ void gemm_tiled(const float* __restrict__ A,
                                      const float* __restrict__ B,
                                      float* __restrict__ C,
                                      int M, int N, int K) {
    __shared__ float tile_A[TILE][TILE];
    __shared__ float tile_B[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float sum = 0.0f;
    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        // TODO: load A[row][t*TILE + threadIdx.x] into tile_A[threadIdx.y][threadIdx.x] (0.0f outside A)
        // TODO: load B[t*TILE + threadIdx.y][col] into tile_B[threadIdx.y][threadIdx.x] (0.0f outside B)
        // TODO: wait until the whole block has loaded its tiles
        // TODO: sum += tile_A[threadIdx.y][k] * tile_B[k][threadIdx.x] for k in 0..TILE-1
        // TODO: wait until the whole block is done with the tiles before the next load
    }
    // TODO: store sum in C[row][col] if the thread is inside C
}
