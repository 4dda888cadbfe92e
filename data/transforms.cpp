// The non-template parts of data/transforms.h: Normalize's checks and arithmetic, and the
// collation stack that Stack<> uses (one allocation and one memcpy per example).
#include <ember/data/transforms.h>

#include <algorithm>
#include <cstring>

#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>

namespace ember {
namespace data {
namespace transforms {
namespace detail {

namespace {
std::string list_str(const std::vector<double>& v) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  os << "]";
  return os.str();
}

Tensor channel_tensor(const std::vector<double>& values, size_t channels) {
  std::vector<float> v(channels);
  for (size_t c = 0; c < channels; ++c)
    v[c] = static_cast<float>(values[values.size() == 1 ? 0 : c]);
  return tensor(v).view({static_cast<int64_t>(channels), 1, 1});
}

// Integer data (uint8 images) promotes to float on the subtraction; only then may the
// division run in place.
Tensor divide(Tensor t, const Tensor& by_tensor, double by_scalar) {
  if (t.is_floating_point()) return by_tensor.defined() ? t.div_(by_tensor) : t.div_(by_scalar);
  return by_tensor.defined() ? t.div(by_tensor) : t.div(by_scalar);
}
}  // namespace

NormalizeImpl::NormalizeImpl(ArrayRef<double> means, ArrayRef<double> stddevs)
    : mean_values(means.vec()), stddev_values(stddevs.vec()) {
  EMBER_CHECK(!mean_values.empty() && !stddev_values.empty(),
              "Normalize: expected at least one mean and one stddev, got mean ",
              list_str(mean_values), " and stddev ", list_str(stddev_values));
  EMBER_CHECK(mean_values.size() == stddev_values.size() || mean_values.size() == 1 ||
                  stddev_values.size() == 1,
              "Normalize: mean ", list_str(mean_values), " and stddev ", list_str(stddev_values),
              " have different numbers of channels");
  for (size_t i = 0; i < stddev_values.size(); ++i) {
    EMBER_CHECK(stddev_values[i] != 0, "Normalize: stddev ", list_str(stddev_values),
                " has a zero at index ", i);
  }
  const size_t channels = std::max(mean_values.size(), stddev_values.size());
  if (channels > 1) {
    mean = channel_tensor(mean_values, channels);
    stddev = channel_tensor(stddev_values, channels);
  }
}

Tensor NormalizeImpl::operator()(const Tensor& input) {
  EMBER_CHECK(input.defined(), "Normalize: the example's data is undefined");
  if (!mean.defined()) return divide(input.sub(mean_values[0]), Tensor(), stddev_values[0]);
  const int64_t channels = mean.size(0);
  EMBER_CHECK(input.dim() >= 3 && input.size(-3) == channels, "Normalize: ", channels,
              " per-channel values need data of shape [..., ", channels, ", H, W], got ",
              input.sizes());
  if (mean.device() != input.device()) {  // kept: the next example is on the same device
    mean = mean.to(input.device());
    stddev = stddev.to(input.device());
  }
  return divide(input.sub(mean), stddev, 0);
}

Tensor stack_examples(const std::vector<Tensor>& tensors) {
  EMBER_CHECK(!tensors.empty(), "Stack: expected a non-empty batch of examples");
  const Tensor& first = tensors[0];
  bool plain = first.defined() && first.is_cpu();
  for (size_t i = 0; plain && i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    plain = t.defined() && t.is_cpu() && t.is_contiguous() && t.dtype() == first.dtype() &&
            t.sizes() == first.sizes() && !(t.requires_grad() && GradMode::is_enabled());
  }
  if (!plain) return stack(tensors);  // checks, promotes, records autograd, any device
  DimVector shape;
  shape.push_back(static_cast<int64_t>(tensors.size()));
  for (const int64_t s : first.sizes()) shape.push_back(s);
  Tensor out = empty(shape, first.dtype());
  const size_t nbytes = first.nbytes();
  char* dst = static_cast<char*>(out.data_ptr());
  for (const Tensor& t : tensors) {
    if (nbytes != 0) std::memcpy(dst, t.data_ptr(), nbytes);
    dst += nbytes;
  }
  return out;
}

}  // namespace detail
}  // namespace transforms
}  // namespace data
}  // namespace ember
