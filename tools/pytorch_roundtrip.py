#!/usr/bin/env python3
# Weights between ember and PyTorch on examples/mlp.cpp's and examples/cnn.cpp's models: `eval`
# loads a file (ember's --export safetensors, or a .pt state dict) into the same model built in
# PyTorch and prints its test accuracy; `train` trains that model as the examples do and saves
# torch.save(model.state_dict(), FILE) for `mlp|cnn --weights FILE --epochs 0`. Run by
# tools/gpu_roundtrip_check.sh; needs only PyTorch (no numpy, no safetensors package).
"""Usage:
  pytorch_roundtrip.py eval  --model mlp|cnn [--bn] --weights FILE [--data DIR] [--device cuda]
  pytorch_roundtrip.py train --model mlp|cnn [--bn] --epochs N --out FILE.pt [--data DIR]
                             [--device cuda] [--max-steps N] [--optimizer sgd|adam] [--seed S]

The last line of stdout is one JSON object: test_acc, test_correct, test_samples, test_loss.
The models have the examples' layers under the examples' names (fc1, conv1, bn1, ...), so the
state dicts match key for key and load with strict=True, with no renaming. The data is read
from Fashion-MNIST's IDX .gz files and normalized as the examples do: pixel / 255, then
(x - 0.2860) / 0.3530 unless --no-normalize.
"""
import argparse
import gzip
import json
import os
import sys
import time

import torch
import torch.nn.functional as F


# ---- the examples' models ----
class MLP(torch.nn.Module):  # examples/mlp.cpp: 784-512-256-10, ReLU
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(784, 512)
        self.fc2 = torch.nn.Linear(512, 256)
        self.fc3 = torch.nn.Linear(256, 10)

    def forward(self, x):  # [N, 784] -> [N, 10]
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))


class CNN(torch.nn.Module):  # examples/cnn.cpp; with batch_norm (--bn) a BatchNorm2d per conv
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
        x = F.relu(self.fc1(x.flatten(1)))  # NCHW flattened, as ember's flatten(1)
        return self.fc2(x)


def build_model(args):
    if args.model == "mlp":
        if args.bn:
            sys.exit("pytorch_roundtrip.py: --bn is for --model cnn")
        return MLP()
    return CNN(args.bn)


def model_name(args):  # the examples' "model" field
    if args.model == "mlp":
        return "mlp-784-512-256-10"
    return "cnn-bn-32-64-128-10" if args.bn else "cnn-32-64-128-10"


# ---- Fashion-MNIST, as ember's data::datasets::MNIST reads it ----
def read_idx(path, magic, dims):
    with gzip.open(path) as f:
        data = bytearray(f.read())
    got = int.from_bytes(data[0:4], "big")
    if got != magic:
        sys.exit(f"pytorch_roundtrip.py: {path}: magic {got:#x}, expected {magic:#x}")
    sizes = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    offset = 4 + 4 * dims
    count = 1
    for s in sizes:
        count *= s
    if len(data) != offset + count:
        sys.exit(f"pytorch_roundtrip.py: {path}: {len(data) - offset} bytes of data for {sizes}")
    return torch.frombuffer(data, dtype=torch.uint8, offset=offset).reshape(sizes).clone()


def load_split(root, prefix, model, device, normalize):
    images = read_idx(os.path.join(root, f"{prefix}-images-idx3-ubyte.gz"), 0x803, 3)
    labels = read_idx(os.path.join(root, f"{prefix}-labels-idx1-ubyte.gz"), 0x801, 1)
    x = images.float().div(255)
    if normalize:
        x = (x - 0.2860) / 0.3530  # Fashion-MNIST's training-set mean and std
    x = x.view(-1, 784) if model == "mlp" else x.view(-1, 1, 28, 28)
    return x.to(device), labels.long().to(device)


# ---- weights ----
SAFETENSORS_DTYPES = {"F64": torch.float64, "F32": torch.float32, "F16": torch.float16,
                      "BF16": torch.bfloat16, "I64": torch.int64, "I32": torch.int32,
                      "I16": torch.int16, "I8": torch.int8, "U8": torch.uint8, "BOOL": torch.bool}


def read_safetensors(path):
    """A safetensors file as {name: CPU tensor}: an 8-byte little-endian header length, the
    JSON header ({name: {dtype, shape, data_offsets}}, "__metadata__"), then the data."""
    with open(path, "rb") as f:
        raw = f.read()
    n = int.from_bytes(raw[:8], "little")
    if n + 8 > len(raw):
        sys.exit(f"pytorch_roundtrip.py: {path}: not a safetensors file (header length {n})")
    header = json.loads(raw[8:8 + n])
    header.pop("__metadata__", None)
    data = bytearray(raw[8 + n:])
    tensors = {}
    for name, entry in header.items():
        dtype = SAFETENSORS_DTYPES[entry["dtype"]]
        begin, end = entry["data_offsets"]
        shape = entry["shape"]
        itemsize = torch.empty((), dtype=dtype).element_size()
        numel = 1
        for s in shape:
            numel *= s
        if end - begin != numel * itemsize or end > len(data):
            sys.exit(f"pytorch_roundtrip.py: {path}: tensor {name}: bad data_offsets")
        if numel == 0:
            tensors[name] = torch.empty(shape, dtype=dtype)
        else:
            tensors[name] = torch.frombuffer(data, dtype=dtype, count=numel,
                                             offset=begin).reshape(shape).clone()
    return tensors


