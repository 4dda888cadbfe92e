// Loss modules, as LibTorch's: CrossEntropyLoss NLLLoss MSELoss L1Loss SmoothL1Loss BCELoss
// BCEWithLogitsLoss KLDivLoss. Each holds its options (nn/functional_loss.h) and forwards to
// the functional form; class weights are buffers, so module->to(kCUDA) moves them.
#pragma once

#include <ostream>

#include <ember/core/tensor.h>
#include <ember/nn/functional_loss.h>
#include <ember/nn/holder.h>
#include <ember/nn/module.h>

namespace ember::nn {

class CrossEntropyLossImpl : public Module {
 public:
  explicit CrossEntropyLossImpl(const CrossEntropyLossOptions& options = {});
  // (Re)registers the class-weight buffers from the options, as LibTorch's (used by clone()).
  void reset();
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  CrossEntropyLossOptions options;
  Tensor weight;  // the "weight" buffer (undefined without class weights)
};
EMBER_BUILTIN_MODULE(CrossEntropyLoss);

class NLLLossImpl : public Module {
 public:
  explicit NLLLossImpl(const NLLLossOptions& options = {});
  // (Re)registers the class-weight buffers from the options, as LibTorch's (used by clone()).
  void reset();
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  NLLLossOptions options;
  Tensor weight;
};
EMBER_BUILTIN_MODULE(NLLLoss);

class MSELossImpl : public Module {
 public:
  explicit MSELossImpl(const MSELossOptions& options = {}) : options(options) {}
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  MSELossOptions options;
};
EMBER_BUILTIN_MODULE(MSELoss);

class L1LossImpl : public Module {
 public:
  explicit L1LossImpl(const L1LossOptions& options = {}) : options(options) {}
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  L1LossOptions options;
};
EMBER_BUILTIN_MODULE(L1Loss);

class SmoothL1LossImpl : public Module {
 public:
  explicit SmoothL1LossImpl(const SmoothL1LossOptions& options = {}) : options(options) {}
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  SmoothL1LossOptions options;
};
EMBER_BUILTIN_MODULE(SmoothL1Loss);

class BCELossImpl : public Module {
 public:
  explicit BCELossImpl(const BCELossOptions& options = {});
  // (Re)registers the class-weight buffers from the options, as LibTorch's (used by clone()).
  void reset();
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  BCELossOptions options;
  Tensor weight;
};
EMBER_BUILTIN_MODULE(BCELoss);

class BCEWithLogitsLossImpl : public Module {
 public:
  explicit BCEWithLogitsLossImpl(const BCEWithLogitsLossOptions& options = {});
  // (Re)registers the class-weight buffers from the options, as LibTorch's (used by clone()).
  void reset();
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  BCEWithLogitsLossOptions options;
  Tensor weight, pos_weight;  // buffers
};
EMBER_BUILTIN_MODULE(BCEWithLogitsLoss);

class KLDivLossImpl : public Module {
 public:
  explicit KLDivLossImpl(const KLDivLossOptions& options = {}) : options(options) {}
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  KLDivLossOptions options;
};
EMBER_BUILTIN_MODULE(KLDivLoss);

}  // namespace ember::nn
