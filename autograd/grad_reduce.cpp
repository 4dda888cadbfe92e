// Backward rules of the reductions (sum, mean, prod, max/min, amax/amin, var, norm),
// written with ember's own ops.
#include <ember/autograd/grad_reduce.h>

#include <algorithm>

#include <ember/autograd/function_node.h>

namespace ember::autograd::recorded {

namespace {
// grad of a reduction without keepdim, with the reduced dims put back as size 1.
Tensor unsqueeze_reduced(const Tensor& g, IntArrayRef dim, int64_t ndim, bool keepdim) {
  if (keepdim || dim.empty()) return g;
  DimVector sorted;
  for (int64_t d : dim) sorted.push_back(d < 0 ? d + ndim : d);
  std::sort(sorted.begin(), sorted.end());
  Tensor r = g;
  for (int64_t d : sorted) r = r.unsqueeze(d);
  return r;
}
}  // namespace

// sum(dim = {}) is the full sum.
Tensor sum(const Tensor& t, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  Tensor out = untracked([&] { return dim.empty() ? t.sum(dtype) : t.sum(dim, keepdim, dtype); });
  DimVector sizes(t.sizes()), dims(dim);
  return record(dims.empty() ? "SumBackward0" : "SumBackward1", "sum", {t}, out, {},
                [sizes, dims, keepdim](FunctionNode&, const tensor_list& g) -> tensor_list {
                  const int64_t nd = static_cast<int64_t>(sizes.size());
                  return {unsqueeze_reduced(g[0], dims, nd, keepdim).expand(sizes)};
                });
}

}  // namespace ember::autograd::recorded
