// Seed V1: one thread computes one element of C, reading a row of A and a
// column of B straight from global memory. Row-major, FP32.
// The block shape is chosen at launch (the registry's `block` param, block x block threads);
// the kernel reads it from blockDim, so it has no compile-time macros.

extern "C" __global__ void gemm_naive(const float* __restrict__ A,
                                      const float* __restrict__ B,
                                      float* __restrict__ C,
                                      int M, int N, int K) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) {
            sum += A[row * K + k] * B[k * N + col];   // 2 global loads per FMA  gemmviz:step read
        }
        C[row * N + col] = sum;                       // 1 global store  gemmviz:step store
    }
}
