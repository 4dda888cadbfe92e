// The gradcheck op table's registry and its sample-input makers.
#include "op_table.h"

namespace optable {

std::vector<OpEntry>& registry() {
  static std::vector<OpEntry> entries;
  return entries;
}

namespace {
Tensor uniform(const Shape& shape, Device device, double lo, double hi, double gap) {
  ember::NoGradGuard no_grad;
  Tensor t = ember::rand(shape, ember::TensorOptions().dtype(ember::kFloat64).device(device));
  t = t * (hi - lo) + lo;
  if (gap > 0) {  // |v| < gap moves to +-gap, keeping its sign
    Tensor pushed =
        ember::where(ember::lt(t, 0), ember::full_like(t, -gap), ember::full_like(t, gap));
    t = ember::where(ember::lt(ember::abs(t), gap), pushed, t);
  }
  return t;
}
}  // namespace

Tensor input(const Shape& shape, Device device, Layout layout, double lo, double hi, double gap) {
  const int64_t nd = static_cast<int64_t>(shape.size());
  Tensor t;
  if (layout == Layout::Transposed && nd >= 2) {
    Shape rev(shape.rbegin(), shape.rend());
    Shape perm(static_cast<size_t>(nd));
    for (int64_t d = 0; d < nd; ++d) perm[d] = nd - 1 - d;
    t = uniform(rev, device, lo, hi, gap).permute(perm);
  } else if (layout != Layout::Contiguous && nd >= 1) {
    Shape big(shape);
    for (auto& s : big) s = 2 * s;
    t = uniform(big, device, lo, hi, gap);
    for (int64_t d = 0; d < nd; ++d) t = t.slice(d, 0, std::nullopt, 2);
  } else {
    t = uniform(shape, device, lo, hi, gap);
  }
  return t.detach().requires_grad_(true);
}

Tensor constant(const Shape& shape, Device device, double lo, double hi) {
  return uniform(shape, device, lo, hi, 0);
}

}  // namespace optable
