#!/usr/bin/env python3
# Writes the safetensors reference files that tests/test_serialize.cpp loads: tensors of every
# dtype ember reads, saved by PyTorch's safetensors.torch.save_file, a PyTorch nn.Sequential
# state dict, and the expected values as text (tests/data/safetensors_reference.txt).
# Run: python3 tools/make_safetensors_reference.py  (needs torch and the safetensors package)
import os

import torch
from safetensors.torch import save_file

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")


def values(t):
    t = t.contiguous().reshape(-1)
    if t.dtype in (torch.float16, torch.bfloat16):
        return ["0x%04x" % (int(v) & 0xFFFF) for v in t.view(torch.int16).tolist()]
    if t.dtype == torch.float32:
        return ["%.9g" % v for v in t.tolist()]
    if t.dtype == torch.float64:
        return ["%.17g" % v for v in t.tolist()]
    return [str(int(v)) for v in t.tolist()]


def line(file, name, t):
    dtype = str(t.dtype).replace("torch.", "")
    shape = " ".join(str(s) for s in t.shape)
    return "%s %s %s %d %s : %s" % (file, name, dtype, t.dim(), shape, " ".join(values(t)))


def main():
    torch.manual_seed(0)
    lines = []
    dtypes = {
        "f32": torch.randn(2, 3),
        "f64": torch.randn(4, dtype=torch.float64),
        "f16": torch.tensor([1.5, -2.0, 0.333, 65504.0, 1e-4, 0.0], dtype=torch.float16).view(2, 3),
        "bf16": torch.tensor([1.5, -2.0, 0.333, 3.0e38, -1e-20], dtype=torch.bfloat16),
        "i64": torch.tensor([[-(2**62), 2**40], [7, -1]], dtype=torch.int64),
        "i32": torch.tensor([-(2**31), 2**31 - 1, 0], dtype=torch.int32),
        "u8": torch.tensor([0, 1, 127, 255], dtype=torch.uint8),
        "bool": torch.tensor([[True, False], [False, True]]),
        "scalar": torch.tensor(3.25),
        "empty": torch.zeros(0, 3),
    }
    save_file(dtypes, os.path.join(DATA, "safetensors_dtypes.safetensors"),
              metadata={"format": "pt", "source": "ember reference"})
    for name, t in dtypes.items():
        lines.append(line("dtypes", name, t))

    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    save_file(model.state_dict(), os.path.join(DATA, "safetensors_sequential.safetensors"))
    for name, t in model.state_dict().items():
        lines.append(line("sequential", name, t))
    x = torch.randn(5, 4)
    with torch.no_grad():
        y = model(x)
    lines.append(line("sequential", "input", x))
    lines.append(line("sequential", "output", y))

    with open(os.path.join(DATA, "safetensors_reference.txt"), "w") as f:
        f.write("# made by tools/make_safetensors_reference.py (torch %s): file name dtype ndim "
                "sizes : values (float16/bfloat16 as bit patterns)\n" % torch.__version__)
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
