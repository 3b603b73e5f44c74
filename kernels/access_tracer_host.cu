// gemmviz access tracer, host side: a library preloaded into the traced process (LD_PRELOAD, as NVIDIA's
// compute-sanitizer samples load theirs), on the compute-sanitizer API; it subscribes at load, before CUDA
// starts, and takes itself out of LD_PRELOAD so that the processes the child starts (nvcc) run without it. It patches every module as it loads
// (access_tracer_patches.cu), and for one launch of one kernel (GEMMVIZ_ACCESS_KERNEL, its
// GEMMVIZ_ACCESS_LAUNCH-th launch, 0 = the first) records the warp requests of a few blocks
// (GEMMVIZ_ACCESS_BLOCKS: "auto" = one interior and one edge block, or "x,y,z;x,y,z") up to
// GEMMVIZ_ACCESS_CAP records. At that launch's end it waits for the kernel and writes
// PREFIX.json (what was recorded, and why not where it failed), PREFIX.bin (the records) and
// PREFIX.cubin (the module's code, for mapping PCs to SASS and source lines), PREFIX from
// GEMMVIZ_ACCESS_OUT. Host code only; built by gemmviz/backends/accesses.py with nvcc -shared.
#include "access_tracer.h"

#include <sanitizer.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace {

struct Allocation {
    uint64_t address, size, order;
};

struct State {
    std::recursive_mutex lock;
    std::string out, patches, kernel, kernel_name_seen;
    std::string blocks_spec = "auto";
    uint32_t cap = 262144;
    long want_launch = 0;
    long launches = 0;
    bool done = false, armed = false;
    std::set<CUcontext> patched_contexts;
    std::map<CUcontext, GvTracker*> disabled;
    std::map<CUmodule, std::string> cubins;
    std::map<uint64_t, Allocation> allocations;
    uint64_t alloc_order = 0;
    std::vector<std::string> patched, errors;
    // the armed launch
    GvTracker host{};
    GvTracker* device = nullptr;
    CUmodule module = nullptr;
    CUfunction function = nullptr;
    uint32_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0}, cluster[3] = {0, 0, 0};
};

State& state() {
    static State s;
    return s;
}

std::string env(const char* name, const char* fallback) {
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string(fallback);
}

void debug(const char* what) {
    if (std::getenv("GEMMVIZ_ACCESS_DEBUG")) std::fprintf(stderr, "gemmviz tracer: %s\n", what);
}

std::string quoted(const std::string& s) {
    std::string o = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') {
            o += '\\';
            o += c;
        } else if ((unsigned char)c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", (unsigned)c);
            o += buf;
        } else {
            o += c;
        }
    }
    return o + "\"";
}

void write_status(State& s, bool recorded, uint64_t func_pc, uint64_t func_size, uint32_t stored) {
    std::string path = s.out + ".json";
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f) {
        return;
    }
    std::fprintf(f, "{\"version\": %d, \"kernel\": %s, \"kernel_seen\": %s, \"recorded\": %s,\n",
                 GV_ACCESS_VERSION, quoted(s.kernel).c_str(), quoted(s.kernel_name_seen).c_str(),
                 recorded ? "true" : "false");
    std::fprintf(f, " \"launches_seen\": %ld,\n", s.launches);
    std::fprintf(f, " \"launch\": %ld, \"grid\": [%u, %u, %u], \"block\": [%u, %u, %u], \"cluster\": [%u, %u, %u],\n",
                 s.want_launch, s.grid[0], s.grid[1], s.grid[2], s.block[0], s.block[1], s.block[2], s.cluster[0],
                 s.cluster[1], s.cluster[2]);
    std::fprintf(f, " \"blocks\": [");
    for (uint32_t i = 0; i < s.host.nslots; ++i) {
        std::fprintf(f, "%s[%u, %u, %u]", i ? ", " : "", s.host.block[i][0], s.host.block[i][1], s.host.block[i][2]);
    }
    std::fprintf(f, "],\n \"cap\": %u, \"attempted\": %u, \"stored\": %u, \"record_bytes\": %zu,\n", s.host.cap,
                 s.host.count, stored, sizeof(GvRequest));
    std::fprintf(f, " \"function_pc\": %llu, \"function_size\": %llu,\n", (unsigned long long)func_pc,
                 (unsigned long long)func_size);
    std::fprintf(f, " \"bulk_copies\": %u, \"bulk_bytes\": %llu, \"wgmma\": %u, \"wgmma_smem_bytes\": %llu,\n",
                 s.host.bulk_copies, s.host.bulk_bytes, s.host.wgmma, s.host.wgmma_smem_bytes);
    std::fprintf(f, " \"allocations\": [");
    bool first = true;
    for (auto& kv : s.allocations) {
        std::fprintf(f, "%s[%llu, %llu, %llu]", first ? "" : ", ", (unsigned long long)kv.second.address,
                     (unsigned long long)kv.second.size, (unsigned long long)kv.second.order);
        first = false;
    }
    std::fprintf(f, "],\n \"patched\": [");
    for (size_t i = 0; i < s.patched.size(); ++i) {
        std::fprintf(f, "%s%s", i ? ", " : "", quoted(s.patched[i]).c_str());
    }
    std::fprintf(f, "],\n \"errors\": [");
    for (size_t i = 0; i < s.errors.size(); ++i) {
        std::fprintf(f, "%s%s", i ? ", " : "", quoted(s.errors[i]).c_str());
    }
    std::fprintf(f, "]}\n");
    std::fclose(f);
}

