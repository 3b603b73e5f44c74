// gemmviz access tracer: the record layout shared by the injected host library (access_tracer_host.cu) and
// the device patches (access_tracer_patches.cu). One record is one warp-level memory request: the patched
// instruction as one warp issued it, with each active lane's address. gemmviz/core/hardware/accesses.py reads the
// records with the same layout (RECORD_DTYPE); change both together and bump GV_ACCESS_VERSION.
#pragma once
#include <stdint.h>

#define GV_ACCESS_VERSION 1
#define GV_MAX_SLOTS 4      // traced blocks per launch
#define GV_MAX_WARPS 32     // warps per block (1024 threads)

#define GV_SPACE_GLOBAL 0
#define GV_SPACE_SHARED 1
#define GV_SPACE_LOCAL 2

#define GV_FLAG_READ 0x1    // Sanitizer_DeviceMemoryFlags READ
#define GV_FLAG_WRITE 0x2   // WRITE (READ|WRITE: an atomic)
#define GV_FLAG_ASYNC 0x10  // one half of a cp.async global->shared copy

struct GvRequest {            // 280 bytes, 8-aligned
    uint64_t pc;              // the patched instruction's program counter (absolute)
    uint64_t addr[32];        // per lane: global virtual address, or the offset in the shared/local window
    uint32_t seq;             // this warp's request number in the block, from 0
    uint32_t active;          // lanes that issued it
    uint16_t slot;            // which traced block
    uint8_t warp;             // warp in the block (linear thread id / 32)
    uint8_t size;             // bytes per lane: 1, 2, 4, 8 or 16
    uint8_t space;            // GV_SPACE_*
    uint8_t flags;            // GV_FLAG_*
    uint16_t pad;
};

struct GvTracker {
    uint32_t enabled;
    uint32_t nslots;
    uint32_t block[GV_MAX_SLOTS][3];
    uint32_t cap;             // records the buffer holds
    uint32_t count;           // requests attempted (may pass cap: then the record is truncated)
    uint32_t bulk_copies;     // cp.async.bulk global->shared issued by traced blocks (per warp)
    uint32_t wgmma;           // wgmma.mma_async issued by traced blocks (per warp)
    unsigned long long bulk_bytes;
    unsigned long long wgmma_smem_bytes;
    uint32_t seq[GV_MAX_SLOTS][GV_MAX_WARPS];
    GvRequest* records;
};
