"""What the GPU did: access traces, Nsight Compute counters, the roofline, the recorded
microbenchmark, the Hopper pipeline trace and the gap between two kernels.
"""
