# PyTorch (Python) twin of examples/cnn.cpp: the same net, data, settings and batching (the data
# set on the device as [N, 1, 28, 28], a random permutation per epoch, batches by index_select),
# the same options (TF32 off unless --tf32) and the same last JSON line. --graph captures the
# whole training step (forward, loss, backward, optimizer step) in a CUDA graph over static
# input buffers, as ../shared/PERF.md's "PyTorch + CUDA graph" anchor. Run by tools/gpu_visit.sh.
# Usage: python3 benchmarks/pytorch_cnn.py [--data DIR] [--device cuda] [--epochs 3] [--graph] ...
import argparse, gzip, json, subprocess, sys, time

import numpy as np
import torch
import torch.nn.functional as F


class CNN(torch.nn.Module):
    def __init__(self, batch_norm):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 32, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(32, 64, 3, padding=1)
        self.bn1 = torch.nn.BatchNorm2d(32) if batch_norm else None
        self.bn2 = torch.nn.BatchNorm2d(64) if batch_norm else None
        self.pool = torch.nn.MaxPool2d(2)
        self.fc1 = torch.nn.Linear(64 * 7 * 7, 128)
        self.fc2 = torch.nn.Linear(128, 10)

    def forward(self, x):  # [N, 1, 28, 28] -> [N, 10]
        x = self.conv1(x)
        if self.bn1 is not None:
            x = self.bn1(x)
        x = self.pool(F.relu(x))  # [N, 32, 14, 14]
        x = self.conv2(x)
        if self.bn2 is not None:
            x = self.bn2(x)
        x = self.pool(F.relu(x))  # [N, 64, 7, 7]
        x = F.relu(self.fc1(x.flatten(1)))
        return self.fc2(x)


def load(root, prefix, device, normalize):
    with gzip.open(f"{root}/{prefix}-images-idx3-ubyte.gz") as f:
        images = np.frombuffer(f.read(), np.uint8, offset=16)
    with gzip.open(f"{root}/{prefix}-labels-idx1-ubyte.gz") as f:
        labels = np.frombuffer(f.read(), np.uint8, offset=8)
    x = torch.from_numpy(images.copy()).float().div(255).view(-1, 1, 28, 28)
    if normalize:
        x = (x - 0.2860) / 0.3530
    return x.to(device), torch.from_numpy(labels.astype(np.int64)).to(device)


class ProgressBar:  # as examples/training_report.h: redrawn in place on a terminal only
    def __init__(self):
        self.tty, self.last = sys.stdout.isatty(), 0.0

    def due(self):
        return self.tty and time.perf_counter() - self.last > 0.1

    def draw(self, epoch, epochs, step, steps, loss, rate, eta):
        filled = 30 * step // steps
        print(f"\repoch {epoch}/{epochs} [{'=' * filled}{' ' * (30 - filled)}] {step}/{steps} "
              f"loss {loss:.4f} {rate:7.0f} samples/s ETA {eta:5.1f} s ", end="", flush=True)
        self.last = time.perf_counter()

    def finish(self, line):
        print(("\r\033[K" if self.tty else "") + line, flush=True)


def plot(records, png, title):  # the same gnuplot script as examples/training_report.h
    s = (f"set terminal pngcairo size 1000,420\nset output '{png}'\n"
         f"set multiplot layout 1,2 title '{title}'\nset xlabel 'epoch'\nset grid\n"
         "set key top right\nset ylabel 'loss'\nplot '-' with linespoints title 'train loss', "
         "'-' with linespoints title 'test loss'\n")
    s += "".join(f"{r['epoch']} {r['train_loss']}\n" for r in records) + "e\n"
    s += "".join(f"{r['epoch']} {r['test_loss']}\n" for r in records) + "e\n"
    s += ("set ylabel 'test accuracy (%)'\nset key bottom right\n"
          "plot '-' with linespoints title 'test accuracy'\n")
    s += "".join(f"{r['epoch']} {100 * r['test_acc']}\n" for r in records) + "e\nunset multiplot\n"
    subprocess.run(["gnuplot"], input=s.encode(), check=True)


