// Microbenchmarks for the hierarchical roofline: the bandwidth of L2 and of shared memory.
// DRAM bandwidth is the device-to-device copy in gemmviz/backends/ceilings.py.
// Both kernels write their sum only when it equals an impossible value: the loads cannot be removed,
// and no store traffic mixes into the figure.

// L2: every thread walks the buffer with a grid-stride loop of float4 loads, `reps` times.
// The buffer (a few tens of MiB) fits in the H200's 50 MB L2; __ldcg caches in L2 only, so L1 serves
// nothing and every byte crosses the L2 -> SM path. Bytes per launch: n_vec * 16 * reps.
extern "C" __global__ void l2_read(const float4* __restrict__ buf, unsigned int n_vec, int reps,
                                   float* __restrict__ out) {
    unsigned int stride = gridDim.x * blockDim.x;
    unsigned int first = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (int r = 0; r < reps; ++r) {
#pragma unroll 4
        for (unsigned int i = first; i < n_vec; i += stride) {
            float4 v = __ldcg(buf + i);
            acc += (v.x + v.y) + (v.z + v.w);
        }
    }
    if (acc == -1.0f) out[first] = acc;
}

// Shared memory: each block fills SHARED_VECS float4 of shared memory, then each thread reads 4 float4
// per round at a constant offset from its own slot. Consecutive threads read consecutive 16-byte words,
// so each quarter-warp covers all 32 banks once: conflict-free, 4 wavefronts (512 B) per warp load.
// The loads are ld.volatile in PTX: with plain ld.shared inside `asm volatile` (which binds only the front
// end) a first H200 run read 468 TB/s, 14x the hardware's limit, so ptxas had dropped most of the
// loop-invariant loads; with ld.volatile ncu counts exactly the LDS.128 and wavefronts this comment promises.
// Bytes per launch: gridDim.x * blockDim.x * reps * 4 * 16. blockDim.x must be 256.
#define SHARED_VECS 1024
extern "C" __global__ void shared_read(int reps, float* __restrict__ out) {
    __shared__ float4 buf[SHARED_VECS];
    for (int i = threadIdx.x; i < SHARED_VECS; i += blockDim.x) {
        float f = (float)(i + blockIdx.x);
        buf[i] = make_float4(f, f + 1.0f, f + 2.0f, f + 3.0f);
    }
    __syncthreads();
    unsigned int addr = (unsigned int)__cvta_generic_to_shared(buf + threadIdx.x);
    float ax = 0.0f, ay = 0.0f, az = 0.0f, aw = 0.0f;
    for (int r = 0; r < reps; ++r) {
        float4 v0, v1, v2, v3;
        asm volatile("ld.volatile.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
                     : "=f"(v0.x), "=f"(v0.y), "=f"(v0.z), "=f"(v0.w) : "r"(addr));
        asm volatile("ld.volatile.shared.v4.f32 {%0, %1, %2, %3}, [%4+4096];"
                     : "=f"(v1.x), "=f"(v1.y), "=f"(v1.z), "=f"(v1.w) : "r"(addr));
        asm volatile("ld.volatile.shared.v4.f32 {%0, %1, %2, %3}, [%4+8192];"
                     : "=f"(v2.x), "=f"(v2.y), "=f"(v2.z), "=f"(v2.w) : "r"(addr));
        asm volatile("ld.volatile.shared.v4.f32 {%0, %1, %2, %3}, [%4+12288];"
                     : "=f"(v3.x), "=f"(v3.y), "=f"(v3.z), "=f"(v3.w) : "r"(addr));
        ax += v0.x + v1.x + v2.x + v3.x;
        ay += v0.y + v1.y + v2.y + v3.y;
        az += v0.z + v1.z + v2.z + v3.z;
        aw += v0.w + v1.w + v2.w + v3.w;
    }
    float acc = (ax + ay) + (az + aw);
    if (acc == -1.0f) out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
