"""The small kernels the emulator's faithfulness is tested with, the same on the CPU emulator
(tests/test_emulator_faithful.py) and on a GPU (tests/test_emulator_faithful_gpu.py): each a body under HEAD's
signature, with SOURCE's helpers before it."""

HEAD = "(const float* A, const float* B, float* C, int M, int N, int K)"
KERNELS = {
    "float4": """    int t = threadIdx.x;
    float4 x = *reinterpret_cast<const float4*>(A + t * K);
    C[t] = x.x + x.y + x.z + x.w;""",
    "warp": """    int t = threadIdx.x;
    float v = A[t];
    C[0 * 64 + t] = __shfl_sync(0xffffffff, v, 3);
    C[1 * 64 + t] = __shfl_up_sync(0xffffffff, v, 1);
    C[2 * 64 + t] = __shfl_down_sync(0xffffffff, v, 2);
    C[3 * 64 + t] = __shfl_xor_sync(0xffffffff, v, 5);
    C[4 * 64 + t] = __shfl_down_sync(0xffffffff, v, 1, 8);
    C[5 * 64 + t] = (float)(__ballot_sync(0xffffffff, t & 1) >> 16);
    C[6 * 64 + t] = __all_sync(0xffffffff, t < 40) + 2 * __any_sync(0xffffffff, t == 5);
    if (t % 3 == 0) C[7 * 64 + t] = (float)__popc(__activemask());""",
    "math": """    float x = A[threadIdx.x] + 1.0f;
    C[threadIdx.x] = sqrtf(x) + rsqrtf(x) + 1.0f / x + exp2f(x * 0.01f) + log2f(x) + __sinf(x) + __cosf(x);""",
    "trap": """    if (threadIdx.x == 5) __trap();
    C[threadIdx.x] = 1.0f;""",
    "clock": """    long long s = clock64();
    while (clock64() - s < 1000) {}
    unsigned long long g0, g1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    C[threadIdx.x] = (g1 > g0) + (sm < 1000u ? 2.0f : 0.0f);""",
    "endless": """    for (int k = 0; k < K; k += 0) C[threadIdx.x] = k;""",
    "long": """    float sum = 0.0f;
    for (int i = 0; i < K * 1000000; ++i) sum += A[i % K];
    C[threadIdx.x] = sum;""",
    "row": """    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && threadIdx.x == 0)
        for (int col = 0; col < N; ++col) {
            float sum = 0.0f;
            for (int k = 0; k < K; ++k) sum += A[row * K + k] * B[k * N + col];
            C[row * N + col] = sum;
        }""",
    "atomic": """    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        C[row * N + col] = 0.0f;
        for (int k = 0; k < K; ++k) atomicAdd(&C[row * N + col], A[row * K + k] * B[k * N + col]);
    }""",
    "naive": """    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) sum += A[row * K + k] * B[k * N + col];
        C[row * N + col] = sum;
    }""",
    "count": """    float old = atomicAdd(&C[0], 1.0f);
    atomicAdd(&C[1 + (threadIdx.x & 1)], 2.0f);
    int m = atomicMax((int*)&C[3], (int)threadIdx.x * 3);
    C[4 + threadIdx.x] = old;""",
    "hostile": """    if (M > 0) for (int i = 0; i < K * 50; ++i) atomicAdd(&C[M * N - 1], 0.0f);""",
    "printf": """    if (threadIdx.x < 2) printf("%999999999d|%.999999999f|%2147483647d\\n", K, A[0], M);""",
    "asm": """    unsigned r;
    asm("{ .reg .u32 t; mov.u32 t, %1; add.u32 %0, t, 1; }" : "=r"(r) : "r"(threadIdx.x));
    C[threadIdx.x] = r;""",
    "pointer": """    float (*f)(float) = K > 1 ? twice : (float (*)(float))A;
    C[threadIdx.x] = f(A[threadIdx.x]);""",
    "shared48k": """    __shared__ float s[12000];
    s[threadIdx.x] = A[blockIdx.x % 4];
    __syncthreads();
    C[(blockIdx.y * gridDim.x + blockIdx.x) % (M * N)] = s[0];""",
}
SOURCE = "__device__ float twice(float x) { return 2.0f * x; }\n"
