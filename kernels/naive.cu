// Seed V1: one thread computes one element of C, reading a row of A and a
// column of B straight from global memory. Row-major, FP32.
// Block shape is set at launch (BLOCK_X x BLOCK_Y); the kernel reads blockDim.

extern "C" __global__ void gemm_naive(const float* __restrict__ A,
                                      const float* __restrict__ B,
                                      float* __restrict__ C,
                                      int M, int N, int K) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) {
            sum += A[row * K + k] * B[k * N + col];   // 2 global loads per FMA
        }
        C[row * N + col] = sum;                       // 1 global store
    }
}
