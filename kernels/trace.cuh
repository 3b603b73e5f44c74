// Block trace: which SM ran each block, and when.
//
// Put GEMMVIZ_TRACE_BEGIN as the first statement of a kernel and GEMMVIZ_TRACE_END as the last one
// (after the block's last store, on a path every thread reaches: no early `return` before it).
// Compiled without GEMMVIZ_TRACE both macros are empty, so the timed kernels are unchanged.
// With it, thread (0,0,0) of each block writes 4 u64 to gemmviz_trace[4 * linear_block_id]:
//   linear block id, %smid, %globaltimer at the start, %globaltimer after the block's last store.
// The host sets the pointer through the module's global symbol `gemmviz_trace` (no kernel signature
// changes) and fills the buffer with ~0 first, so a block that never wrote its record is visible.
#pragma once

#ifdef GEMMVIZ_TRACE

extern "C" {
__device__ unsigned long long *gemmviz_trace;
}

__device__ __forceinline__ unsigned long long gemmviz_globaltimer() {
    unsigned long long t;
    // volatile + "memory": the stamp must not move across the kernel's loads and stores.
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t) : : "memory");
    return t;
}

__device__ __forceinline__ unsigned int gemmviz_smid() {
    unsigned int s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}

__device__ __forceinline__ bool gemmviz_is_first_thread() {
    return threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0;
}

__device__ __forceinline__ unsigned long long gemmviz_linear_block() {
    return blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
}

#define GEMMVIZ_TRACE_BEGIN                                                                  \
    unsigned long long gemmviz_trace_start_ = 0;                                             \
    if (gemmviz_is_first_thread()) gemmviz_trace_start_ = gemmviz_globaltimer();

// The barrier makes the END stamp follow every thread's last store, not only thread 0's.
#define GEMMVIZ_TRACE_END                                                                    \
    __syncthreads();                                                                         \
    if (gemmviz_is_first_thread() && gemmviz_trace != nullptr) {                             \
        unsigned long long gemmviz_trace_end_ = gemmviz_globaltimer();                       \
        unsigned long long *gemmviz_rec_ = gemmviz_trace + 4 * gemmviz_linear_block();       \
        gemmviz_rec_[0] = gemmviz_linear_block();                                            \
        gemmviz_rec_[1] = gemmviz_smid();                                                    \
        gemmviz_rec_[2] = gemmviz_trace_start_;                                              \
        gemmviz_rec_[3] = gemmviz_trace_end_;                                                \
    }

#else

#define GEMMVIZ_TRACE_BEGIN
#define GEMMVIZ_TRACE_END

#endif
