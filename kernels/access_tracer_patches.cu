// gemmviz access tracer, device side: the patches the compute-sanitizer patching API calls at every global,
// shared and local memory instruction (and cp.async, bulk copies, wgmma) of every kernel in a patched module.
// Built with `nvcc --fatbin --compile-as-tools-patch` (gemmviz/backends/accesses.py). Only threads of the
// traced blocks record anything; the warp's lowest active lane takes one record for the whole warp request
// and a per-warp sequence number, and every active lane writes its own address into it.
#include "access_tracer.h"
#include <sanitizer_patching.h>

static __device__ __forceinline__ int gv_slot(const GvTracker* t) {
    for (uint32_t i = 0; i < t->nslots; ++i) {
        if (blockIdx.x == t->block[i][0] && blockIdx.y == t->block[i][1] && blockIdx.z == t->block[i][2]) {
            return (int)i;
        }
    }
    return -1;
}

static __device__ __forceinline__ uint32_t gv_warp() {
    uint32_t tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    return tid / 32;
}

static __device__ __forceinline__ uint32_t gv_lane() {
    uint32_t lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}

static __device__ void gv_record(void* userdata, uint64_t pc, uint64_t address, uint32_t size, uint32_t flags,
                                 uint32_t space) {
    GvTracker* t = (GvTracker*)userdata;
    if (t == nullptr || !t->enabled) {
        return;
    }
    int slot = gv_slot(t);
    if (slot < 0) {
        return;
    }
    uint32_t mask = __activemask();
    uint32_t lane = gv_lane();
    uint32_t leader = __ffs(mask) - 1;
    uint32_t warp = gv_warp();
    uint32_t index = 0, seq = 0;
    if (lane == leader) {
        index = atomicAdd(&t->count, 1u);
        seq = warp < GV_MAX_WARPS ? atomicAdd(&t->seq[slot][warp], 1u) : 0u;
    }
    index = __shfl_sync(mask, index, leader);
    seq = __shfl_sync(mask, seq, leader);
    if (index >= t->cap) {
        return;  // the cap is reached: counted in t->count, not stored
    }
    GvRequest* r = &t->records[index];
    r->addr[lane] = address;
    if (lane == leader) {
        r->pc = pc;
        r->seq = seq;
        r->active = mask;
        r->slot = (uint16_t)slot;
        r->warp = (uint8_t)warp;
        r->size = (uint8_t)size;
        r->space = (uint8_t)space;
        r->flags = (uint8_t)flags;
    }
}

extern "C" __device__ __noinline__ SanitizerPatchResult GvGlobalAccess(void* userdata, uint64_t pc, void* ptr,
                                                                      uint32_t size, uint32_t flags,
                                                                      const void* data) {
    gv_record(userdata, pc, (uint64_t)(uintptr_t)ptr, size, flags & 0x3, GV_SPACE_GLOBAL);
    return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult GvSharedAccess(void* userdata, uint64_t pc, void* ptr,
                                                                      uint32_t size, uint32_t flags,
                                                                      const void* data) {
    gv_record(userdata, pc, (uint64_t)(uintptr_t)ptr, size, flags & 0x3, GV_SPACE_SHARED);
    return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult GvLocalAccess(void* userdata, uint64_t pc, void* ptr,
                                                                     uint32_t size, uint32_t flags,
                                                                     const void* data) {
    gv_record(userdata, pc, (uint64_t)(uintptr_t)ptr, size, flags & 0x3, GV_SPACE_LOCAL);
    return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult GvMemcpyAsync(void* userdata, uint64_t pc, void* src,
                                                                     uint32_t dst, uint32_t size) {
    if (src != nullptr) {
        gv_record(userdata, pc, (uint64_t)(uintptr_t)src, size, GV_FLAG_READ | GV_FLAG_ASYNC, GV_SPACE_GLOBAL);
    }
    gv_record(userdata, pc, dst, size, GV_FLAG_WRITE | GV_FLAG_ASYNC, GV_SPACE_SHARED);
    return SANITIZER_PATCH_SUCCESS;
}

// A bulk copy and a wgmma are one operation of the whole warp (the same values in every lane): counted once.
static __device__ void gv_count(void* userdata, uint32_t which, unsigned long long bytes) {
    GvTracker* t = (GvTracker*)userdata;
    if (t == nullptr || !t->enabled || gv_slot(t) < 0) {
        return;
    }
    uint32_t mask = __activemask();
    if (gv_lane() != (uint32_t)(__ffs(mask) - 1)) {
        return;
    }
    if (which == 0) {
        atomicAdd(&t->bulk_copies, 1u);
        atomicAdd(&t->bulk_bytes, bytes);
    } else {
        atomicAdd(&t->wgmma, 1u);
        atomicAdd(&t->wgmma_smem_bytes, bytes);
    }
}

extern "C" __device__ __noinline__ SanitizerPatchResult GvBulkCopy(void* userdata, uint64_t pc, uint64_t src,
                                                                  uint32_t dst, uint32_t barrier, uint32_t data,
                                                                  uint32_t multicast) {
    gv_count(userdata, 0, 16ull * (data & 0xffffu));
    return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult GvWgmma(void* userdata, uint64_t pc, uint32_t addr_a,
                                                               uint32_t size_a, uint32_t addr_b, uint32_t size_b,
                                                               uint32_t flags, uint32_t warp_mask) {
    gv_count(userdata, 1, (unsigned long long)size_a + size_b);
    return SANITIZER_PATCH_SUCCESS;
}
