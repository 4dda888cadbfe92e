#!/usr/bin/env python3
"""The PyTorch twin of cuda_bench.cpp: the same GPU workloads under the same names, timed
with torch.cuda.Event (median of 5 repetitions, after a warm-up). Prints one JSON line per
workload: {"name": ..., "value": ..., "unit": ...}; tools/gpu_visit.sh merges them."""
import json
import time
import statistics
import sys

import torch

BIG = 1 << 28  # 1 GiB of float32 per tensor
REPS = 5


def per_call_seconds(body, batch):
    """Median over REPS of the time of one call, from events around a batch of calls."""
    body()
    torch.cuda.synchronize()
    times = []
    for _ in range(REPS):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(batch):
            body()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / 1e3 / batch)
    return statistics.median(times)


def host_seconds(body, batch):
    """Like per_call_seconds, but with the host clock: the per-op host cost of tiny ops."""
    body()
    torch.cuda.synchronize()
    times = []
    for _ in range(REPS):
        t0 = time.perf_counter()
        for _ in range(batch):
            body()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) / batch)
    return statistics.median(times)


def emit(name, value, unit):
    print(json.dumps({"name": name, "value": round(value, 3), "unit": unit}), flush=True)


def main():
    if not torch.cuda.is_available():
        print("pytorch_cuda_bench: no CUDA device, nothing to time", file=sys.stderr)
        return
    dev = "cuda"
    a = torch.randn(BIG, device=dev)
    b = torch.randn(BIG, device=dev)
    t = per_call_seconds(lambda: a + b, 20)
    emit("add_2^28", 3 * BIG * 4 / t / 1e9, "GB/s")
    t = per_call_seconds(lambda: a.relu(), 20)
    emit("relu_2^28", 2 * BIG * 4 / t / 1e9, "GB/s")
    t = per_call_seconds(lambda: a.sum(), 20)
    emit("sum_2^28", BIG * 4 / t / 1e9, "GB/s")
    del a, b

    for name, n, precision in (("sgemm_4096", 4096, "highest"), ("tf32_8192", 8192, "high")):
        torch.set_float32_matmul_precision(precision)
        x = torch.randn(n, n, device=dev)
        y = torch.randn(n, n, device=dev)
        t = per_call_seconds(lambda: torch.matmul(x, y), 10)
        emit(name, 2 * n**3 / t / 1e12, "TFLOP/s")
        torch.set_float32_matmul_precision("highest")
        del x, y

    s = [torch.ones(8, device=dev)]

    def tiny():
        s[0] = s[0] + 1

    emit("tiny_add_8", host_seconds(tiny, 100000) * 1e6, "us")

    w = torch.randn(8, device=dev).requires_grad_()
    x8 = torch.randn(8, device=dev)
    emit("backward_8", host_seconds(lambda: (w * x8).sum().backward(), 10000) * 1e6, "us")

    v = torch.randn(1 << 20, device=dev)
    emit("sort_1M", per_call_seconds(lambda: torch.sort(v), 50) * 1e6, "us")
    emit("topk10_1M", per_call_seconds(lambda: torch.topk(v, 10), 50) * 1e6, "us")
    idx = torch.randint(0, 1 << 20, (1 << 20,), device=dev)
    emit("index_1M", per_call_seconds(lambda: v[idx], 50) * 1e6, "us")


if __name__ == "__main__":
    main()
