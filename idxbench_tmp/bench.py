import time, torch
def per_call(f, batch=50):
    f(); torch.cuda.synchronize(); best = 1e9
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(batch): f()
        torch.cuda.synchronize(); best = min(best, (time.perf_counter() - t0) / batch)
    return best * 1e6
n = 1 << 20; dev = "cuda"
x = torch.randn(n, device=dev); idx = torch.randint(0, n, (n,), device=dev)
print("torch index_1M %.2f us" % per_call(lambda: x[idx]))
print("torch index_select_1M %.2f us" % per_call(lambda: x.index_select(0, idx)))
x2 = torch.randn(1024, 1024, device=dev); r = torch.randint(0, 1024, (1024,), device=dev)
print("torch index_rows_1Kx1K %.2f us" % per_call(lambda: x2[r]))
m = x > 0
print("torch mask_1M %.2f us" % per_call(lambda: x[m], 10))
y = x.clone()
print("torch index_put_1M %.2f us" % per_call(lambda: y.index_put_((idx,), torch.tensor(1.0, device=dev)), 10))
print("torch index_put_acc_1M %.2f us" % per_call(lambda: y.index_put_((idx,), x, accumulate=True), 10))
