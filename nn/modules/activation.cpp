// Activation modules: option checks and LibTorch-style printing.
#include <ember/nn/modules/activation.h>

namespace ember::nn {

void ReLUImpl::pretty_print(std::ostream& stream) const {
  stream << "ReLU(" << (options.inplace() ? "inplace=true" : "") << ")";
}

void LeakyReLUImpl::pretty_print(std::ostream& stream) const {
  stream << "LeakyReLU(negative_slope=" << options.negative_slope()
         << (options.inplace() ? ", inplace=true" : "") << ")";
}

GELUImpl::GELUImpl(GELUOptions options) : options(std::move(options)) {
  EMBER_CHECK(this->options.approximate() == "none" || this->options.approximate() == "tanh",
              "GELU: approximate must be \"none\" or \"tanh\", got \"", this->options.approximate(),
              "\"");
}

void GELUImpl::pretty_print(std::ostream& stream) const {
  stream << "GELU(";
  if (options.approximate() != "none") stream << "approximate='" << options.approximate() << "'";
  stream << ")";
}

void SoftmaxImpl::pretty_print(std::ostream& stream) const {
  stream << "Softmax(dim=" << options.dim() << ")";
}

void LogSoftmaxImpl::pretty_print(std::ostream& stream) const {
  stream << "LogSoftmax(dim=" << options.dim() << ")";
}

}  // namespace ember::nn
