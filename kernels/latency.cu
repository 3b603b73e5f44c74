// Load latency in SM cycles by pointer chasing (benchmarks/latency.py): one thread follows a chain in which
// each element holds the address of the next, so every load waits for the one before it, and clock64()
// around `steps` loads gives cycles per load. No arithmetic between the loads: the address a load returns
// is the next load's address.
//   chase_shared:    the chain in shared memory (32-bit shared addresses), ld.shared.
//   chase_global_ca: a chain in global memory read with ld.global.ca (cached in L1): after a warm pass over
//                    a chain that fits L1, every load is an L1 hit.
//   chase_global_cg: ld.global.cg (L2 only, L1 bypassed): after a warm pass over a chain that fits L2, every
//                    load is an L2 hit; with no warm pass over a chain of lines not touched since L2 was
//                    flushed, every load goes to DRAM.
// out[0] = cycles of the timed loads, out[1] = the last address (so nothing is optimised away).
#define UNROLL 16

extern "C" __global__ void chase_shared(const unsigned int* __restrict__ chain, int n, int warm, int steps,
                                        long long* out) {
    __shared__ unsigned int s[4096];
    const unsigned int base = static_cast<unsigned int>(__cvta_generic_to_shared(s));
    for (int i = 0; i < n && i < 4096; ++i) s[i] = base + 4u * chain[i];  // chain[i]: index of the next element
    __syncthreads();
    unsigned int p = base;
    for (int i = 0; i < warm; ++i) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p));
    const long long t0 = clock64();
    for (int i = 0; i < steps; i += UNROLL) {
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p));
    }
    const long long t1 = clock64();
    out[0] = t1 - t0;
    out[1] = p;
}

extern "C" __global__ void chase_global_ca(unsigned long long start, int warm, int steps, long long* out) {
    unsigned long long p = start;
    for (int i = 0; i < warm; ++i) asm volatile("ld.global.ca.u64 %0, [%0];" : "+l"(p));
    const long long t0 = clock64();
    for (int i = 0; i < steps; i += UNROLL) {
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) asm volatile("ld.global.ca.u64 %0, [%0];" : "+l"(p));
    }
    const long long t1 = clock64();
    out[0] = t1 - t0;
    out[1] = static_cast<long long>(p);
}

extern "C" __global__ void chase_global_cg(unsigned long long start, int warm, int steps, long long* out) {
    unsigned long long p = start;
    for (int i = 0; i < warm; ++i) asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p));
    const long long t0 = clock64();
    for (int i = 0; i < steps; i += UNROLL) {
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p));
    }
    const long long t1 = clock64();
    out[0] = t1 - t0;
    out[1] = static_cast<long long>(p);
}

// The latency of using a register result: one thread runs a chain of dependent FFMAs (each reads the register
// the one before it wrote), so clock64() around `steps` of them gives the cycles from one FFMA's issue to the
// earliest issue of the next that uses its result. a and b come from the caller so nothing folds away.
extern "C" __global__ void chain_ffma(float a, float b, int steps, long long* out) {
    float x = a;
    const long long t0 = clock64();
    for (int i = 0; i < steps; i += UNROLL) {
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x) : "f"(a), "f"(b));
    }
    const long long t1 = clock64();
    out[0] = t1 - t0;
    out[1] = static_cast<long long>(__float_as_int(x));
}
