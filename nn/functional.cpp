// ember::nn::functional: activations, dropout, embedding and layer_norm as composites of the
// public tensor ops (so CPU, CUDA and autograd come for free). Thin forwards stay one call.
#include <ember/nn/functional.h>

#include <cmath>
#include <sstream>

#include <ember/core/checks.h>
#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>

namespace ember::nn::functional {
namespace {

std::string shape_string(IntArrayRef sizes) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < sizes.size(); ++i) os << (i ? ", " : "") << sizes[i];
  os << "]";
  return os.str();
}

// For the in-place forms: writes the result into the input and returns the input.
Tensor assign(const Tensor& input, const Tensor& result) {
  Tensor self = input;
  self.copy_(result);
  return self;
}

}  // namespace

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  return ember::linear(input, weight, bias);
}

Tensor relu(const Tensor& input, const ReLUFuncOptions& options) {
  check_defined("relu", input);
  if (options.inplace()) {
    Tensor self = input;
    self.clamp_(0.0, std::nullopt);
    return self;
  }
  return ember::relu(input);
}

Tensor leaky_relu(const Tensor& input, const LeakyReLUFuncOptions& options) {
  check_defined("leaky_relu", input);
  // where() keeps PyTorch's gradient at 0 (the slope) whatever the slope's size.
  Tensor out = ember::where(input.gt(0.0), input, input * options.negative_slope());
  return options.inplace() ? assign(input, out) : out;
}

Tensor gelu(const Tensor& input, const GELUFuncOptions& options) {
  check_defined("gelu", input);
  if (options.approximate() == "none") return ember::gelu(input);
  EMBER_CHECK(options.approximate() == "tanh", "gelu: approximate must be \"none\" or \"tanh\", ",
              "got \"", options.approximate(), "\"");
  const double k = std::sqrt(2.0 / M_PI);
  Tensor inner = (input + input * input * input * 0.044715) * k;
  return input * 0.5 * (ember::tanh(inner) + 1.0);
}

Tensor silu(const Tensor& input) {
  check_defined("silu", input);
  return input * ember::sigmoid(input);
}

Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options) {
  return ember::softmax(input, options.dim(), options.dtype());
}

Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options) {
  return ember::log_softmax(input, options.dim(), options.dtype());
}

Tensor dropout(const Tensor& input, const DropoutFuncOptions& options) {
  check_defined("dropout", input);
  const double p = options.p();
  EMBER_CHECK(p >= 0.0 && p <= 1.0, "dropout: probability has to be between 0 and 1, but got ", p);
  EMBER_CHECK(input.is_floating_point(), "dropout: expected a floating-point input, got ",
              input.dtype());
  if (!options.training() || p == 0.0) return input;
  Tensor mask;
  if (p == 1.0) {
    mask = ember::zeros_like(input);
  } else {
    // keep ~ Bernoulli(1 - p), scaled so that the expectation is unchanged.
    mask = ember::rand_like(input).ge(p).to(input.dtype());
    mask.mul_(1.0 / (1.0 - p));
  }
  if (options.inplace()) {
    Tensor self = input;
    self.mul_(mask);
    return self;
  }
  return input * mask;
}

Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& options) {
  check_defined("embedding", input, weight);
  EMBER_CHECK(input.dtype() == kInt64 || input.dtype() == kInt32,
              "embedding: expected int64 or int32 indices, got ", input.dtype());
  EMBER_CHECK(weight.dim() == 2, "embedding: expected a 2-D weight [num_embeddings, dim], got ",
              shape_string(weight.sizes()));
  EMBER_CHECK(!options.max_norm().has_value(), "embedding: max_norm is not supported");
  EMBER_CHECK(!options.scale_grad_by_freq() && !options.sparse(),
              "embedding: scale_grad_by_freq and sparse are not supported");
  DimVector out_shape(input.sizes());
  out_shape.push_back(weight.size(1));
  Tensor out = weight.index_select(0, input.reshape({-1})).view(out_shape);
  if (options.padding_idx().has_value()) {
    const int64_t n = weight.size(0);
    int64_t pad = *options.padding_idx();
    EMBER_CHECK(pad >= -n && pad < n, "embedding: padding_idx ", pad,
                " must be within num_embeddings ", n);
    if (pad < 0) pad += n;
    // Rows looked up at padding_idx pass their values but no gradient.
    if (autograd::should_record(weight)) {
      out = ember::where(input.ne(pad).unsqueeze(-1), out, out.detach());
    }
  }
  return out;
}

Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options) {
  check_defined("layer_norm", input);
  const std::vector<int64_t>& shape = options.normalized_shape();
  const int64_t k = static_cast<int64_t>(shape.size());
  bool matches = k >= 1 && input.dim() >= k;
  for (int64_t i = 0; matches && i < k; ++i) {
    matches = input.size(input.dim() - k + i) == shape[i];
  }
  EMBER_CHECK(matches, "layer_norm: normalized_shape ", shape_string(shape),
              " doesn't match the trailing dims of an input of shape ",
              shape_string(input.sizes()));
  for (const Tensor* t : {&options.weight(), &options.bias()}) {
    EMBER_CHECK(!t->defined() || t->sizes() == IntArrayRef(shape), "layer_norm: expected ",
                t == &options.weight() ? "weight" : "bias", " of shape ", shape_string(shape),
                ", got ", shape_string(t->sizes()));
  }
  DimVector dims;
  for (int64_t i = -k; i < 0; ++i) dims.push_back(i);
  Tensor centered = input - input.mean(dims, /*keepdim=*/true);
  Tensor var = (centered * centered).mean(dims, /*keepdim=*/true);
  Tensor out = centered * (var + options.eps()).rsqrt();
  if (options.weight().defined()) out = out * options.weight();
  if (options.bias().defined()) out = out + options.bias();
  return out;
}

Tensor one_hot(const Tensor& tensor, int64_t num_classes) {
  return ember::one_hot(tensor, num_classes);
}

}  // namespace ember::nn::functional
