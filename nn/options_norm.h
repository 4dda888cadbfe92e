// Options of the batch, group and instance normalization layers, of channel dropout, and of
// their functional forms, with LibTorch's names and defaults (torch/nn/options/batchnorm.h,
// normalization.h, instancenorm.h, dropout.h): `BatchNormOptions(64).momentum(0.01)`,
// `F::BatchNormFuncOptions().training(true)`, `GroupNormOptions(4, 32)`.
#pragma once

#include <cstdint>
#include <optional>

#include <ember/core/tensor.h>
#include <ember/nn/arg.h>
#include <ember/nn/options.h>

namespace ember::nn {

// momentum std::nullopt: running stats are the cumulative average over the batches seen.
struct BatchNormOptions {
  BatchNormOptions(int64_t num_features) : num_features_(num_features) {}  // NOLINT: implicit
  EMBER_ARG(int64_t, num_features);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(std::optional<double>, momentum) = 0.1;
  EMBER_ARG(bool, affine) = true;
  EMBER_ARG(bool, track_running_stats) = true;
};
using BatchNorm1dOptions = BatchNormOptions;
using BatchNorm2dOptions = BatchNormOptions;

struct GroupNormOptions {
  GroupNormOptions(int64_t num_groups, int64_t num_channels)
      : num_groups_(num_groups), num_channels_(num_channels) {}
  EMBER_ARG(int64_t, num_groups);
  EMBER_ARG(int64_t, num_channels);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(bool, affine) = true;
};

// Unlike BatchNorm: no affine parameters and no running stats by default, as PyTorch.
struct InstanceNormOptions {
  InstanceNormOptions(int64_t num_features) : num_features_(num_features) {}  // NOLINT
  EMBER_ARG(int64_t, num_features);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(double, momentum) = 0.1;
  EMBER_ARG(bool, affine) = false;
  EMBER_ARG(bool, track_running_stats) = false;
};
using InstanceNorm1dOptions = InstanceNormOptions;
using InstanceNorm2dOptions = InstanceNormOptions;

// Channel dropout takes Dropout's options (p, inplace), as in LibTorch.
using Dropout2dOptions = DropoutOptions;

namespace functional {

// training false by default (the functional form), as LibTorch's.
struct BatchNormFuncOptions {
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(Tensor, bias) = Tensor();
  EMBER_ARG(bool, training) = false;
  EMBER_ARG(std::optional<double>, momentum) = 0.1;
  EMBER_ARG(double, eps) = 1e-5;
};

struct GroupNormFuncOptions {
  GroupNormFuncOptions(int64_t num_groups) : num_groups_(num_groups) {}  // NOLINT
  EMBER_ARG(int64_t, num_groups);
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(Tensor, bias) = Tensor();
  EMBER_ARG(double, eps) = 1e-5;
};

struct InstanceNormFuncOptions {
  EMBER_ARG(Tensor, running_mean) = Tensor();
  EMBER_ARG(Tensor, running_var) = Tensor();
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(Tensor, bias) = Tensor();
  EMBER_ARG(bool, use_input_stats) = true;
  EMBER_ARG(double, momentum) = 0.1;
  EMBER_ARG(double, eps) = 1e-5;
};

using Dropout2dFuncOptions = DropoutFuncOptions;

}  // namespace functional
}  // namespace ember::nn