void patch_module(State& s, Sanitizer_ResourceModuleData* m) {
    s.cubins[m->module] = std::string(m->pCubin ? m->pCubin : "", m->pCubin ? m->cubinSize : 0);
    if (!s.patched_contexts.count(m->context)) {
        if (sanitizerAddPatchesFromFile(s.patches.c_str(), m->context) != SANITIZER_SUCCESS) {
            s.errors.push_back("could not load the patches " + s.patches + " (built for another GPU?)");
            return;
        }
        s.patched_contexts.insert(m->context);
    }
    struct Point {
        Sanitizer_InstructionId id;
        const char* callback;
        const char* what;
    };
    const Point points[] = {
        {SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS, "GvGlobalAccess", "global"},
        {SANITIZER_INSTRUCTION_SHARED_MEMORY_ACCESS, "GvSharedAccess", "shared"},
        {SANITIZER_INSTRUCTION_LOCAL_MEMORY_ACCESS, "GvLocalAccess", "local"},
        {SANITIZER_INSTRUCTION_MEMCPY_ASYNC, "GvMemcpyAsync", "cp.async"},
        {SANITIZER_INSTRUCTION_BULK_COPY_GLOBAL_TO_SHARED, "GvBulkCopy", "bulk-copy"},
        {SANITIZER_INSTRUCTION_WARPGROUP_MMA_ASYNC, "GvWgmma", "wgmma"},
    };
    for (const Point& p : points) {
        SanitizerResult r = sanitizerPatchInstructions(p.id, m->module, p.callback);
        std::string what = p.what;
        bool seen = false;
        for (auto& w : s.patched) seen = seen || w == what;
        if (r == SANITIZER_SUCCESS) {
            if (!seen) s.patched.push_back(what);
        } else {
            s.errors.push_back("could not patch " + what + " instructions (sanitizer error " + std::to_string((int)r) + ")");
        }
    }
    if (sanitizerPatchModule(m->module) != SANITIZER_SUCCESS) {
        s.errors.push_back("sanitizerPatchModule failed on a module");
    }
}

GvTracker* disabled_tracker(State& s, CUcontext ctx, Sanitizer_StreamHandle stream) {
    auto it = s.disabled.find(ctx);
    if (it != s.disabled.end()) {
        return it->second;
    }
    GvTracker* d = nullptr;
    static GvTracker zero{};
    if (sanitizerAlloc(ctx, (void**)&d, sizeof(GvTracker)) != SANITIZER_SUCCESS) {
        return nullptr;
    }
    sanitizerMemcpyHostToDeviceAsync(d, &zero, sizeof(GvTracker), stream);
    s.disabled[ctx] = d;
    return d;
}

void choose_blocks(State& s) {
    GvTracker& h = s.host;
    h.nslots = 0;
    auto add = [&](uint32_t x, uint32_t y, uint32_t z) {
        if (x >= s.grid[0] || y >= s.grid[1] || z >= s.grid[2] || h.nslots >= GV_MAX_SLOTS) {
            s.errors.push_back("block (" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) +
                               ") is outside the grid or past the slots: not traced");
            return;
        }
        for (uint32_t i = 0; i < h.nslots; ++i) {
            if (h.block[i][0] == x && h.block[i][1] == y && h.block[i][2] == z) return;
        }
        h.block[h.nslots][0] = x;
        h.block[h.nslots][1] = y;
        h.block[h.nslots][2] = z;
        ++h.nslots;
    };
    if (s.blocks_spec == "auto") {
        add(s.grid[0] / 2 ? (s.grid[0] - 1) / 2 : 0, (s.grid[1] - 1) / 2, 0);  // interior
        add(s.grid[0] - 1, s.grid[1] - 1, 0);                                     // the last: an edge block
        return;
    }
    std::string spec = s.blocks_spec;
    size_t start = 0;
    while (start < spec.size()) {
        size_t end = spec.find(';', start);
        std::string one = spec.substr(start, end == std::string::npos ? std::string::npos : end - start);
        unsigned x = 0, y = 0, z = 0;
        if (std::sscanf(one.c_str(), "%u,%u,%u", &x, &y, &z) >= 2) add(x, y, z);
        if (end == std::string::npos) break;
        start = end + 1;
    }
}

