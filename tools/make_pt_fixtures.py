#!/usr/bin/env python3
# Writes tests/data/pt/*.pt for tests/test_serialize_pt.cpp: torch.save's files of arange-based
# values (the test computes them without PyTorch), plus hostile and damaged ones; and for
# tests/test_serialize_pt_models.cpp small seeded MLP and CNN state dicts with inputs and logits.
"""Usage: python3 tools/make_pt_fixtures.py [OUT_DIR]   (default: tests/data/pt)

Needs PyTorch >= 1.6 (the committed files were made with Debian's python3-torch 1.13.1). Files
that torch.save cannot make (a forbidden global, a big-endian byte order, a cuda:0 location,
deflated entries) are rewritten from torch.save's output with zipfile, keeping its entry names.
"""
import collections
import io
import os
import pickletools
import sys
import zipfile

import torch

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "pt")


def path(name):
    return os.path.join(OUT, name)


def linear_bn_state_dict():
    # Linear(3, 4) then BatchNorm1d(4): weight = arange(12)/4 - 1 as (4, 3), bias = arange(4)/8,
    # bn.weight = 1 + arange(4)/10, bn.bias = -arange(4)/10, running_mean = arange(4)/100,
    # running_var = 1 + arange(4), num_batches_tracked = 7.
    net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4))
    with torch.no_grad():
        net[0].weight.copy_(torch.arange(12.0).reshape(4, 3) / 4 - 1)
        net[0].bias.copy_(torch.arange(4.0) / 8)
        net[1].weight.copy_(1 + torch.arange(4.0) / 10)
        net[1].bias.copy_(-torch.arange(4.0) / 10)
        net[1].running_mean.copy_(torch.arange(4.0) / 100)
        net[1].running_var.copy_(1 + torch.arange(4.0))
        net[1].num_batches_tracked.fill_(7)
    return net.state_dict()


# Models of examples/mlp.cpp and examples/cnn.cpp (--bn) with the same layer names and layout
# but smaller widths, so that the committed files stay small (tens of KB, not MB): the MLP is
# 784 -> 16 -> 12 -> 10 (the example's is 784 -> 512 -> 256 -> 10); the CNN has 4 and 8
# channels and a hidden width of 16 (the example's 32, 64 and 128). Weights are PyTorch's
# default initialization under a fixed seed; BatchNorm's running statistics, affine parameters
# and num_batches_tracked are set to seeded random values, so that eval mode uses them.
class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(784, 16)
        self.fc2 = torch.nn.Linear(16, 12)
        self.fc3 = torch.nn.Linear(12, 10)

    def forward(self, x):
        return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))


class CNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 4, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(4, 8, 3, padding=1)
        self.bn1 = torch.nn.BatchNorm2d(4)
        self.bn2 = torch.nn.BatchNorm2d(8)
        self.pool = torch.nn.MaxPool2d(2)
        self.fc1 = torch.nn.Linear(8 * 7 * 7, 16)
        self.fc2 = torch.nn.Linear(16, 10)

    def forward(self, x):  # [N, 1, 28, 28] -> [N, 10]
        x = self.pool(torch.relu(self.bn1(self.conv1(x))))
        x = self.pool(torch.relu(self.bn2(self.conv2(x))))
        x = torch.relu(self.fc1(x.flatten(1)))
        return self.fc2(x)


def save_model_and_logits(net, inputs, name):
    """Writes NAME.pt (the state dict) and NAME_io.pt ({"input", "logits"}: eval-mode logits)."""
    net.eval()
    torch.save(net.state_dict(), path(name + ".pt"))
    with torch.no_grad():
        logits = net(inputs)
    torch.save({"input": inputs, "logits": logits}, path(name + "_io.pt"))