def evaluate(net, vx, vy):  # test loss and accuracy in batches of 1000, read back once
    net.eval()
    with torch.no_grad():
        loss_sum = torch.zeros((), device=vx.device)
        correct = torch.zeros((), dtype=torch.int64, device=vx.device)
        for i in range(0, vx.shape[0], 1000):
            logits, y = net(vx[i:i + 1000]), vy[i:i + 1000]
            loss_sum += F.cross_entropy(logits, y, reduction="sum")
            correct += (logits.argmax(1) == y).sum()
    net.train()
    return loss_sum.item() / vx.shape[0], correct.item() / vx.shape[0]


class GraphedStep:
    """The training step replayed from CUDA graphs, one per batch size (the last batch of an
    epoch is smaller). A batch size's first steps run eagerly on a side stream (warm-up: cuDNN
    plans, autograd's threads, the optimizer's state), then its step is captured once: forward,
    loss, backward (into gradients that live in the graph's memory pool) and the optimizer step.
    Capturing runs nothing: it follows the last warm-up step, and every later step of that batch
    size copies its batch into the static inputs and replays the graph. With `tail_net` (the
    uncompiled net of a torch.compile'd one), batch sizes after the first run eagerly through
    it, as ember's examples run the last partial batch: no recompilation and autotuning for the
    tail's shape."""

    def __init__(self, net, opt, warmup=3, tail_net=None):
        self.net, self.opt, self.warmup, self.tail_net = net, opt, warmup, tail_net
        self.graphs, self.seen = {}, {}
        self.side = torch.cuda.Stream()

    def eager(self, x, y, net=None):
        self.opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy((net or self.net)(x), y)
        loss.backward()
        self.opt.step()
        return loss.detach()

    def __call__(self, tx, ty, idx):
        m = idx.shape[0]
        if m in self.graphs:
            g, sx, sy, sloss = self.graphs[m]
            torch.index_select(tx, 0, idx, out=sx)
            torch.index_select(ty, 0, idx, out=sy)
            g.replay()
            return sloss
        x, y = tx.index_select(0, idx), ty.index_select(0, idx)
        if self.tail_net is not None and self.seen and m not in self.seen:
            return self.eager(x, y, self.tail_net)
        self.side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.side):
            loss = self.eager(x, y)
        torch.cuda.current_stream().wait_stream(self.side)
        self.seen[m] = self.seen.get(m, 0) + 1
        # The first batch size warms up `warmup` steps; later ones (the tail) one step.
        if self.seen[m] >= (self.warmup if not self.graphs else 1):
            sx, sy = x.clone(), y.clone()
            self.opt.zero_grad(set_to_none=True)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                sloss = F.cross_entropy(self.net(sx), sy)
                sloss.backward()
                self.opt.step()
            # Keep the loss's memory, not its autograd graph: a graph kept alive would keep the
            # parameters' AccumulateGrad nodes, bound to this capture's stream, for later steps.
            self.graphs[m] = (g, sx, sy, sloss.detach())
        return loss


