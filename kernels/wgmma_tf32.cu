// gpu-wgmma-tf32: C = A·B on Hopper's warpgroup tensor cores (wgmma, TF32 in, FP32 accumulate).
//
// A is M×K row-major, B is K×N row-major, C is M×N row-major, all FP32. Build for sm_90a:
//   nvcc -cubin -O3 -gencode=arch=compute_90a,code=sm_90a -DBM=256 -DSTAGES=4 wgmma_tf32.cu
//
// TF32 wgmma reads both operands K-major from shared memory (the transpose bits exist only for
// 16-bit types). A (row-major, K contiguous) is K-major; B (row-major, N contiguous) is not. So the
// kernel computes the transposed product, Cᵀ tile = Bᵀ·Aᵀ: wgmma's "A" operand is the B tile, taken
// from shared memory into registers (the register form has no layout requirement), and wgmma's "B"
// operand is the A tile, read straight from shared memory through a descriptor. One block computes a
// BM (rows of C) × BN (columns of C) tile; each consumer warpgroup owns 64 columns of C, which are the
// 64 "rows" of its m64nBMk8 instructions.
//   B_REGS=0 instead takes a pre-transposed Bt (N×K, made by transpose_kn) and reads both operands
//   from shared memory; the transpose is a separate pass whose time the caller must count.
//
// Block: warpgroup 0 is the producer (one thread issues TMA copies into a ring of STAGES stages, each
// guarded by a "full" and an "empty" mbarrier); warpgroups 1..CONSUMERS issue wgmma. Tiles come in by
// TMA with the 128-byte swizzle, the layout the wgmma descriptors expect; out-of-range parts of a box
// are zero-filled by TMA, so ragged M, N, K need no special loads, only bounds-checked stores.
// CLUSTER=2 pairs blocks along N that share the A tile by TMA multicast. PERSIST=1 launches one block per SM
// (whole clusters), each walking its share of the tiles; with a tile-order table from the host (a Hilbert curve,
// backends/wgmma.hilbert_order) in place of the grouped order. Measured on an H200
// (docs/wgmma-notes.md): the default build runs within ±2% of cuBLAS TF32's cycle count at 2048³–8192³.
#include <stdint.h>

#ifndef BM
#define BM 256  // rows of C per block = N of each wgmma: 128, 192 or 256
#endif
#ifndef CONSUMERS
#define CONSUMERS 2  // consumer warpgroups; each owns 64 columns of C
#endif
#ifndef STAGES
#define STAGES 4  // depth of the shared-memory ring
#endif
#ifndef GROUP_M
#define GROUP_M 8  // block rows walked before moving right (L2 reuse of B)
#endif
#ifndef CLUSTER
#define CLUSTER 1  // blocks per cluster along N; they share (TMA-multicast) one A tile, each loading 1/CLUSTER
#endif
#ifndef B_REGS
#define B_REGS 1  // 1: B tile through registers (no pre-pass); 0: pre-transposed Bt from shared memory
#endif
#ifndef DEPTH
#define DEPTH 1  // wgmma groups left in flight while the next stage is loaded (0 or 1)
#endif
#ifndef SPLITS
#define SPLITS 0  // slices of K per tile; the host picks the launch's count (kernel argument `splits`), 0 = auto
#endif
#ifndef PERSIST
#define PERSIST 0  // 1: a persistent grid (one block per SM) walks the tiles; the ring runs on across tiles
#endif
#ifndef STREAMK
#define STREAMK 0  // 1 (with PERSIST=1): the last sk_tiles tiles are shared out in k-blocks over every worker (stream-K)
#endif
#ifndef TMAP_PREFETCH
#define TMAP_PREFETCH 0  // 1: thread 0 prefetches both tensor maps before the barriers are set up (start latency)
#endif
#ifndef CONSUMER_REGS
#define CONSUMER_REGS 232  // setmaxnreg budgets: 128·40 + 256·232 ≤ 65536
#endif
#ifndef PRODUCER_REGS
#define PRODUCER_REGS 40
#endif

#define BK 32  // one 128-byte swizzle row of FP32
#define BN (64 * CONSUMERS)
#define THREADS (128 * (CONSUMERS + 1))
#define A_STAGE_BYTES (BM * BK * 4)
#define B_STAGE_BYTES (BN * BK * 4)
#define STAGE_BYTES (A_STAGE_BYTES + B_STAGE_BYTES)
#define ACC (BM / 2)  // accumulator registers per consumer thread

