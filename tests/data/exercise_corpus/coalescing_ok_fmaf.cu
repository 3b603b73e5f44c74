// corpus: fmaf and a const row pointer
extern "C" __global__ void gemm_coalesced(const float* __restrict__ A, const float* __restrict__ B,
                                          float* __restrict__ C, int M, int N, int K) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        const float* a = A + (size_t)row * K;
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) sum = fmaf(a[k], B[(size_t)k * N + col], sum);
        C[row * N + col] = sum;
    }
}
