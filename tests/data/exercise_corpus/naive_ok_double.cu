// corpus: accumulates in double, stores a float
extern "C" __global__ void gemm_naive(const float* __restrict__ A, const float* __restrict__ B,
                                      float* __restrict__ C, int M, int N, int K) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        double sum = 0.0;
        for (int k = 0; k < K; ++k) sum += (double)A[row * K + k] * B[k * N + col];
        C[row * N + col] = (float)sum;
    }
}
