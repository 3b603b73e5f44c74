"""Measure the memory-bandwidth ceiling of the current GPU: a large device-to-device copy, counting
bytes read plus bytes written, median of many event-timed copies. Prints JSON."""

import json
import statistics

import pycuda.driver as cuda

cuda.init()
ctx = cuda.Device(0).make_context()
try:
    nbytes = 2 << 30
    src, dst = cuda.mem_alloc(nbytes), cuda.mem_alloc(nbytes)
    cuda.memset_d32(src, 0x3F800000, nbytes // 4)
    for _ in range(3):
        cuda.memcpy_dtod(dst, src, nbytes)
    start, end = cuda.Event(), cuda.Event()
    samples = []
    for _ in range(20):
        start.record()
        cuda.memcpy_dtod_async(dst, src, nbytes)
        end.record()
        end.synchronize()
        samples.append(end.time_since(start))
    ms = statistics.median(samples)
    print(
        json.dumps(
            {
                "device": cuda.Device(0).name(),
                "copy_bytes": nbytes,
                "median_ms": ms,
                "bandwidth_gbs": 2 * nbytes / (ms * 1e-3) / 1e9,
                "how": "cuMemcpyDtoD of 2 GiB, bytes read + written, median of 20 event-timed copies",
            }
        )
    )
    src.free(), dst.free()
finally:
    ctx.pop()
    ctx.detach()
