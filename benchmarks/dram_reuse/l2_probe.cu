// How much of the H200's L2 does data read by every SM get? (benchmarks/dram_reuse.py, the partition test)
// One launch of sms x 8 blocks (all resident at once) reads a buffer of n4 float4 `passes` times with __ldcg
// (L2 only). The buffer is cut into one chunk per block. private_mode: block b reads chunk b in every pass, so a
// line is always read by the same SM. Otherwise block b reads chunk (37 b + 101 p) mod blocks in pass p, so
// each pass a line is read by another SM, on either side of the L2's two partitions, as every strip of B is
// read by every SM in the GEMM kernels. ncu's DRAM bytes over the buffer's size: 1 when it stays in L2,
// up to `passes` when every pass misses. 37 must not divide the block count (1,056 on 132 SMs).

extern "C" __global__ void l2_probe(const float4 *__restrict__ buf, unsigned long long n4, int passes,
                                    int private_mode, float *out) {
    float acc = 0.0f;
    unsigned long long blocks = gridDim.x;
    unsigned long long chunk = (n4 + blocks - 1) / blocks;
    for (int p = 0; p < passes; ++p) {
        unsigned long long b = private_mode ? blockIdx.x : (37ull * blockIdx.x + 101ull * p) % blocks;
        unsigned long long lo = b * chunk, hi = min(n4, lo + chunk);
        for (unsigned long long i = lo + threadIdx.x; i < hi; i += blockDim.x) {
            float4 v = __ldcg(&buf[i]);
            acc += v.x + v.y + v.z + v.w;
        }
    }
    if (acc == 1234.5f) out[0] = acc;  // never true for the host's data; keeps the loads
}
