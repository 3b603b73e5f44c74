// Experimental copies of kernels/naive.cu and kernels/tiled.cu for benchmarks/dram_reuse.py (issue 20, item 5:
// why the tiled kernel reads more from DRAM than the naive one at 4096³). The arithmetic and the loads are
// the shipped kernels'; each macro or argument below changes one thing, to test one cause:
//   BLOCK   the square block (naive) or tile (tiled): 16 or 32
//   GROUP   1: blocks in the shipped order (blockIdx.x fastest, so a block-row's 4096/BLOCK blocks are
//           dispatched one after another). G > 1: launch order walks down G block-rows before moving right,
//           so the G blocks that read the same strip of B are dispatched together.
//   LDCG    1: every global load is __ldcg (cached in L2 only, not in L1)
//   row0    (argument) the first block-row this launch computes: the host can launch one wave's rows at a
//           time, so that all blocks of a launch start together
//   stagger_ns (argument) > 0: in the first wave (launch order < slots), block b waits (b / sms) * stagger_ns
//           before it starts, so the SMs' resident blocks start spread over time, as the tiled kernel's are
//           after a few waves; 0: no wait
//   trace   (argument) non-null: thread (0,0) writes 4 u64 per block at trace[4 * launch id]: launch id
//           (row0 * gridDim.x added), tile id * 256 + %smid (tile id = row * blocks per row + column),
//           %globaltimer after any wait, %globaltimer after the block's last store
#ifndef BLOCK
#define BLOCK 16
#endif
#ifndef GROUP
#define GROUP 1
#endif
#ifndef LDCG
#define LDCG 0
#endif
static_assert(BLOCK * BLOCK <= 1024, "a BLOCK x BLOCK block has at most 1024 threads");
static_assert(GROUP >= 1, "GROUP counts block-rows");

#if LDCG
#define LOAD(p) __ldcg(p)
#else
#define LOAD(p) (*(p))
#endif

// The shipped kernels' own occupancy: 8 blocks of 256 threads (naive uses 32 registers, the most that allows).
#define THREADS (BLOCK * BLOCK)
#define MIN_BLOCKS (2048 / THREADS)

__device__ __forceinline__ unsigned long long now_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t) : : "memory");
    return t;
}

__device__ __forceinline__ unsigned int sm_id() {
    unsigned int s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}

// Which tile of C this block computes (bx: column of blocks, by: row of blocks, row0 added).
__device__ __forceinline__ void place(int row0, int &bx, int &by) {
#if GROUP > 1
    int id = blockIdx.x + gridDim.x * blockIdx.y;
    int per_group = GROUP * gridDim.x;
    int g = id / per_group, r = id - g * per_group;
    int rows = min(GROUP, (int)gridDim.y - g * GROUP);
    by = g * GROUP + r % rows;
    bx = r / rows;
#else
    bx = blockIdx.x;
    by = blockIdx.y;
#endif
    by += row0;
}

__device__ __forceinline__ unsigned long long begin(const unsigned long long *trace, unsigned int stagger_ns,
                                                    int sms, int slots) {
    bool first = threadIdx.x == 0 && threadIdx.y == 0;
    if (stagger_ns) {
        int id = blockIdx.x + gridDim.x * blockIdx.y;
        if (id < slots) {
            if (first) {
                unsigned long long until = now_ns() + (unsigned long long)(id / sms) * stagger_ns;
                while (now_ns() < until) __nanosleep(1000);
            }
            __syncthreads();
        }
    }
    return (first && trace) ? now_ns() : 0ull;
}

__device__ __forceinline__ void end(unsigned long long *trace, unsigned long long t0, int row0, int bx, int by,
                                    int blocks_per_row) {
    if (trace) {
        __syncthreads();  // the stamp follows every thread's last store
        if (threadIdx.x == 0 && threadIdx.y == 0) {
            unsigned long long id = blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + row0);
            unsigned long long *rec = trace + 4 * id;
            rec[0] = id;
            rec[1] = ((unsigned long long)by * blocks_per_row + bx) * 256ull + sm_id();
            rec[2] = t0;
            rec[3] = now_ns();
        }
    }
}

extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
reuse_naive(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M, int N, int K,
            int row0, unsigned long long *trace, unsigned int stagger_ns, int sms, int slots) {
    int bx, by;
    place(row0, bx, by);
    unsigned long long t0 = begin(trace, stagger_ns, sms, slots);
    int row = by * BLOCK + threadIdx.y;
    int col = bx * BLOCK + threadIdx.x;
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) {
            sum += LOAD(&A[row * K + k]) * LOAD(&B[k * N + col]);
        }
        C[row * N + col] = sum;
    }
    end(trace, t0, row0, bx, by, gridDim.x);
}

extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
reuse_tiled(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M, int N, int K,
            int row0, unsigned long long *trace, unsigned int stagger_ns, int sms, int slots) {
    __shared__ float tile_A[BLOCK][BLOCK];
    __shared__ float tile_B[BLOCK][BLOCK];
    int bx, by;
    place(row0, bx, by);
    unsigned long long t0 = begin(trace, stagger_ns, sms, slots);
    int row = by * BLOCK + threadIdx.y;
    int col = bx * BLOCK + threadIdx.x;
    float sum = 0.0f;
    int num_tiles = (K + BLOCK - 1) / BLOCK;
    for (int t = 0; t < num_tiles; ++t) {
        int a_col = t * BLOCK + threadIdx.x;
        tile_A[threadIdx.y][threadIdx.x] = (row < M && a_col < K) ? LOAD(&A[row * K + a_col]) : 0.0f;
        int b_row = t * BLOCK + threadIdx.y;
        tile_B[threadIdx.y][threadIdx.x] = (b_row < K && col < N) ? LOAD(&B[b_row * N + col]) : 0.0f;
        __syncthreads();
        for (int k = 0; k < BLOCK; ++k) {
            sum += tile_A[threadIdx.y][k] * tile_B[k][threadIdx.x];
        }
        __syncthreads();
    }
    if (row < M && col < N) {
        C[row * N + col] = sum;
    }
    end(trace, t0, row0, bx, by, gridDim.x);
}
