// Exercise "coalescing" (gemmviz exercise check coalescing.cu): the same C = A·B as the naive kernel, and it
// is already correct, but slow: threadIdx.x walks the rows of C, so the 32 threads of a warp load A (and
// store C) from 32 different rows at once. A is M x K, B is K x N, C is M x N, all row-major float.
// Launch: 16 x 16 threads per block, grid ceil(N / 16) x ceil(M / 16). Keep the name and the parameters.

extern "C" __global__ void gemm_coalesced(const float* __restrict__ A,
                                          const float* __restrict__ B,
                                          float* __restrict__ C,
                                          int M, int N, int K) {
    // TODO: neighbouring threads (threadIdx.x, threadIdx.x + 1) should touch neighbouring addresses.
    int row = blockIdx.y * blockDim.y + threadIdx.x;
    int col = blockIdx.x * blockDim.x + threadIdx.y;
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) sum += A[row * K + k] * B[k * N + col];
        C[row * N + col] = sum;
    }
}
