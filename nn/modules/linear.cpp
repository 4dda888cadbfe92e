// Linear, Flatten and Unflatten: parameter setup, PyTorch's default init and printing.
#include <ember/nn/modules/linear.h>

#include <cmath>

#include <ember/core/checks.h>
#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>
#include <ember/nn/init.h>

namespace ember::nn {

LinearImpl::LinearImpl(const LinearOptions& options) : options(options) { reset(); }

void LinearImpl::reset() {
  EMBER_CHECK(options.in_features() >= 0 && options.out_features() >= 0,
              "Linear: in_features and out_features must be non-negative, got ",
              options.in_features(), " and ", options.out_features());
  weight =
      register_parameter("weight", ember::empty({options.out_features(), options.in_features()}));
  bias =
      register_parameter("bias", options.bias() ? ember::empty({options.out_features()}) : Tensor(),
                         /*requires_grad=*/options.bias());
  reset_parameters();
}

void LinearImpl::reset_parameters() {
  // kaiming_uniform_ with a = sqrt(5) gives the bound 1/sqrt(fan_in), as torch.nn.Linear.
  if (weight.numel() > 0) init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const int64_t fan_in = options.in_features();
    const double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
}

Tensor LinearImpl::forward(const Tensor& input) { return ember::linear(input, weight, bias); }

void LinearImpl::pretty_print(std::ostream& stream) const {
  stream << "Linear(in_features=" << options.in_features()
         << ", out_features=" << options.out_features()
         << ", bias=" << (options.bias() ? "true" : "false") << ")";
}

void FlattenImpl::pretty_print(std::ostream& stream) const {
  stream << "Flatten(start_dim=" << options.start_dim() << ", end_dim=" << options.end_dim() << ")";
}

UnflattenImpl::UnflattenImpl(UnflattenOptions options) : options(std::move(options)) {
  EMBER_CHECK(!this->options.sizes().empty(), "Unflatten: sizes must not be empty");
}

Tensor UnflattenImpl::forward(const Tensor& input) {
  const int64_t dim = wrap_dim("Unflatten", options.dim(), input.dim());
  DimVector shape;
  for (int64_t d = 0; d < dim; ++d) shape.push_back(input.size(d));
  for (int64_t s : options.sizes()) shape.push_back(s);
  for (int64_t d = dim + 1; d < input.dim(); ++d) shape.push_back(input.size(d));
  return input.view(shape);
}

void UnflattenImpl::pretty_print(std::ostream& stream) const {
  stream << "Unflatten(dim=" << options.dim() << ", unflattened_size={";
  for (size_t i = 0; i < options.sizes().size(); ++i) {
    stream << (i ? ", " : "") << options.sizes()[i];
  }
  stream << "})";
}

}  // namespace ember::nn
