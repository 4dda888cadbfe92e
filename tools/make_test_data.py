#!/usr/bin/env python3
# Regenerates ember's PyTorch-derived test data under tests/data/: the type-promotion table
# (torch.result_type) and PyTorch's printed text of a few tensors. Run: python3 tools/make_test_data.py
# (needs `pip install torch`; the files are committed, so the tests never need PyTorch).
import os
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data")

DTYPES = {
    "float32": torch.float32,
    "float64": torch.float64,
    "int32": torch.int32,
    "int64": torch.int64,
    "uint8": torch.uint8,
    "bool": torch.bool,
}
SCALARS = {"bool": True, "int": 2, "float": 2.5}
NAME = {v: k for k, v in DTYPES.items()}


def make(dtype, ndim):
    # ndim 1: a dimensioned tensor; ndim 0: a 0-dim tensor (lower priority in promotion)
    return torch.ones([2] if ndim else [], dtype=dtype)


def result_types():
    lines = [
        "# torch.result_type for ember's six dtypes, written by tools/make_test_data.py",
        "# with PyTorch %s." % torch.__version__,
        "# tt A ADIM B BDIM RESULT: tensor A (ADIM 1 = shape [2], 0 = 0-dim) op tensor B",
        "# ts A ADIM KIND RESULT: tensor A op a Python scalar of KIND (bool True, int 2, float 2.5)",
    ]
    for a in DTYPES:
        for b in DTYPES:
            for ad in (1, 0):
                for bd in (1, 0):
                    r = torch.result_type(make(DTYPES[a], ad), make(DTYPES[b], bd))
                    lines.append("tt %s %d %s %d %s" % (a, ad, b, bd, NAME[r]))
    for a in DTYPES:
        for ad in (1, 0):
            for kind, value in SCALARS.items():
                r = torch.result_type(make(DTYPES[a], ad), value)
                lines.append("ts %s %d %s %s" % (a, ad, kind, NAME[r]))
    return "\n".join(lines) + "\n"


# Each case: a name the C++ test knows how to build the same tensor for, and the tensor.
PRINT_CASES = [
    ("float_1d", torch.tensor([1.0, 2.5, -3.0])),
    ("float_integral", torch.tensor([1.0, 2.0, 3.0])),
    ("float_2d", torch.tensor([[0.5, -1.25], [100.0, 3.0]])),
    ("float_3d", torch.arange(12.0).reshape(2, 2, 3)),
    ("float_sci", torch.tensor([1e-5, 1.0, 1e5])),
    ("float_nonfinite", torch.tensor([float("nan"), float("inf"), -float("inf"), 1.0])),
    ("float_0d", torch.tensor(3.5)),
    ("float_empty", torch.zeros(0)),
    ("float_empty_2x0", torch.zeros(2, 0)),
    ("float64_1d", torch.tensor([1.5, -2.25], dtype=torch.float64)),
    ("int64_2x3", torch.arange(6).reshape(2, 3)),
    ("int64_long", torch.arange(1001)),
    ("int32_1d", torch.tensor([1, -2, 30], dtype=torch.int32)),
    ("uint8_1d", torch.tensor([0, 7, 255], dtype=torch.uint8)),
    ("bool_1d", torch.tensor([True, False, True])),
    ("transposed", torch.arange(6.0).reshape(2, 3).t()),
]


def printing():
    out = [
        "# repr() of tensors in PyTorch %s, written by tools/make_test_data.py." % torch.__version__,
        "# Each case starts with '=== name'; the text follows until the next case.",
    ]
    torch.set_printoptions(profile="default")
    for name, t in PRINT_CASES:
        out.append("=== " + name)
        out.append(repr(t))
    return "\n".join(out) + "\n"


def main():
    os.makedirs(DATA, exist_ok=True)
    with open(os.path.join(DATA, "result_type.txt"), "w") as f:
        f.write(result_types())
    with open(os.path.join(DATA, "printing.txt"), "w") as f:
        f.write(printing())


if __name__ == "__main__":
    main()