// Block trace (kernels/trace.cuh, on only when gemmviz instruments the source). The producer warpgroup
// returns early, so trace.cuh's END (a __syncthreads, then thread 0) cannot be used: thread 0 writes the
// id, SM and start stamp at entry, and the first consumer thread writes the end stamp after a named
// barrier (1) over the consumer warpgroups alone, i.e. after every store of C. The producer has issued
// its last copy and waited for the last release before that, so the consumers' end is the block's end.
#ifdef GEMMVIZ_TRACE
#define GEMMVIZ_WGMMA_TRACE_BEGIN                                                            \
    if (threadIdx.x == 0 && gemmviz_trace != nullptr) {                                      \
        unsigned long long *gemmviz_rec_ = gemmviz_trace + 4 * gemmviz_linear_block();       \
        gemmviz_rec_[2] = gemmviz_globaltimer();                                             \
        gemmviz_rec_[0] = gemmviz_linear_block();                                            \
        gemmviz_rec_[1] = gemmviz_smid();                                                    \
    }
#define GEMMVIZ_WGMMA_TRACE_END                                                              \
    asm volatile("bar.sync 1, %0;" ::"n"(128 * CONSUMERS) : "memory");                       \
    if (threadIdx.x == 128 && gemmviz_trace != nullptr)                                      \
        gemmviz_trace[4 * gemmviz_linear_block() + 3] = gemmviz_globaltimer();
#else
#define GEMMVIZ_WGMMA_TRACE_BEGIN
#define GEMMVIZ_WGMMA_TRACE_END
#endif

// Pipeline trace (benchmarks/wgmma_pipeline.py; off unless built with -DWGMMA_PIPE_TRACE, so the timed kernel
// is unchanged): on SM wgmma_pipe_sm, the first PIPE_TILES blocks record clock64() stamps per warpgroup and
// k-block: the producer's wait for a free stage and its TMA issue; the stage's landing, seen by an observer
// thread of the producer warpgroup (lane 0 of warp 1, otherwise idle) waiting on the "full" barrier; each
// consumer warpgroup's wait for a full stage, its wgmma issue and the retirement of that wgmma group.
// Slot [tile][warpgroup][k-block][kind 0 tma | 1 wait | 2 wgmma][start, end]; 0 = not recorded.
#ifdef WGMMA_PIPE_TRACE
#ifndef PIPE_TILES
#define PIPE_TILES 2
#endif
#ifndef PIPE_KT
#define PIPE_KT 256
#endif
extern "C" {
__device__ long long wgmma_pipe_events[PIPE_TILES * (CONSUMERS + 1) * PIPE_KT * 3 * 2];
__device__ int wgmma_pipe_tiles[PIPE_TILES * 4];  // blockIdx.x, tile row, tile column, k-blocks
__device__ int wgmma_pipe_sm;
__device__ unsigned int wgmma_pipe_count;
}
#define PIPE_STAMP(wg, kb, kind, which, value)                                                            \
    do {                                                                                                  \
        if (pipe_slot >= 0 && (kb) < PIPE_KT)                                                             \
            wgmma_pipe_events[(((pipe_slot * (CONSUMERS + 1) + (wg)) * PIPE_KT + (kb)) * 3 + (kind)) * 2 + \
                              (which)] = (value);                                                         \
    } while (0)
#else
#define PIPE_STAMP(wg, kb, kind, which, value)
#endif

#if BM != 128 && BM != 192 && BM != 256
#error "BM must be 128, 192 or 256"
#endif
#if CLUSTER != 1 && CLUSTER != 2
#error "CLUSTER must be 1 or 2"
#endif
#if DEPTH != 0 && DEPTH != 1
#error "DEPTH must be 0 or 1"
#endif
#if STREAMK && !PERSIST
#error "STREAMK needs PERSIST=1"
#endif

// Split-K: per block tile, how many slices have written their partial sums (the last resets it to 0).
#define SPLITK_TILES 4096  // the host splits K only below this many block tiles
extern "C" {
__device__ unsigned int wgmma_splitk_count[SPLITK_TILES];
}

#include "hopper_ptx.cuh"  // tensor map, mbarriers, clusters, TMA loads (shared with the other TMA kernel)