def save_models():
    torch.manual_seed(15)
    save_model_and_logits(MLP(), torch.rand(4, 784), "mlp")
    cnn = CNN()
    with torch.no_grad():
        for bn in (cnn.bn1, cnn.bn2):
            bn.weight.uniform_(0.5, 1.5)
            bn.bias.uniform_(-0.5, 0.5)
            bn.running_mean.uniform_(-0.2, 0.2)
            bn.running_var.uniform_(0.5, 2.0)
            bn.num_batches_tracked.fill_(100)
    save_model_and_logits(cnn, torch.rand(4, 1, 28, 28), "cnn_bn")
    # A Linear(3, 2)'s state dict in half precision: values that float16 and bfloat16 hold
    # exactly (weight = arange(6)/4 - 1 as (2, 3), bias = (0.5, -1.5)), for a float32 module.
    linear = {"weight": torch.arange(6.0).reshape(2, 3) / 4 - 1, "bias": torch.tensor([0.5, -1.5])}
    torch.save({k: v.half() for k, v in linear.items()}, path("linear_f16.pt"))
    torch.save({k: v.bfloat16() for k, v in linear.items()}, path("linear_bf16.pt"))


def rewrite(src, dst, change=None, extra=None, compression=zipfile.ZIP_STORED):
    """Copies the archive `src` to `dst` (top folder renamed to dst's stem): each entry named in
    `change` ({name under top: function of its bytes}) is replaced by what the function returns,
    or dropped when it returns None; the entries of `extra` ({name under top: bytes}) are added."""
    top_src = os.path.splitext(os.path.basename(src))[0]
    top_dst = os.path.splitext(os.path.basename(dst))[0]
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", compression) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            inner = info.filename[len(top_src) + 1:]
            if change and inner in change:
                data = change[inner](data)
                if data is None:
                    continue
            zout.writestr(top_dst + "/" + inner, data)
        for inner, data in (extra or {}).items():
            zout.writestr(top_dst + "/" + inner, data)


def replace(old, new):
    def change(data):
        assert old in data, (old, data)
        return data.replace(old, new)
    return change


def patch_central_size(file, entry, size):
    """Sets the uncompressed size that the central directory gives for `entry`."""
    data = bytearray(open(file, "rb").read())
    pos = data.find(b"PK\x01\x02")
    while pos >= 0:
        name_len = int.from_bytes(data[pos + 28:pos + 30], "little")
        if data[pos + 46:pos + 46 + name_len].decode().endswith(entry):
            data[pos + 24:pos + 28] = size.to_bytes(4, "little")
        pos = data.find(b"PK\x01\x02", pos + 1)
    open(file, "wb").write(bytes(data))


def binunicode(text):
    data = text.encode()
    return b"X" + len(data).to_bytes(4, "little") + data


