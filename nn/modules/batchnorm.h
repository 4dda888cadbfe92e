// BatchNorm1d and BatchNorm2d, as LibTorch's: parameters weight (ones) and bias (zeros) when
// affine; buffers running_mean (zeros), running_var (ones) and num_batches_tracked (int64, 0-dim)
// when track_running_stats, named as PyTorch's so state dicts match. forward is PyTorch's
// _BatchNorm.forward: batch statistics in training (updating the running ones, by the
// cumulative average when momentum is std::nullopt), running statistics in eval.
#pragma once

#include <cstdint>
#include <ostream>

#include <ember/core/functions.h>
#include <ember/core/tensor.h>
#include <ember/nn/holder.h>
#include <ember/nn/init.h>
#include <ember/nn/module.h>
#include <ember/nn/options_norm.h>

namespace ember::nn {

// What BatchNorm and InstanceNorm share (LibTorch's NormImplBase): parameters, buffers, resets.
template <size_t D, typename Derived, typename DerivedOptions>
class NormImplBase : public Module {
 protected:
  virtual void _check_input_dim(const Tensor& input) = 0;

 public:
  explicit NormImplBase(const DerivedOptions& options) : options(options) { reset(); }

  void reset() {
    const int64_t n = options.num_features();
    EMBER_CHECK(n >= 0, "num_features must be non-negative, got ", n);
    if (options.affine()) {
      weight = register_parameter("weight", ember::empty({n}));
      bias = register_parameter("bias", ember::empty({n}));
    } else {
      weight = register_parameter("weight", Tensor(), /*requires_grad=*/false);
      bias = register_parameter("bias", Tensor(), /*requires_grad=*/false);
    }
    if (options.track_running_stats()) {
      running_mean = register_buffer("running_mean", ember::zeros({n}));
      running_var = register_buffer("running_var", ember::ones({n}));
      num_batches_tracked = register_buffer("num_batches_tracked", ember::zeros({}, kInt64));
    } else {
      running_mean = register_buffer("running_mean", Tensor());
      running_var = register_buffer("running_var", Tensor());
      num_batches_tracked = register_buffer("num_batches_tracked", Tensor());
    }
    reset_parameters();
  }

  void reset_running_stats() {
    if (!options.track_running_stats()) return;
    running_mean.zero_();
    running_var.fill_(1);
    num_batches_tracked.zero_();
  }

  void reset_parameters() {
    reset_running_stats();
    if (options.affine()) {
      init::ones_(weight);
      init::zeros_(bias);
    }
  }

  DerivedOptions options;
  Tensor weight;  // [num_features], undefined without affine
  Tensor bias;
  Tensor running_mean;  // [num_features], undefined without track_running_stats
  Tensor running_var;
  Tensor num_batches_tracked;  // int64 scalar
};

template <size_t D, typename Derived>
class BatchNormImplBase : public NormImplBase<D, Derived, BatchNormOptions> {
 public:
  using NormImplBase<D, Derived, BatchNormOptions>::NormImplBase;
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
};

// input [N, C] or [N, C, L].
class BatchNorm1dImpl : public BatchNormImplBase<1, BatchNorm1dImpl> {
 protected:
  void _check_input_dim(const Tensor& input) override;

 public:
  using BatchNormImplBase<1, BatchNorm1dImpl>::BatchNormImplBase;
};
EMBER_BUILTIN_MODULE(BatchNorm1d);

// input [N, C, H, W].
class BatchNorm2dImpl : public BatchNormImplBase<2, BatchNorm2dImpl> {
 protected:
  void _check_input_dim(const Tensor& input) override;

 public:
  using BatchNormImplBase<2, BatchNorm2dImpl>::BatchNormImplBase;
};
EMBER_BUILTIN_MODULE(BatchNorm2d);

}  // namespace ember::nn