// wgmma shared-memory descriptor for a K-major tile with the 128-byte swizzle: rows of 128 bytes,
// 8-row groups 1024 bytes apart (stride byte offset); the leading byte offset is unused in this mode.
__device__ __forceinline__ uint64_t smem_desc(uint32_t addr) {
    return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)1 << 16) | ((uint64_t)(1024 >> 4) << 32) |
           ((uint64_t)1 << 62);
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

// Keeps the compiler from moving accumulator reads or writes across the asynchronous wgmma region.
__device__ __forceinline__ void fence_acc(float* d) {
#pragma unroll
    for (int i = 0; i < ACC; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// Generated operand lists (m64nBMk8, register and shared-memory forms).
#if BM == 128
__device__ __forceinline__ void wgmma_rs_n128(float* d, const uint32_t* a, uint64_t desc_b) {
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
        "{"
        "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
        "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
        "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,"
        "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63"
        "}, {%64, %65, %66, %67}, %68, 1, 1, 1;\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b));
}
__device__ __forceinline__ void wgmma_ss_n128(float* d, uint64_t desc_a, uint64_t desc_b) {
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
        "{"
        "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
        "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
        "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,"
        "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63"
        "}, %64, %65, 1, 1, 1;\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(desc_a), "l"(desc_b));
}
#endif
#if BM == 192
__device__ __forceinline__ void wgmma_rs_n192(float* d, const uint32_t* a, uint64_t desc_b) {
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n192k8.f32.tf32.tf32 "
        "{"
        "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
        "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
        "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,"
        "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,"
        "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,"
        "%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95"
        "}, {%96, %97, %98, %99}, %100, 1, 1, 1;\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
          "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
          "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b));
}
__device__ __forceinline__ void wgmma_ss_n192(float* d, uint64_t desc_a, uint64_t desc_b) {
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n192k8.f32.tf32.tf32 "
        "{"
        "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
        "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
        "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,"
        "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,"
        "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,"
        "%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95"
        "}, %96, %97, 1, 1, 1;\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
          "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
          "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
        : "l"(desc_a), "l"(desc_b));
}
#endif
#if BM == 256
__device__ __forceinline__ void wgmma_rs_n256(float* d, const uint32_t* a, uint64_t desc_b) {
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 "
        "{"
        "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
        "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
        "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,"
        "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,"
        "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,"
        "%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,"
        "%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,"
        "%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127"
        "}, {%128, %129, %130, %131}, %132, 1, 1, 1;\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
          "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
          "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
          "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
          "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
          "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b));
}
__device__ __forceinline__ void wgmma_ss_n256(float* d, uint64_t desc_a, uint64_t desc_b) {
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 "
        "{"
        "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
        "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
        "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,"
        "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,"
        "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,"
        "%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,"
        "%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,"
        "%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127"
        "}, %128, %129, 1, 1, 1;\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
          "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
          "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
          "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
          "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
          "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(desc_a), "l"(desc_b));
}
#endif
#define WGMMA_CAT(a, b) a##b
#define WGMMA_NAME(kind, n) WGMMA_CAT(wgmma_##kind##_n, n)
#define WGMMA_RS WGMMA_NAME(rs, BM)
#define WGMMA_SS WGMMA_NAME(ss, BM)

// Column of C (0..63 within a consumer's slice) that wgmma row 16·w + g + 8·h holds in the register
// form. Any one-to-one map is correct (the epilogue uses the same one); this one makes the 32 lanes'
// 4-byte shared loads of a fragment hit 32 different banks under the 128-byte swizzle.
__device__ __forceinline__ int perm_col(int w, int g, int h) {
    return 32 * (w >> 1) + 4 * (2 * (w & 1) + h + 4 * (g >> 2)) + (g & 3);
}

__device__ __forceinline__ uint32_t lds_u32(uint32_t addr) {
    uint32_t v;
    asm volatile("ld.shared.b32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
    return v;
}

// The tile of C that cluster tile `cid` covers: (block row tm, cluster column tnc). With `order` (a table the
// host builds, e.g. a Hilbert curve: entry = tm << 16 | tnc) the table says; without it, the grouped order:
// GROUP_M block rows share each column strip of B while it sits in L2.
__device__ __forceinline__ void tile_of(int cid, int tiles_m, int tiles_n, const int* __restrict__ order, int& tm,
                                        int& tnc) {
    if (order != nullptr) {
        const int v = __ldg(order + cid);
        tm = v >> 16, tnc = v & 0xFFFF;
        return;
    }
    const int per_group = GROUP_M * tiles_n;
    const int group = cid / per_group, first_m = group * GROUP_M;
    const int rows = min(tiles_m - first_m, GROUP_M);
    const int in_group = cid % per_group;
    tm = first_m + in_group % rows, tnc = in_group / rows;
}

// Stream-K (STREAMK=1): the last `sk` cluster tiles in the order, sk·KT k-blocks ("units", tile-major), are cut into
// W contiguous ranges, worker w (a cluster) taking units [sk_start(w), sk_start(w + 1)). The first T − sk tiles go
// whole to the workers in turn (cluster j: tiles j, j + W, ...), before the worker's range. The schedule is
// modelled in backends/wgmma.streamk_pieces (tests check every (tile, k-block) is covered exactly once).
__device__ __forceinline__ int sk_start(int w, int units, int workers) {
    return static_cast<int>(static_cast<long long>(w) * units / workers);
}
// The worker whose range holds unit u: the largest w with sk_start(w) <= u.
__device__ __forceinline__ int sk_owner(int u, int units, int workers) {
    return static_cast<int>((static_cast<long long>(u + 1) * workers + units - 1) / units) - 1;
}
// Workspace slot of worker w's piece of stream-K tile j: 2w for the piece its range starts in, 2w + 1 for the
// one it ends in (a range inside one tile has one piece, slot 2w).
__device__ __forceinline__ int sk_slot(int w, int j, int units, int workers, int kt) {
    return 2 * w + (j == sk_start(w, units, workers) / kt ? 0 : 1);
}

// tmA: A as a 2-D map {K, M}, box {32, BM / CLUSTER}. tmB: B_REGS=1: B as {N, K}, box {32, 32};
// B_REGS=0: Bt as {K, N}, box {32, BN}. All with the 128-byte swizzle. Grid (1-D), PERSIST=0: one block per C
// tile, ceil(M/BM)·ceil(N/(CLUSTER·BN))·CLUSTER blocks (whole clusters; a block past N computes zeros and
// stores nothing), times `splits` (split-K: slices of K per tile, 1 = none; with splits > 1, ws holds
// splits · BM · BN floats per block tile). PERSIST=1: any number of whole clusters (the host launches one block
// per SM); cluster j takes cluster tiles j, j + clusters, j + 2·clusters, ... (a static tile scheduler), and
// `splits` must be 1. THREADS threads; dynamic shared memory STAGES·STAGE_BYTES + 1024 + 16·STAGES bytes.
// TMA needs 16-byte aligned A and B and row pitches that are multiples of 16 bytes: the host maps a padded copy
// (pad_rows) of an operand whose rows are not (K % 4 for A, N % 4 for B); C is stored at any M, N.
extern "C" __global__ void __launch_bounds__(THREADS, 1)
#if CLUSTER > 1
    __cluster_dims__(CLUSTER, 1, 1)
#endif
    wgmma_tf32(const __grid_constant__ TensorMap tmA, const __grid_constant__ TensorMap tmB, float* __restrict__ C,
               int M, int N, int K, float* __restrict__ ws, int splits, const int* __restrict__ order,
               int sk_tiles) {
    GEMMVIZ_WGMMA_TRACE_BEGIN
    extern __shared__ uint8_t smem_raw[];
    const uint32_t base = (smem_u32(smem_raw) + 1023) & ~1023u;  // the swizzle repeats every 1024 bytes
    const uint32_t full = base + STAGES * STAGE_BYTES;            // STAGES mbarriers, then STAGES more
    const uint32_t empty = full + 8 * STAGES;

    // Cluster tiles (BM × CLUSTER·BN): the blocks of a cluster take neighbouring column tiles of the same rows.
#if CLUSTER > 1
    const uint32_t rank = cluster_rank();
#else
    const uint32_t rank = 0;
#endif
    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + CLUSTER * BN - 1) / (CLUSTER * BN);
    const int tiles = tiles_m * tiles_n;
    // Split-K (splits > 1, small grids): `splits` neighbouring clusters take consecutive slices of K of one
    // cluster tile; each slice's K-blocks are [kb0, kb0 + KT).
    const int split = (blockIdx.x / CLUSTER) % splits;
#if PERSIST
    const int first_tile = blockIdx.x / CLUSTER, tile_stride = gridDim.x / CLUSTER;
#else
    const int first_tile = blockIdx.x / CLUSTER / splits, tile_stride = tiles;  // one tile per block
#endif
    const int KT_ALL = (K + BK - 1) / BK;
    const int kb0 = KT_ALL * split / splits;
    const int KT = KT_ALL * (split + 1) / splits - kb0;
    // Stream-K: tiles [dp_tiles, tiles) are shared out in k-blocks, this worker's units [u0, u1) of sk·KT.
#if STREAMK
    const int sk = KT > 0 ? min(sk_tiles, tiles) : 0, dp_tiles = tiles - sk, sk_units = sk * KT;
    const int u0 = sk_start(first_tile, sk_units, tile_stride), u1 = sk_start(first_tile + 1, sk_units, tile_stride);
#else
    const int dp_tiles = tiles;
#endif
    // Every piece of work of this block: tile cid, its k-blocks [lo, hi). Producer and consumers walk the same list.
    auto for_each_piece = [&](auto&& body) {
        for (int cid = first_tile; cid < dp_tiles; cid += tile_stride) body(cid, 0, KT);
#if STREAMK
        for (int u = u0; u < u1;) {
            const int lo = u % KT, hi = min(KT, lo + (u1 - u));
            body(dp_tiles + u / KT, lo, hi);
            u += hi - lo;
        }
#endif
    };

#ifdef WGMMA_PIPE_TRACE
#if PERSIST
#error "the pipeline trace records one tile per block: build it with PERSIST=0"
#endif
    __shared__ int pipe_slot_shared;
    if (threadIdx.x == 0) {
        unsigned int smid;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
        int slot = -1;
        if (static_cast<int>(smid) == wgmma_pipe_sm) {
            const unsigned int n = atomicAdd(&wgmma_pipe_count, 1u);
            if (n < PIPE_TILES) {
                int tm0, tnc0;
                tile_of(first_tile, tiles_m, tiles_n, order, tm0, tnc0);
                slot = static_cast<int>(n);
                wgmma_pipe_tiles[4 * n] = blockIdx.x, wgmma_pipe_tiles[4 * n + 1] = tm0;
                wgmma_pipe_tiles[4 * n + 2] = tnc0 * CLUSTER + rank, wgmma_pipe_tiles[4 * n + 3] = KT;
            }
        }
        pipe_slot_shared = slot;
    }
#endif
    if (threadIdx.x == 0) {
#if TMAP_PREFETCH
        // The descriptors' fetch overlaps the barriers' set-up and the block-wide sync, not the first copy.
        asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(&tmA)) : "memory");
        asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(&tmB)) : "memory");