def main():
    p = argparse.ArgumentParser(description="PyTorch twin of ember's cnn example.")
    p.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--lr", type=float, default=-1, help="default 0.05 for sgd, 0.001 for adam")
    p.add_argument("--optimizer", choices=("sgd", "adam"), default="sgd")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-steps", type=int, default=0)
    p.add_argument("--test-samples", type=int, default=0, help="the first N test images (0: all)")
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--no-normalize", dest="normalize", action="store_false")
    p.add_argument("--bn", action="store_true", help="a BatchNorm2d after each conv")
    p.add_argument("--tf32", action="store_true", help="allow TF32 in cuDNN and matmuls")
    p.add_argument("--cudnn-benchmark", action="store_true")
    p.add_argument("--graph", action="store_true", help="replay each step from a CUDA graph")
    p.add_argument("--fused", action="store_true", help="the optimizer's fused CUDA step")
    p.add_argument("--compile", action="store_true",
                   help="torch.compile the net (Inductor, max-autotune without its own CUDA "
                        "graphs: --graph captures the compiled step)")
    p.add_argument("--metrics", default="")
    p.add_argument("--plot", default="")
    a = p.parse_args()
    if a.epochs < 1 or a.batch_size < 1:
        sys.exit("pytorch_cnn: --epochs and --batch-size must be at least 1")
    wall0 = time.perf_counter()
    torch.manual_seed(a.seed)
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    # Full float32 unless --tf32 (PyTorch's own default allows TF32 in cuDNN).
    torch.backends.cudnn.allow_tf32 = a.tf32
    torch.backends.cuda.matmul.allow_tf32 = a.tf32
    torch.backends.cudnn.benchmark = a.cudnn_benchmark
    dev = torch.device(a.device)
    if a.graph and dev.type != "cuda":
        sys.exit("pytorch_cnn: --graph needs a CUDA device")
    tx, ty = load(a.data, "train", dev, a.normalize)
    vx, vy = load(a.data, "t10k", dev, a.normalize)
    if a.test_samples > 0:
        vx, vy = vx[:a.test_samples], vy[:a.test_samples]
    net = CNN(a.bn).to(dev)
    fused = {"fused": True} if a.fused else {}
    if a.optimizer == "sgd":
        opt = torch.optim.SGD(net.parameters(), lr=a.lr if a.lr > 0 else 0.05, momentum=0.9,
                              **fused)
    else:  # a captured Adam step keeps its step count on the device
        opt = torch.optim.Adam(net.parameters(), lr=a.lr if a.lr > 0 else 1e-3,
                               **({"capturable": True} if a.graph else {}),
                               **fused)
    step_net = torch.compile(net, mode="max-autotune-no-cudagraphs") if a.compile else net
    graphed = GraphedStep(step_net, opt, tail_net=net if a.compile else None) if a.graph else None
    model = "cnn-bn-32-64-128-10" if a.bn else "cnn-32-64-128-10"
    n, bs = tx.shape[0], a.batch_size
    steps = (n + bs - 1) // bs
    if a.max_steps > 0:
        steps = min(steps, a.max_steps)
    print(f"{model} on {a.device} (PyTorch {torch.__version__}{', CUDA graph' if a.graph else ''}"
          f"): {n} training and {vx.shape[0]} test images, batch {bs}, {a.optimizer}"
          f"{', TF32' if a.tf32 else ''}", flush=True)
    bar = ProgressBar()
    metrics = open(a.metrics, "w") if a.metrics else None
    records = []
    steady_s = steady_samples = 0.0
    steady_epochs = 0
    for epoch in range(1, a.epochs + 1):
        t0 = time.perf_counter()
        perm = torch.randperm(n, device=dev)
        loss_sum = torch.zeros((), device=dev)
        samples = 0
        for s in range(steps):
            idx = perm[s * bs:(s + 1) * bs]
            if graphed is not None:
                loss = graphed(tx, ty, idx)
            else:
                x, y = tx.index_select(0, idx), ty.index_select(0, idx)
                opt.zero_grad()
                loss = F.cross_entropy(step_net(x), y)
                loss.backward()
                opt.step()
            loss_sum += loss.detach()
            samples += idx.shape[0]
            if bar.due():
                el = time.perf_counter() - t0
                bar.draw(epoch, a.epochs, s + 1, steps, loss_sum.item() / (s + 1), samples / el,
                         el / (s + 1) * (steps - s - 1))
        train_loss = loss_sum.item() / steps  # synchronizes
        epoch_s = time.perf_counter() - t0
        test_loss, acc = evaluate(net, vx, vy)
        if epoch > 1 or a.epochs == 1:
            steady_s += epoch_s
            steady_samples += samples
            steady_epochs += 1
        r = {"epoch": epoch, "train_loss": train_loss, "test_loss": test_loss, "test_acc": acc,
             "epoch_s": epoch_s, "train_samples_per_s": samples / epoch_s}
        records.append(r)
        if metrics:
            print(json.dumps(r), file=metrics, flush=True)
        bar.finish(f"epoch {epoch}/{a.epochs}: train loss {train_loss:.4f}, test loss "
                   f"{test_loss:.4f}, test accuracy {100 * acc:.2f}%, {epoch_s:.2f} s, "
                   f"{samples / epoch_s:.0f} samples/s")
    if a.plot:
        plot(records, a.plot, f"{model}, Fashion-MNIST, {a.device}, PyTorch")
        print(f"curves written to {a.plot}")
    print(json.dumps({"model": model, "framework": f"pytorch {torch.__version__}",
                      "device": a.device, "epochs": a.epochs, "batch_size": bs,
                      "optimizer": a.optimizer, "tf32": a.tf32, "graph": a.graph,
                      "fused": a.fused, "compile": a.compile,
                      "train_samples_per_s": steady_samples / steady_s if steady_s else 0.0,
                      "epoch_s_steady": steady_s / steady_epochs,
                      "test_acc": records[-1]["test_acc"], "wall_s": time.perf_counter() - wall0}))


if __name__ == "__main__":
    main()