# {"w": os.system("echo this must never run")}, written by hand: pickle.dumps of os.system
# names it posix.system on Linux. torch.load(weights_only=False) would run it.
OS_SYSTEM_PICKLE = (b"\x80\x02}" + binunicode("w") + b"cos\nsystem\n" +
                    binunicode("echo this must never run") + b"\x85Rs.")


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.save(linear_bn_state_dict(), path("linear_bn.pt"))

    torch.save(torch.arange(6.0).reshape(2, 3), path("tensor.pt"))
    torch.save(torch.nn.Parameter(torch.arange(4.0) - 1.5), path("parameter.pt"))

    # Views: all of these share one storage of arange(12); saved together, it is written once.
    base = torch.arange(12.0)
    grid = base.view(3, 4)
    torch.save({"base": base, "transposed": grid.t(), "tail": base[4:], "strided": base[1::3],
                "column": grid[:, 2], "offset_block": grid[1:, 1:3]}, path("views.pt"))

    torch.save({
        "model": {"fc": {"weight": torch.arange(6.0).reshape(2, 3), "bias": torch.ones(2)}},
        "layers": [torch.full((2,), 5.0), {"w": torch.arange(3, dtype=torch.int64)}],
        "pair": (torch.zeros(1), 3),
        "by_int": {0: torch.tensor([1.0]), 7: torch.tensor([2.0])},
        "epoch": 5, "lr": 0.1, "name": "run", "nothing": None, "flag": True,
    }, path("nested.pt"))

    torch.save({
        "i64": torch.tensor([-(2 ** 40), 0, 7], dtype=torch.int64),
        "i32": torch.tensor([-5, 2 ** 31 - 1], dtype=torch.int32),
        "u8": torch.tensor([0, 200, 255], dtype=torch.uint8),
        "bool": torch.tensor([True, False, True]),
        "f64": torch.tensor([1.5, -0.25, 1e300], dtype=torch.float64),
        "f16": torch.tensor([1.5, -2.0], dtype=torch.float16),
        "scalar": torch.tensor(3.5, dtype=torch.float64),
        "empty": torch.zeros(0, 3),
        # sizes pickled as BININT2 (300) and BININT (70000)
        "u8_300": (torch.arange(300) % 256).to(torch.uint8),
        "wide_empty": torch.zeros(0, 70000),
    }, path("dtypes.pt"))
    # Protocol 4 (torch.save's pickle_protocol): SHORT_BINUNICODE, MEMOIZE, STACK_GLOBAL, FRAME.
    torch.save(linear_bn_state_dict(), path("protocol4.pt"), pickle_protocol=4)

    torch.save(linear_bn_state_dict(), path("legacy.pt"), _use_new_zipfile_serialization=False)
    torch.save({"counts": collections.Counter("aab")}, path("counter.pt"))
    torch.save({"int8": torch.tensor([1, -1], dtype=torch.int8)}, path("int8.pt"))

    torch.jit.save(torch.jit.script(torch.nn.Linear(2, 2)), path("torchscript.pt"))
    save_models()

    # Hostile and damaged files, rewritten from tensor.pt (a (2, 3) view of a 6-float storage).
    tensor_pt = path("tensor.pt")
    rewrite(tensor_pt, path("os_system.pt"), change={"data.pkl": lambda _: OS_SYSTEM_PICKLE})
    rewrite(tensor_pt, path("builtins_eval.pt"), change={"data.pkl": lambda _: (
        b"\x80\x02cbuiltins\neval\n" + binunicode("1 + 1") + b"\x85R.")})
    # PyTorch >= 2.1 writes a byteorder entry; one saying "big" must be refused.
    rewrite(tensor_pt, path("byteorder_little.pt"), extra={"byteorder": b"little"})
    rewrite(tensor_pt, path("byteorder_big.pt"), extra={"byteorder": b"big"})
    rewrite(path("linear_bn.pt"), path("deflated.pt"), compression=zipfile.ZIP_DEFLATED)
    # The storage's location as saved from a GPU.
    rewrite(tensor_pt, path("cuda_location.pt"),
            change={"data.pkl": replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")})
    # A whole state dict as saved from a GPU: every storage's location is cuda:0.
    rewrite(path("linear_bn.pt"), path("linear_bn_cuda.pt"),
            change={"data.pkl": replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")})
    # size (3, 3) with stride (3, 1): reaches element 8 of 6.
    rewrite(tensor_pt, path("view_outside_storage.pt"),
            change={"data.pkl": replace(b"K\x02K\x03\x86", b"K\x03K\x03\x86")})
    # The storage claims 2**62 elements.
    rewrite(tensor_pt, path("huge_numel.pt"), change={
        "data.pkl": replace(b"K\x06t", b"\x8a\x08" + (2 ** 62).to_bytes(8, "little") + b"t")})
    rewrite(tensor_pt, path("missing_storage.pt"), change={"data/0": lambda _: None})
    # A list that contains itself: l = []; l.append(l).
    rewrite(tensor_pt, path("cycle.pt"), change={"data.pkl": lambda _: b"\x80\x02]q\x00h\x00a."})
    # A bool storage holding the byte 2.
    bool_src = path("bool_src.pt")
    torch.save(torch.tensor([True, False]), bool_src)
    rewrite(bool_src, path("bad_bool.pt"), change={"data/0": lambda _: b"\x01\x02"})
    os.remove(bool_src)
    # A deflated data.pkl that claims to inflate to 2 GiB.
    rewrite(tensor_pt, path("zip_bomb.pt"), compression=zipfile.ZIP_DEFLATED)
    patch_central_size(path("zip_bomb.pt"), "/data.pkl", 0x7fffffff)

    pickletools.dis(OS_SYSTEM_PICKLE, out=io.StringIO())  # checks that it is a valid pickle
    for name in sorted(os.listdir(OUT)):
        print(f"{name}: {os.path.getsize(path(name))} bytes")


if __name__ == "__main__":
    main()
