# PyTorch (eager, Python) twin of examples/mlp.cpp: same net, data, settings and batching; prints
# the same last JSON line. Used by tools/gpu_visit.sh to time PyTorch in the same visit. --graph
# replays the whole training step from a CUDA graph (pytorch_cnn.py's GraphedStep).
# Usage: python3 benchmarks/pytorch_mlp.py --data DIR [--device cuda] [--epochs 3] [--batch-size 128]
#        [--graph] [--fused] [--compile]
import argparse, gzip, json, time

import numpy as np
import torch
import torch.nn.functional as F

from pytorch_cnn import GraphedStep


def load(root, prefix, device, normalize):
    with gzip.open(f"{root}/{prefix}-images-idx3-ubyte.gz") as f:
        images = np.frombuffer(f.read(), np.uint8, offset=16)
    with gzip.open(f"{root}/{prefix}-labels-idx1-ubyte.gz") as f:
        labels = np.frombuffer(f.read(), np.uint8, offset=8)
    x = torch.from_numpy(images.copy()).float().div(255).view(-1, 784)
    if normalize:
        x = (x - 0.2860) / 0.3530
    return x.to(device), torch.from_numpy(labels.astype(np.int64)).to(device)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-normalize", dest="normalize", action="store_false")
    p.add_argument("--graph", action="store_true", help="replay each step from a CUDA graph")
    p.add_argument("--fused", action="store_true", help="the optimizer's fused CUDA step")
    p.add_argument("--compile", action="store_true",
                   help="torch.compile the net (Inductor, max-autotune without its own CUDA "
                        "graphs: --graph captures the compiled step)")
    a = p.parse_args()
    wall0 = time.perf_counter()
    torch.manual_seed(a.seed)
    dev = torch.device(a.device)
    tx, ty = load(a.data, "train", dev, a.normalize)
    vx, vy = load(a.data, "t10k", dev, a.normalize)
    net = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 256),
                              torch.nn.ReLU(), torch.nn.Linear(256, 10)).to(dev)
    opt = torch.optim.SGD(net.parameters(), lr=a.lr, momentum=0.9,
                          **({"fused": True} if a.fused else {}))
    step_net = torch.compile(net, mode="max-autotune-no-cudagraphs") if a.compile else net
    graphed = GraphedStep(step_net, opt, tail_net=net if a.compile else None) if a.graph else None
    n, bs = tx.shape[0], a.batch_size
    steps = (n + bs - 1) // bs
    steady_s = steady_samples = acc = 0.0
    for epoch in range(1, a.epochs + 1):
        t0 = time.perf_counter()
        perm = torch.randperm(n, device=dev)
        loss_sum = torch.zeros((), device=dev)
        for s in range(steps):
            idx = perm[s * bs:(s + 1) * bs]
            if graphed is not None:
                loss_sum += graphed(tx, ty, idx)
                continue
            x, y = tx.index_select(0, idx), ty.index_select(0, idx)
            opt.zero_grad()
            loss = F.cross_entropy(step_net(x), y)
            loss.backward()
            opt.step()
            loss_sum += loss.detach()
        train_loss = loss_sum.item() / steps
        epoch_s = time.perf_counter() - t0
        with torch.no_grad():
            correct = sum((net(vx[i:i + 1000]).argmax(1) == vy[i:i + 1000]).sum()
                          for i in range(0, vx.shape[0], 1000))
            acc = correct.item() / vx.shape[0]
        if epoch > 1 or a.epochs == 1:
            steady_s += epoch_s
            steady_samples += n
        print(f"epoch {epoch}/{a.epochs}: train loss {train_loss:.4f}, test accuracy "
              f"{100 * acc:.2f}%, {epoch_s:.2f} s, {n / epoch_s:.0f} samples/s")
    print(json.dumps({"model": "mlp-784-512-256-10", "framework": f"pytorch {torch.__version__}",
                      "graph": a.graph, "fused": a.fused, "compile": a.compile,
                      "device": a.device, "epochs": a.epochs, "batch_size": bs,
                      "train_samples_per_s": steady_samples / steady_s,
                      "epoch_s_steady": steady_s / max(1, a.epochs - 1), "test_acc": acc,
                      "wall_s": time.perf_counter() - wall0}))


if __name__ == "__main__":
    main()
