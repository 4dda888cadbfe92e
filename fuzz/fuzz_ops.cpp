// Fuzz target: programs of <= 16 CPU tensor ops (creation, views, elementwise, reductions, matmul,
// indexing). Each step gives a tensor inside its storage or throws ember::Error; else a finding.
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include <ember/core/functions.h>
#include <ember/core/tensor.h>

#include "fuzz_util.h"

namespace {

using ember::Tensor;
namespace idx = ember::indexing;

constexpr int kSlots = 4;
constexpr int kMaxSteps = 16;
constexpr int64_t kMaxNumel = 4096;  // larger results are checked, then dropped

const ember::ScalarType kDtypes[] = {ember::kFloat32, ember::kFloat64, ember::kInt32,
                                     ember::kInt64,   ember::kBool,    ember::kUInt8,
                                     ember::kFloat16, ember::kBFloat16};

ember::ScalarType dtype_of(ember_fuzz::Bytes& in) { return kDtypes[in.u8() % 8]; }

// 0 to 4 sizes of 0 to 6: at most 1296 elements.
std::vector<int64_t> creation_sizes(ember_fuzz::Bytes& in) {
  std::vector<int64_t> sizes(in.u8() % 5);
  for (auto& s : sizes) s = in.small(0, 7);
  return sizes;
}

// 0 to 5 arguments for view, reshape, expand, permute, as_strided: mostly small, -1 and -2
// included, sometimes any byte.
std::vector<int64_t> shape_args(ember_fuzz::Bytes& in) {
  std::vector<int64_t> args(in.u8() % 6);
  for (auto& a : args) {
    const uint8_t b = in.u8();
    a = b < 224 ? static_cast<int64_t>(b % 14) - 2 : static_cast<int64_t>(static_cast<int8_t>(b));
  }
  return args;
}

// A dim or index argument: mostly in [-4, 6), sometimes any signed byte.
int64_t dim_arg(ember_fuzz::Bytes& in) {
  const uint8_t b = in.u8();
  return b < 224 ? static_cast<int64_t>(b % 10) - 4 : static_cast<int64_t>(static_cast<int8_t>(b));
}

std::optional<int64_t> opt_arg(ember_fuzz::Bytes& in) {
  const int64_t v = dim_arg(in);
  if (v == 5) return std::nullopt;
  return v;
}

idx::TensorIndex index_entry(ember_fuzz::Bytes& in) {
  switch (in.u8() % 5) {
    case 0:
      return idx::TensorIndex(dim_arg(in));
    case 1:
      return idx::TensorIndex(idx::None);
    case 2:
      return idx::TensorIndex("...");
    case 3:
      return idx::TensorIndex(in.u8() % 2 == 0);
    default: {
      const std::optional<int64_t> start = opt_arg(in), stop = opt_arg(in);
      int64_t step = dim_arg(in);
      if (step == 0) step = 1;  // Slice's constructor refuses 0 (tested elsewhere)
      return idx::TensorIndex(idx::Slice(start, stop, step));
    }
  }
}

// One step; returns the result (undefined when the step gives none).
Tensor step(ember_fuzz::Bytes& in, const Tensor (&slots)[kSlots]) {
  const uint8_t op = in.u8();
  const Tensor& a = slots[in.u8() % kSlots];
  const Tensor& b = slots[in.u8() % kSlots];
  const bool needs_a = op % 40 >= 4;
  if (needs_a && !a.defined()) return Tensor();
  // Arguments are read in separate statements: the order of a call's arguments is unspecified,
  // and a corpus must mean the same program under every compiler.
  switch (op % 40) {
    case 0: {
      const std::vector<int64_t> sizes = creation_sizes(in);
      return ember::zeros(sizes, dtype_of(in));
    }
    case 1: {
      const std::vector<int64_t> sizes = creation_sizes(in);
      return ember::ones(sizes, dtype_of(in));
    }
    case 2: {
      const auto dtype = dtype_of(in);
      const int64_t start = dim_arg(in), end = in.small(-8, 64), step_by = dim_arg(in);
      return ember::arange(start, end, step_by, dtype);
    }
    case 3: {
      const std::vector<int64_t> sizes = creation_sizes(in);
      return ember::randn(sizes, dtype_of(in));
    }
    case 4:
      return a.view(shape_args(in));
    case 5:
      return a.reshape(shape_args(in));
    case 6: {
      const int64_t dim = dim_arg(in);
      const auto start = opt_arg(in), end = opt_arg(in);
      return a.slice(dim, start, end, dim_arg(in));
    }
    case 7: {
      const int64_t dim = dim_arg(in), start = dim_arg(in);
      return a.narrow(dim, start, dim_arg(in));
    }
    case 8: {
      const int64_t dim = dim_arg(in);
      return a.select(dim, dim_arg(in));
    }
    case 9:
      return a.expand(shape_args(in));
    case 10:
      return a.permute(shape_args(in));
    case 11: {
      const int64_t d0 = dim_arg(in);
      return a.transpose(d0, dim_arg(in));
    }
    case 12:
      return a.squeeze();
    case 13:
      return a.squeeze(dim_arg(in));
    case 14:
      return a.unsqueeze(dim_arg(in));
    case 15:
      return b.defined() ? a.add(b) : a.add(dim_arg(in));
    case 16:
      return b.defined() ? a.mul(b) : a.mul(dim_arg(in));
    case 17:
      return b.defined() ? a.div(b) : a.div(dim_arg(in));
    case 18:
      return a.neg();
    case 19:
      return a.relu();
    case 20:
      return a.exp();
    case 21:
      return b.defined() ? a.sub(b) : a.sub(dim_arg(in));
    case 22:
      return a.abs();
    case 23:
      return a.sum();
    case 24: {
      const std::vector<int64_t> dims = {dim_arg(in)};
      return a.sum(dims, in.u8() % 2 == 1);
    }
    case 25: {
      const std::vector<int64_t> dims = shape_args(in);
      return a.mean(dims, in.u8() % 2 == 1);
    }
    case 26:
      return a.max();
    case 27: {
      const int64_t dim = dim_arg(in);
      auto [values, indices] = a.max(dim, in.u8() % 2 == 1);
      ember_fuzz::check_tensor(indices, "max(dim) indices");
      return values;
    }
    case 28: {
      const std::vector<int64_t> dims = shape_args(in);
      return a.amax(dims, in.u8() % 2 == 1);
    }
    case 29:
      return b.defined() ? a.matmul(b) : Tensor();
    case 30: {
      const int64_t dim = dim_arg(in);
      std::vector<int64_t> picks(in.u8() % 6);
      for (auto& p : picks) p = dim_arg(in);
      const Tensor index = ember::tensor(picks, ember::kInt64);
      return a.index_select(dim, in.u8() % 4 == 0 ? index.to(ember::kInt32) : index);
    }
    case 31: {
      std::vector<idx::TensorIndex> entries;
      const int n = in.u8() % 4;
      for (int i = 0; i < n; ++i) entries.push_back(index_entry(in));
      return a.index(entries);
    }
    case 32:
      return a.t();
    case 33: {
      const int64_t start = dim_arg(in);
      return a.flatten(start, dim_arg(in));
    }
    case 34:
      return a.contiguous();
    case 35: {
      const std::vector<int64_t> sizes = shape_args(in), strides = shape_args(in);
      return a.as_strided(sizes, strides, opt_arg(in));
    }
    case 36: {
      const int64_t dim = dim_arg(in);
      return a.unflatten(dim, shape_args(in));
    }
    case 37: {
      const int64_t offset = dim_arg(in), d1 = dim_arg(in);
      return a.diagonal(offset, d1, dim_arg(in));
    }
    case 38:
      return a.to(dtype_of(in));
    default: {
      const int64_t d0 = dim_arg(in);
      return a.movedim(d0, dim_arg(in));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool init = [] {
    ember::set_num_threads(1);
    return true;
  }();
  (void)init;
  ember::manual_seed(0);
  ember_fuzz::Bytes in(data, size);
  Tensor slots[kSlots] = {ember::arange(24, ember::kFloat32).view({2, 3, 4}),
                          ember::arange(4, ember::kInt64), ember::ones({3, 3}, ember::kFloat64),
                          Tensor()};
  for (int i = 0; i < kMaxSteps && !in.empty(); ++i) {
    try {
      Tensor result = step(in, slots);
      const uint8_t target = in.u8() % kSlots;
      if (!result.defined()) continue;
      ember_fuzz::check_tensor(result, ("step " + std::to_string(i)).c_str());
      if (ember_fuzz::verbose()) {
        std::string sizes;
        for (int64_t s : result.sizes()) sizes += std::to_string(s) + " ";
        std::fprintf(stderr, "  step %d: [%s] -> slot %d\n", i, sizes.c_str(), target);
      }
      if (result.numel() <= kMaxNumel) slots[target] = result;
    } catch (const ember::Error& e) {
      // a refused step: expected; the program goes on
      if (ember_fuzz::verbose()) std::fprintf(stderr, "  step %d refused: %s\n", i, e.what());
    }
  }
  return 0;
}