#endif
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(full + 8 * s, 1);                   // the producer's expect_tx arrival
            mbar_init(empty + 8 * s, 4 * CONSUMERS * CLUSTER);  // one per consumer warp of the cluster
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
#if CLUSTER > 1
    cluster_sync();  // peers' barriers are initialised before anyone multicasts into or arrives on them
#else
    __syncthreads();
#endif

#ifdef WGMMA_PIPE_TRACE
    const int pipe_slot = pipe_slot_shared;
#endif
    const int warpgroup = threadIdx.x / 128;
    if (warpgroup == 0) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(PRODUCER_REGS));
        if (threadIdx.x == 0) {
            // `it` counts k-blocks over all of this block's tiles: the ring runs on across tiles, so the next
            // tile's first stages load while the consumers store the last tile (PERSIST=1).
            int it = 0;
            for_each_piece([&](int cid, int lo, int hi) {
                int tm, tnc;
                tile_of(cid, tiles_m, tiles_n, order, tm, tnc);
                const int tn = tnc * CLUSTER + rank;
                for (int kb = lo; kb < hi; ++kb, ++it) {
                    const int s = it % STAGES;
                    PIPE_STAMP(0, kb, 1, 0, clock64());
                    mbar_wait(empty + 8 * s, ((it / STAGES) & 1) ^ 1);  // a fresh barrier passes parity 1; gemmviz:step wait_empty
                    PIPE_STAMP(0, kb, 1, 1, clock64());
                    PIPE_STAMP(0, kb, 0, 0, clock64());
                    mbar_expect_tx(full + 8 * s, STAGE_BYTES);          // OOB parts of a box count too (zero-filled)
                    const uint32_t a_dst = base + s * STAGE_BYTES, b_dst = a_dst + A_STAGE_BYTES;
#if CLUSTER > 1
                    // This block's share of the A tile goes to every block of the cluster.
                    tma_load_2d_multicast(a_dst + rank * (A_STAGE_BYTES / CLUSTER), &tmA, (kb0 + kb) * BK,
                                          tm * BM + rank * (BM / CLUSTER), full + 8 * s, (1 << CLUSTER) - 1);
#else
                    tma_load_2d(a_dst, &tmA, (kb0 + kb) * BK, tm * BM, full + 8 * s);  // gemmviz:step tma
#endif
#if B_REGS
#pragma unroll
                    for (int j = 0; j < BN / 32; ++j)
                        tma_load_2d(b_dst + j * 4096, &tmB, tn * BN + 32 * j, (kb0 + kb) * BK, full + 8 * s);
#else
                    tma_load_2d(b_dst, &tmB, (kb0 + kb) * BK, tn * BN, full + 8 * s);
#endif
                }
            });
            // Wait until every stage is released by every consumer of the cluster: after that no peer
            // arrives on this block's barriers, so the block may exit.
            for (int j = it; j < it + STAGES; ++j) mbar_wait(empty + 8 * (j % STAGES), ((j / STAGES) & 1) ^ 1);  // gemmviz:step drain
        }
