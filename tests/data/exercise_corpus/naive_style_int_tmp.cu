// corpus: another style (x, y, i, tmp): the sum kept in an int
extern "C" __global__ void gemm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (y < M && x < N) {
        int tmp = 0;
        for (int i = 0; i < K; i++) {
            tmp += A[y * K + i] * B[i * N + x];
        }
        C[y * N + x] = tmp;
    }
}
