// The modules of nn/modules/activation_more.h: PReLU's parameter (filled with options.init)
// and PyTorch-style printing; the forwards are inline calls of the F:: forms.
#include <ember/nn/modules/activation_more.h>

#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>

namespace ember::nn {
namespace {
const char* inplace_suffix(bool inplace) { return inplace ? ", inplace=true" : ""; }
}  // namespace

void ELUImpl::pretty_print(std::ostream& stream) const {
  stream << "ELU(alpha=" << options.alpha() << inplace_suffix(options.inplace()) << ")";
}

void SELUImpl::pretty_print(std::ostream& stream) const {
  stream << "SELU(" << (options.inplace() ? "inplace=true" : "") << ")";
}

void CELUImpl::pretty_print(std::ostream& stream) const {
  stream << "CELU(alpha=" << options.alpha() << inplace_suffix(options.inplace()) << ")";
}

void GLUImpl::pretty_print(std::ostream& stream) const {
  stream << "GLU(dim=" << options.dim() << ")";
}

void HardshrinkImpl::pretty_print(std::ostream& stream) const {
  stream << "Hardshrink(" << options.lambda() << ")";
}

void SoftshrinkImpl::pretty_print(std::ostream& stream) const {
  stream << "Softshrink(" << options.lambda() << ")";
}

void HardtanhImpl::pretty_print(std::ostream& stream) const {
  stream << "Hardtanh(min_val=" << options.min_val() << ", max_val=" << options.max_val()
         << inplace_suffix(options.inplace()) << ")";
}

void ReLU6Impl::pretty_print(std::ostream& stream) const {
  stream << "ReLU6(" << (options.inplace() ? "inplace=true" : "") << ")";
}

void SoftplusImpl::pretty_print(std::ostream& stream) const {
  stream << "Softplus(beta=" << options.beta() << ", threshold=" << options.threshold() << ")";
}

void ThresholdImpl::pretty_print(std::ostream& stream) const {
  stream << "Threshold(threshold=" << options.threshold() << ", value=" << options.value()
         << inplace_suffix(options.inplace()) << ")";
}

void SoftminImpl::pretty_print(std::ostream& stream) const {
  stream << "Softmin(dim=" << options.dim() << ")";
}

PReLUImpl::PReLUImpl(const PReLUOptions& options) : options(options) { reset(); }

void PReLUImpl::reset() {
  EMBER_CHECK(options.num_parameters() >= 1, "PReLU: num_parameters must be positive, got ",
              options.num_parameters());
  weight = register_parameter("weight", ember::full({options.num_parameters()}, options.init()));
}

void PReLUImpl::pretty_print(std::ostream& stream) const {
  stream << "PReLU(num_parameters=" << options.num_parameters() << ")";
}

}  // namespace ember::nn
