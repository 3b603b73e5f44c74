// The naive kernel with threadIdx.x walking down a column of C instead of along a row: neighbouring
// threads of a warp read B and write C K (or N) floats apart, so no load or store is coalesced.
// The first rung of the ladder, to show what the seed's V1 already gets right.

extern "C" __global__ void gemm_uncoalesced(const float* __restrict__ A,
                                            const float* __restrict__ B,
                                            float* __restrict__ C,
                                            int M, int N, int K) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;   // x -> row: the mistake
    int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) {
            sum += A[row * K + k] * B[k * N + col];
        }
        C[row * N + col] = sum;
    }
}
