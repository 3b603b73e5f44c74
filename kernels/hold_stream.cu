// Holds the stream while the host queues a timed region behind it (nvbench's "blocking kernel"): the start
// event, the kernel's launch and the end event are queued during the spin, so the events bracket only the GPU's
// work, never the host's launch path. The host releases it by writing a nonzero `release` in mapped host memory.
//
// It spins at least `min_ns`, so that `out` can report the SM clock just before the timed region:
// out[0] = nanoseconds spun (%globaltimer), out[1] = SM cycles spun (clock64), out[2] = 1 if it gave up
// after `timeout_ns` without being released (the host took that long to queue the region: the sample is
// not kernel-only and is dropped).
extern "C" __global__ void gemmviz_hold_stream(const volatile int* release, unsigned long long min_ns,
                                               unsigned long long timeout_ns, unsigned long long* out)
{
    unsigned long long t0, t;
    long long c0 = clock64();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    unsigned long long timed_out = 0;
    for (;;) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        const unsigned long long dt = t - t0;
        if (dt >= min_ns && *release != 0) break;
        if (dt > timeout_ns) { timed_out = 1; break; }
    }
    long long c1 = clock64();
    out[0] = t - t0;
    out[1] = (unsigned long long)(c1 - c0);
    out[2] = timed_out;
    __threadfence_system();
}