void arm(State& s, const Sanitizer_LaunchData* l) {
    s.grid[0] = l->gridDim_x; s.grid[1] = l->gridDim_y; s.grid[2] = l->gridDim_z;
    s.block[0] = l->blockDim_x; s.block[1] = l->blockDim_y; s.block[2] = l->blockDim_z;
    s.cluster[0] = l->clusterDim_x; s.cluster[1] = l->clusterDim_y; s.cluster[2] = l->clusterDim_z;
    std::memset(&s.host, 0, sizeof(GvTracker));
    s.host.cap = s.cap;
    choose_blocks(s);
    s.host.enabled = s.host.nslots > 0;
    GvRequest* records = nullptr;
    if (sanitizerAlloc(l->context, (void**)&records, sizeof(GvRequest) * (size_t)s.cap) != SANITIZER_SUCCESS ||
        sanitizerAlloc(l->context, (void**)&s.device, sizeof(GvTracker)) != SANITIZER_SUCCESS) {
        s.errors.push_back("could not allocate " + std::to_string(s.cap) + " records on the GPU");
        s.done = true;
        return;
    }
    sanitizerMemset(records, 0, sizeof(GvRequest) * (size_t)s.cap, l->hStream);
    s.host.records = records;
    sanitizerMemcpyHostToDeviceAsync(s.device, &s.host, sizeof(GvTracker), l->hStream);
    sanitizerSetCallbackData(l->function, s.device);
    s.module = l->module;
    s.function = l->function;
    s.armed = true;
}

void flush(State& s, const Sanitizer_LaunchData* l) {
    debug("flush");
    s.armed = false;
    s.done = true;
    sanitizerStreamSynchronize(l->hStream);
    GvTracker* pinned = nullptr;
    if (sanitizerAllocHost(l->context, (void**)&pinned, sizeof(GvTracker)) != SANITIZER_SUCCESS) {
        s.errors.push_back("could not allocate pinned host memory");
        write_status(s, false, 0, 0, 0);
        return;
    }
    sanitizerMemcpyDeviceToHost(pinned, s.device, sizeof(GvTracker), l->hStream);
    s.host = *pinned;
    uint32_t stored = s.host.count < s.host.cap ? s.host.count : s.host.cap;
    size_t bytes = sizeof(GvRequest) * (size_t)stored;
    void* records = nullptr;
    if (bytes && sanitizerAllocHost(l->context, &records, bytes) == SANITIZER_SUCCESS) {
        sanitizerMemcpyDeviceToHost(records, s.host.records, bytes, l->hStream);
        FILE* f = std::fopen((s.out + ".bin").c_str(), "wb");
        if (f) {
            std::fwrite(records, 1, bytes, f);
            std::fclose(f);
        }
    } else if (bytes) {
        s.errors.push_back("could not allocate pinned host memory for the records");
        stored = 0;
    }
    const std::string& cubin = s.cubins[s.module];
    if (!cubin.empty()) {
        FILE* f = std::fopen((s.out + ".cubin").c_str(), "wb");
        if (f) {
            std::fwrite(cubin.data(), 1, cubin.size(), f);
            std::fclose(f);
        }
    }
    uint64_t pc = 0, size = 0;
    if (sanitizerGetFunctionPcAndSize(s.module, s.kernel_name_seen.c_str(), &pc, &size) != SANITIZER_SUCCESS) {
        s.errors.push_back("no PC for the kernel: instruction offsets unknown");
    }
    write_status(s, true, pc, size, stored);
    // The later launches (the timed one, the check after it) run unpatched, at full speed.
    sanitizerUnpatchModule(s.module);
}


bool matches(const State& s, const char* name) {
    if (name == nullptr) return false;
    return s.kernel == name || (!s.kernel.empty() && std::strstr(name, s.kernel.c_str()) != nullptr);
}

