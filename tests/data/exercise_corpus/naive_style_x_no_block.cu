// corpus: another style (x, y, t): x = threadIdx.x without the block
extern "C" __global__ void gemm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
    int x = threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (y < M && x < N) {
        float t = 0;
        for (int i = 0; i < K; i++) t += A[y * K + i] * B[i * N + x];
        C[y * N + x] = t;
    }
}
