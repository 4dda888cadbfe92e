# PyTorch twin of benchmarks/conv_bench.cpp: conv2 of examples/cnn.cpp (batch 128, 32 -> 64
# channels, 14x14, 3x3, pad 1, float32, TF32 off unless --tf32), forward alone and forward + the
# gradients of input and weight (torch.autograd.grad), the CNN's two training-mode batch norms
# (cuDNN's batch norm in PyTorch) forward + gradients, timed the same way (CUDA events around
# batches of 10 iterations queued behind torch.cuda._sleep; median). One JSON line per workload.
# Usage: python3 benchmarks/pytorch_conv_bench.py [--device cuda] [--batch 128] [--iters 200]
import argparse, json, statistics, time

import torch
import torch.nn.functional as F

SPIN_CYCLES = 20_000_000  # about 10 ms at the H200's 1.98 GHz: the host queues a whole batch
BATCH_ITERS = 10


def time_it(fn, on_cuda, iters):
    for _ in range(20):  # warm-up: cuDNN plans, workspace, allocator
        fn()
    if not on_cuda:
        samples = []
        for _ in range(iters):
            t0 = time.perf_counter()
            fn()
            samples.append((time.perf_counter() - t0) * 1e6)
        m = statistics.median(samples)
        return m, m
    torch.cuda.synchronize()
    samples = []
    for _ in range(max(1, iters // BATCH_ITERS)):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(SPIN_CYCLES)
        start.record()
        for _ in range(BATCH_ITERS):
            fn()
        stop.record()
        stop.synchronize()
        samples.append(1e3 * start.elapsed_time(stop) / BATCH_ITERS)
    t0 = time.perf_counter()
    for _ in range(iters):
        fn()
    torch.cuda.synchronize()
    return statistics.median(samples), (time.perf_counter() - t0) * 1e6 / iters


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--iters", type=int, default=200)
    p.add_argument("--tf32", action="store_true")
    p.add_argument("--cudnn-benchmark", action="store_true")
    a = p.parse_args()
    torch.backends.cudnn.allow_tf32 = a.tf32
    torch.backends.cuda.matmul.allow_tf32 = a.tf32
    torch.backends.cudnn.benchmark = a.cudnn_benchmark
    torch.manual_seed(0)
    dev = torch.device(a.device)
    on_cuda = dev.type == "cuda"
    cin, cout, hw, k = 32, 64, 14, 3
    x = torch.randn(a.batch, cin, hw, hw, device=dev, requires_grad=True)
    w = (torch.randn(cout, cin, k, k, device=dev) * 0.05).requires_grad_()
    g = torch.randn(a.batch, cout, hw, hw, device=dev)
    flops = 2.0 * a.batch * cout * hw * hw * cin * k * k

    def fwd():
        with torch.no_grad():
            F.conv2d(x, w, None, 1, 1)

    def fwd_bwd():
        y = F.conv2d(x, w, None, 1, 1)
        torch.autograd.grad((y,), (x, w), (g,))

    bns = []
    for c, s in ((32, 28), (64, 14)):
        bn = torch.nn.BatchNorm2d(c).to(dev)
        bx = torch.randn(a.batch, c, s, s, device=dev, requires_grad=True)
        bg = torch.randn(a.batch, c, s, s, device=dev)
        bns.append((bn, bx, bg))

    def bn_fwd_bwd(i):
        bn, bx, bg = bns[i]
        torch.autograd.grad((bn(bx),), (bx, bn.weight, bn.bias), (bg,))

    for name, passes, fn in (("conv2_fwd", 1, fwd), ("conv2_fwd_bwd", 3, fwd_bwd),
                             ("bn1_fwd_bwd", 0, lambda: bn_fwd_bwd(0)),
                             ("bn2_fwd_bwd", 0, lambda: bn_fwd_bwd(1))):
        dev_us, wall_us = time_it(fn, on_cuda, a.iters)
        print(json.dumps({"name": name, "framework": f"pytorch {torch.__version__}",
                          "device": a.device, "batch": a.batch, "tf32": a.tf32,
                          "cudnn_benchmark": a.cudnn_benchmark, "device_us": round(dev_us, 2),
                          "wall_us": round(wall_us, 2),
                          "tflops": round(passes * flops / (dev_us * 1e-6) / 1e12, 2)}),
              flush=True)


if __name__ == "__main__":
    main()
