// corpus: another style: an if/else guard, and i from 1
extern "C" __global__ void gemm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (y >= M || x >= N) {
    } else {
        float t = 0;
        for (int i = 1; i < K; i++) t += A[y * K + i] * B[i * N + x];
        C[y * N + x] = t;
    }
}
