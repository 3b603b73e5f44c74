// corpus: walks pointers through A's row and B's column
extern "C" __global__ void gemm_naive(const float* __restrict__ A, const float* __restrict__ B,
                                      float* __restrict__ C, int M, int N, int K) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float sum = 0.0f;
        const float* a = A + row * K;
        const float* b = B + col;
        for (int k = 0; k < K; ++k, b += N) sum += a[k] * *b;
        C[row * N + col] = sum;
    }
}
