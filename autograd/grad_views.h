// Internal: the recording forms of the view ops (view, reshape, squeeze, unsqueeze,
// transpose/t, permute, expand, slice, select, as_strided) and of the copies (clone, to,
// copy_). Core's entry points call them when autograd::should_record says so (see
// grad_elementwise.h). Not installed.
#pragma once

#include <optional>

#include <ember/core/tensor.h>

namespace ember::autograd::recorded {

// ---- views (their nodes carry FunctionNode::kView) ----
Tensor view(const Tensor& t, IntArrayRef sizes);
Tensor reshape(const Tensor& t, IntArrayRef sizes);
Tensor squeeze(const Tensor& t);
Tensor squeeze(const Tensor& t, int64_t dim);
Tensor unsqueeze(const Tensor& t, int64_t dim);
Tensor t(const Tensor& t);
Tensor transpose(const Tensor& t, int64_t dim0, int64_t dim1);
Tensor permute(const Tensor& t, IntArrayRef dims);
Tensor expand(const Tensor& t, IntArrayRef sizes);
Tensor slice(const Tensor& t, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
             int64_t step);
Tensor select(const Tensor& t, int64_t dim, int64_t index);
Tensor as_strided(const Tensor& t, IntArrayRef sizes, IntArrayRef strides,
                  std::optional<int64_t> storage_offset);

// ---- copies ----
Tensor clone(const Tensor& t);
Tensor to(const Tensor& t, Device device, ScalarType dtype, bool non_blocking, bool copy);
// self.copy_(src) with history: self's new value depends on src only.
void copy_(Tensor& self, const Tensor& src, bool non_blocking);

}  // namespace ember::autograd::recorded
