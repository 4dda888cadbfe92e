# TF32 8192^3 through PyTorch, batch by batch from an idle GPU: the twin of
# benchmarks/tf32_from_idle.cpp (same warm-up, idle time, batches of 10 products).
import time

import torch

torch.set_float32_matmul_precision("high")
n = 8192
a = torch.randn(n, n, device="cuda")
b = torch.randn(n, n, device="cuda")
c = a @ b
torch.cuda.synchronize()
time.sleep(5)
for batch in range(12):
    t0 = time.perf_counter()
    for _ in range(10):
        c = a @ b
    torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    print(f"pytorch batch {batch:2d}: {10 * 2.0 * n**3 / dt / 1e12:6.1f} TFLOP/s", flush=True)