#ifdef WGMMA_PIPE_TRACE
        if (threadIdx.x == 32 && pipe_slot >= 0) {  // the observer: when each stage's copies have landed
            for (int kb = 0; kb < KT && kb < PIPE_KT; ++kb) {
                mbar_wait(full + 8 * (kb % STAGES), (kb / STAGES) & 1);
                PIPE_STAMP(0, kb, 0, 1, clock64());
            }
        }
#endif
        return;
    }

    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(CONSUMER_REGS));
    const int c = warpgroup - 1;
    const int tid = threadIdx.x & 127, w = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;

    float acc[ACC];

#if B_REGS
    // Byte offsets in a stage's B tile (BN/32 slabs of [32 k][32 n], 128-byte swizzled) of this thread's
    // fragment elements for k-chunk 0, in register order: (k=t, row g), (t, g+8), (t+4, g), (t+4, g+8).
    uint32_t offs[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const int r = t + 4 * (i >> 1);
        const int q = perm_col(w, g, i & 1);
        const int nn = q & 31;
        offs[i] = (2 * c + (q >> 5)) * 4096 + r * 128 + ((((nn >> 2) ^ r) << 4) | ((nn & 3) << 2));
    }
#endif
    uint32_t fr0[4 * BK / 8], fr1[4 * BK / 8];  // two fragment sets: one is read by wgmma while the other loads

    // A stage is free once every consumer warp of the cluster has arrived on its "empty" barrier in
    // every block of the cluster (each block's producer refills its own copy and multicasts into the others).
    auto release = [&](int s) {
        __syncwarp();
        if (lane == 0) {
#if CLUSTER > 1
#pragma unroll
            for (int r = 0; r < CLUSTER; ++r) mbar_arrive_cluster(empty + 8 * s, r);
#else
            mbar_arrive(empty + 8 * s);  // gemmviz:step release
#endif
        }
    };

    // k-block kb of the tile, the it-th k-block of this block (its ring slot and phase).
    auto step = [&](int it, int kb, uint32_t(&fr)[4 * BK / 8]) {
        const int s = it % STAGES;
        if (tid == 0) PIPE_STAMP(warpgroup, kb, 1, 0, clock64());
        mbar_wait(full + 8 * s, (it / STAGES) & 1);  // gemmviz:step wait_full
        if (tid == 0) PIPE_STAMP(warpgroup, kb, 1, 1, clock64());
        const uint32_t a_src = base + s * STAGE_BYTES, b_src = a_src + A_STAGE_BYTES;
        const uint64_t desc_a = smem_desc(a_src);
#if B_REGS
#pragma unroll
        for (int kk = 0; kk < BK / 8; ++kk)
#pragma unroll
            for (int i = 0; i < 4; ++i) fr[4 * kk + i] = lds_u32(b_src + offs[i] + kk * 1024);
#else
        const uint64_t desc_b = smem_desc(b_src + c * 64 * 128);
#endif
        fence_acc(acc);
        if (tid == 0) PIPE_STAMP(warpgroup, kb, 2, 0, clock64());
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < BK / 8; ++kk) {
#if B_REGS
            WGMMA_RS(acc, fr + 4 * kk, desc_a + 2 * kk);  // +32 bytes per k-chunk of 8; gemmviz:step wgmma
#else
            WGMMA_SS(acc, desc_b + 2 * kk, desc_a + 2 * kk);
#endif
        }
        wgmma_commit();
        fence_acc(acc);
        wgmma_wait<DEPTH>();
        fence_acc(acc);
        if (tid == 0 && kb >= DEPTH) PIPE_STAMP(warpgroup, kb - DEPTH, 2, 1, clock64());  // group kb - DEPTH retired
        if (kb >= DEPTH) release((it - DEPTH) % STAGES);
    };

    int it = 0;
    // One piece: k-blocks [lo, hi) of tile cid (the whole tile but in stream-K's share-out); step() counts them
    // from 0 within the piece.
    for_each_piece([&](int cid, int lo, int hi) {
        int tm, tnc;
        tile_of(cid, tiles_m, tiles_n, order, tm, tnc);
        const int tn = tnc * CLUSTER + rank;
        const int nk = hi - lo;
#pragma unroll
        for (int i = 0; i < ACC; ++i) acc[i] = 0.0f;
        int kb = 0;
        for (; kb + 1 < nk; kb += 2, it += 2) {
            step(it, kb, fr0);
            step(it + 1, kb + 1, fr1);
        }
        if (kb < nk) step(it++, kb, fr0);
        wgmma_wait<0>();
        fence_acc(acc);
        if (tid == 0 && DEPTH == 1 && nk > 0) PIPE_STAMP(warpgroup, nk - 1, 2, 1, clock64());
        if (DEPTH == 1 && nk > 0) release((it - 1) % STAGES);  // the producer's exit wait counts on it

        if (splits > 1) {
            // Each slice writes its partial tile to the workspace (coalesced: element e of consumer thread x at
            // [e][x]), then counts itself in on the tile's counter; the last slice to arrive reads the partials
            // back in slice order 0, 1, ... (its own too: no accumulator stays live, no spills), so the sums and C
            // are the same every run whichever slice is last, stores C and resets the counter for the next launch.
            // (PERSIST=0 only: one tile per block, so the early return leaves no tile undone.)
            const int block_tile = cid * CLUSTER + rank;
            const int ct = 128 * c + tid;
            float* const mine = ws + ((size_t)block_tile * splits + split) * (ACC * 128 * CONSUMERS);
#pragma unroll
            for (int e = 0; e < ACC; ++e) __stcg(mine + e * 128 * CONSUMERS + ct, acc[e]);
            __threadfence();
            asm volatile("bar.sync 1, %0;" ::"n"(128 * CONSUMERS) : "memory");
            __shared__ unsigned int arrived;
            if (ct == 0) arrived = atomicAdd(&wgmma_splitk_count[block_tile], 1u);
            asm volatile("bar.sync 1, %0;" ::"n"(128 * CONSUMERS) : "memory");
            if (arrived != static_cast<unsigned int>(splits - 1)) return;  // (from the piece: the trace ends below)
            __threadfence();
            if (ct == 0) wgmma_splitk_count[block_tile] = 0;
            const float* const all = ws + (size_t)block_tile * splits * (ACC * 128 * CONSUMERS);
#pragma unroll
            for (int e = 0; e < ACC; ++e) acc[e] = 0.0f;
            for (int s = 0; s < splits; ++s) {  // slice-major: a slice's ACC loads are independent, all in flight
                const float* const part = all + (size_t)s * ACC * 128 * CONSUMERS + ct;
#pragma unroll
                for (int e = 0; e < ACC; ++e) acc[e] += __ldcg(part + e * 128 * CONSUMERS);
            }
        }
#if STREAMK
        if (nk != KT) {
            // A piece of a shared-out tile j: as split-K above, each piece writes its partial tile to its workspace
            // slot and counts itself in on the tile's counter; the last to arrive (no piece waits for another) sums
            // the pieces in worker order w_lo, ..., w_hi and stores C. Two pieces: own + other in registers (a + b
            // is b + a, so C is the same whichever arrives last); more: every partial read back in order.
            const int j = cid - dp_tiles;
            const int w_lo = sk_owner(j * KT, sk_units, tile_stride);
            const int w_hi = sk_owner(j * KT + KT - 1, sk_units, tile_stride);
            const int ct = 128 * c + tid;
            const size_t part_floats = (size_t)ACC * 128 * CONSUMERS;
            auto part_of = [&](int wk) {
                return ws + ((size_t)sk_slot(wk, j, sk_units, tile_stride, KT) * CLUSTER + rank) * part_floats + ct;
            };
            float* const mine = part_of(first_tile);
#pragma unroll
            for (int e = 0; e < ACC; ++e) __stcg(mine + e * 128 * CONSUMERS, acc[e]);
            __threadfence();
            asm volatile("bar.sync 1, %0;" ::"n"(128 * CONSUMERS) : "memory");
            __shared__ unsigned int sk_arrived;
            if (ct == 0) sk_arrived = atomicAdd(&wgmma_splitk_count[j * CLUSTER + rank], 1u);
            asm volatile("bar.sync 1, %0;" ::"n"(128 * CONSUMERS) : "memory");
            if (sk_arrived != static_cast<unsigned int>(w_hi - w_lo)) return;  // the next piece
            __threadfence();
            if (ct == 0) wgmma_splitk_count[j * CLUSTER + rank] = 0;
            if (w_hi - w_lo == 1) {
                const float* const other = part_of(first_tile == w_lo ? w_hi : w_lo);
#pragma unroll
                for (int e = 0; e < ACC; ++e) acc[e] += __ldcg(other + e * 128 * CONSUMERS);
            } else {
#pragma unroll
                for (int e = 0; e < ACC; ++e) acc[e] = 0.0f;
                for (int wk = w_lo; wk <= w_hi; ++wk) {
                    const float* const part = part_of(wk);
#pragma unroll
                    for (int e = 0; e < ACC; ++e) acc[e] += __ldcg(part + e * 128 * CONSUMERS);
                }
            }
        }
#endif

        // Accumulator i of 8-column group j sits at wgmma row g (+8 for i ≥ 2), column 8j + 2t (+1 for odd i):
        // wgmma rows are columns of C, wgmma columns are rows of C.
        const int row0 = tm * BM + 2 * t, col0 = tn * BN + 64 * c;
#pragma unroll
        for (int j = 0; j < BM / 8; ++j) {
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const int m = row0 + 8 * j + (i & 1);
#if B_REGS
                const int n = col0 + perm_col(w, g, i >> 1);
#else
                const int n = col0 + 16 * w + g + 8 * (i >> 1);
#endif
                if (m < M && n < N) C[(size_t)m * N + n] = acc[4 * j + i];  // gemmviz:step store
            }
        }
    });
    GEMMVIZ_WGMMA_TRACE_END
}