void on_launch(State& s, Sanitizer_CallbackId cbid, const Sanitizer_LaunchData* l) {
    if (cbid == SANITIZER_CBID_LAUNCH_BEGIN) {
        bool target = !s.done && matches(s, l->functionName);
        debug(l->functionName ? l->functionName : "(unnamed launch)");
        if (target && s.launches++ == s.want_launch) {
            s.kernel_name_seen = l->functionName;
            arm(s, l);
            if (s.armed) return;
        }
        GvTracker* off = disabled_tracker(s, l->context, l->hStream);
        if (off) sanitizerSetCallbackData(l->function, off);
    } else if (cbid == SANITIZER_CBID_LAUNCH_END && s.armed && l->function == s.function) {
        flush(s, l);
    }
}

void on_resource(State& s, Sanitizer_CallbackId cbid, const void* data) {
    if (cbid == SANITIZER_CBID_RESOURCE_MODULE_LOADED) {
        debug("module loaded");
        patch_module(s, (Sanitizer_ResourceModuleData*)data);
    } else if (cbid == SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_ALLOC) {
        auto* m = (const Sanitizer_ResourceMemoryData*)data;
        s.allocations[m->address] = Allocation{m->address, m->size, s.alloc_order++};
    } else if (cbid == SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_FREE) {
        auto* m = (const Sanitizer_ResourceMemoryData*)data;
        if (!s.done) s.allocations.erase(m->address);
    }
}

void callback(void* userdata, Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid, const void* data) {
    State& s = *(State*)userdata;
    std::lock_guard<std::recursive_mutex> guard(s.lock);
    if (domain == SANITIZER_CB_DOMAIN_RESOURCE) {
        on_resource(s, cbid, data);
    } else if (domain == SANITIZER_CB_DOMAIN_LAUNCH) {
        on_launch(s, cbid, (const Sanitizer_LaunchData*)data);
    }
}

struct AtExit {
    ~AtExit() {
        State& s = state();
        std::lock_guard<std::recursive_mutex> guard(s.lock);
        if (!s.done && !s.out.empty()) {
            s.errors.push_back(s.launches ? "the kernel's launch " + std::to_string(s.want_launch) + " never came (" +
                                                std::to_string(s.launches) + " launches seen)"
                                          : "the kernel was never launched");
            write_status(s, false, 0, 0, 0);
        }
    }
};

}  // namespace

namespace {

void drop_preload() {
    const char* pre = std::getenv("LD_PRELOAD");
    if (pre == nullptr) return;
    std::string kept, item, all = pre;
    size_t start = 0;
    while (start <= all.size()) {
        size_t end = all.find_first_of(": ", start);
        item = all.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (!item.empty() && item.find("gemmviz_access_tracer") == std::string::npos) kept += (kept.empty() ? "" : ":") + item;
        if (end == std::string::npos) break;
        start = end + 1;
    }
    if (kept.empty()) unsetenv("LD_PRELOAD"); else setenv("LD_PRELOAD", kept.c_str(), 1);
}

}  // namespace

extern "C" int InitializeInjection() {
    static bool initialised = false;
    if (initialised) return 0;
    initialised = true;
    drop_preload();
    if (std::getenv("GEMMVIZ_ACCESS_OUT") == nullptr) return 0;  // not a traced process
    debug("loaded");
    State& s = state();  // before at_exit, so that it is destroyed after it
    static AtExit at_exit;
    s.out = env("GEMMVIZ_ACCESS_OUT", "");
    s.patches = env("GEMMVIZ_ACCESS_PATCHES", "");
    s.kernel = env("GEMMVIZ_ACCESS_KERNEL", "");
    s.blocks_spec = env("GEMMVIZ_ACCESS_BLOCKS", "auto");
    s.want_launch = std::strtol(env("GEMMVIZ_ACCESS_LAUNCH", "0").c_str(), nullptr, 10);
    long cap = std::strtol(env("GEMMVIZ_ACCESS_CAP", "262144").c_str(), nullptr, 10);
    s.cap = cap > 0 && cap <= (1L << 24) ? (uint32_t)cap : 262144u;
    Sanitizer_SubscriberHandle handle;
    if (sanitizerSubscribe(&handle, callback, &s) != SANITIZER_SUCCESS) {
        s.errors.push_back("sanitizerSubscribe failed (another sanitizer tool attached?)");
        debug("sanitizerSubscribe failed");
        return 0;
    }
    debug("subscribed");
    sanitizerEnableDomain(1, handle, SANITIZER_CB_DOMAIN_RESOURCE);
    sanitizerEnableDomain(1, handle, SANITIZER_CB_DOMAIN_LAUNCH);
    unsetenv("GEMMVIZ_ACCESS_OUT");  // nor do the child's own children trace anything
    return 0;
}

static int gv_initialised = InitializeInjection();