def read_weights(path):
    with open(path, "rb") as f:
        zip_file = f.read(2) == b"PK"  # torch.save's zip format; safetensors otherwise
    return torch.load(path, map_location="cpu") if zip_file else read_safetensors(path)


# ---- evaluation and training, as the examples do them ----
def evaluate(net, vx, vy):
    """Test loss, correct count: batches of 1000 in eval mode, as the examples' evaluate()."""
    net.eval()
    with torch.no_grad():
        loss_sum = torch.zeros((), device=vx.device)
        correct = torch.zeros((), dtype=torch.int64, device=vx.device)
        for i in range(0, vx.shape[0], 1000):
            logits, y = net(vx[i:i + 1000]), vy[i:i + 1000]
            loss_sum += F.cross_entropy(logits, y, reduction="sum")
            correct += (logits.argmax(1) == y).sum()
    net.train()
    return loss_sum.item() / vx.shape[0], int(correct.item())


def result(args, test_loss, correct, n, **extra):
    out = {"model": model_name(args), "framework": f"pytorch {torch.__version__}",
           "device": args.device}
    if args.device.startswith("cuda"):
        out["gpu"] = torch.cuda.get_device_name(torch.device(args.device))
    out.update(extra)
    out.update({"test_loss": test_loss, "test_acc": correct / n, "test_correct": correct,
                "test_samples": n})
    return out


def cmd_eval(args):
    dev = torch.device(args.device)
    vx, vy = load_split(args.data, "t10k", args.model, dev, args.normalize)
    net = build_model(args)
    net.load_state_dict(read_weights(args.weights), strict=True)
    net.to(dev)
    test_loss, correct = evaluate(net, vx, vy)
    print(f"{args.weights}: test loss {test_loss:.4f}, test accuracy "
          f"{100 * correct / vx.shape[0]:.2f}% ({correct} of {vx.shape[0]})")
    print(json.dumps(result(args, test_loss, correct, vx.shape[0], weights=args.weights)))


def cmd_train(args):
    wall0 = time.perf_counter()
    torch.manual_seed(args.seed)
    dev = torch.device(args.device)
    tx, ty = load_split(args.data, "train", args.model, dev, args.normalize)
    vx, vy = load_split(args.data, "t10k", args.model, dev, args.normalize)
    net = build_model(args).to(dev)
    lr = args.lr if args.lr > 0 else 0.05 if args.optimizer == "sgd" else 1e-3
    if args.optimizer == "sgd":
        opt = torch.optim.SGD(net.parameters(), lr=lr, momentum=0.9)
    else:
        opt = torch.optim.Adam(net.parameters(), lr=lr)
    n, bs = tx.shape[0], args.batch_size
    steps = (n + bs - 1) // bs
    if args.max_steps > 0:
        steps = min(steps, args.max_steps)
    test_loss, correct = evaluate(net, vx, vy) if args.epochs == 0 else (0.0, 0)
    for epoch in range(1, args.epochs + 1):
        t0 = time.perf_counter()
        perm = torch.randperm(n, device=dev)
        loss_sum = torch.zeros((), device=dev)
        for s in range(steps):
            idx = perm[s * bs:(s + 1) * bs]
            x, y = tx.index_select(0, idx), ty.index_select(0, idx)
            opt.zero_grad()
            loss = F.cross_entropy(net(x), y)
            loss.backward()
            opt.step()
            loss_sum += loss.detach()
        train_loss = loss_sum.item() / steps
        epoch_s = time.perf_counter() - t0
        test_loss, correct = evaluate(net, vx, vy)
        print(f"epoch {epoch}/{args.epochs}: train loss {train_loss:.4f}, test loss "
              f"{test_loss:.4f}, test accuracy {100 * correct / vx.shape[0]:.2f}%, "
              f"{epoch_s:.2f} s", flush=True)
    torch.save(net.state_dict(), args.out)
    print(f"state dict saved to {args.out}")
    print(json.dumps(result(args, test_loss, correct, vx.shape[0], epochs=args.epochs,
                            batch_size=bs, optimizer=args.optimizer, out=args.out,
                            wall_s=time.perf_counter() - wall0)))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--model", choices=("mlp", "cnn"), required=True)
    common.add_argument("--bn", action="store_true", help="cnn with BatchNorm2d (cnn --bn)")
    common.add_argument("--data", default="/usr/share/datasets/fashion-mnist",
                        help="folder with the (gzip-compressed) IDX files")
    common.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    common.add_argument("--no-normalize", dest="normalize", action="store_false",
                        help="pixels in [0, 1], as the examples' --no-normalize")
    e = sub.add_parser("eval", parents=[common], help="test accuracy of a weights file")
    e.add_argument("--weights", required=True, help="ember's --export file, or a .pt state dict")
    t = sub.add_parser("train", parents=[common], help="train as the example, save a .pt")
    t.add_argument("--epochs", type=int, required=True)
    t.add_argument("--out", required=True, help="torch.save(model.state_dict(), OUT)")
    t.add_argument("--batch-size", type=int, default=128)
    t.add_argument("--lr", type=float, default=-1, help="default 0.05 for sgd, 0.001 for adam")
    t.add_argument("--optimizer", choices=("sgd", "adam"), default="sgd",
                   help="sgd (momentum 0.9) or adam")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--max-steps", type=int, default=0, help="at most this many steps per epoch")
    args = p.parse_args()
    # Full float32, as the examples (cnn's --tf32 is off by default).
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    if args.command == "eval":
        cmd_eval(args)
    else:
        cmd_train(args)


if __name__ == "__main__":
    main()