// dst (rows × cols, row pitch ld ≥ cols) = src (rows × cols, dense): the row-pitch copy of an operand whose rows
// are not a multiple of 16 bytes (TMA's rule). The pitch's tail is never read (the tensor map's width is cols,
// so TMA fills it with zeros). Block (32, 8), grid (ceil(cols/32), ceil(rows/8)).
extern "C" __global__ void pad_rows(const float* __restrict__ src, float* __restrict__ dst, int rows, int cols, int ld) {
    const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 8 + threadIdx.y;
    if (x < cols && y < rows) dst[(size_t)y * ld + x] = src[(size_t)y * cols + x];
}

// Bt (N×K, row pitch ldt ≥ K) = transpose of B (K×N row-major); the B_REGS=0 pre-pass.
// Block (32, 8), grid (ceil(N/32), ceil(K/32)).
extern "C" __global__ void transpose_kn(const float* __restrict__ B, float* __restrict__ Bt, int K, int N, int ldt) {
    __shared__ float tile[32][33];
    const int n = blockIdx.x * 32 + threadIdx.x;
    for (int y = threadIdx.y; y < 32; y += 8) {
        const int k = blockIdx.y * 32 + y;
        if (k < K && n < N) tile[y][threadIdx.x] = B[(size_t)k * N + n];
    }
    __syncthreads();
    const int k = blockIdx.y * 32 + threadIdx.x;
    for (int y = threadIdx.y; y < 32; y += 8) {
        const int nn = blockIdx.x * 32 + y;
        if (nn < N && k < K) Bt[(size_t)nn * ldt + k] = tile[threadIdx.x][y];
    }
}
