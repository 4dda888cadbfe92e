// Options of the recurrent layers and cells (RNN, LSTM, GRU, RNNCell, LSTMCell, GRUCell), with
// LibTorch's names and defaults: `LSTMOptions(4, 8).num_layers(2).batch_first(true)`.
#pragma once

#include <cstdint>

#include <ember/nn/arg.h>
#include <ember/nn/init.h>

namespace ember {
namespace nn {

// What every recurrent options struct starts with: the (input_size, hidden_size) constructor and
// those two fields. Internal to this header.
#define EMBER_RNN_SIZES(Options)                              \
 public:                                                      \
  Options(int64_t input_size, int64_t hidden_size)            \
      : input_size_(input_size), hidden_size_(hidden_size) {} \
  EMBER_ARG(int64_t, input_size);                             \
  EMBER_ARG(int64_t, hidden_size)

// The fields every recurrent layer's options has after the sizes, with LibTorch's defaults.
#define EMBER_RNN_LAYER_ARGS            \
  EMBER_ARG(int64_t, num_layers) = 1;   \
  EMBER_ARG(bool, bias) = true;         \
  EMBER_ARG(bool, batch_first) = false; \
  EMBER_ARG(double, dropout) = 0.0;     \
  EMBER_ARG(bool, bidirectional) = false

// RNNOptions::nonlinearity takes ember::kTanh or ember::kReLU (nn::init's constants; any other
// value is rejected when the layer is built).
struct RNNOptions {
  using nonlinearity_t = init::Nonlinearity;
  EMBER_RNN_SIZES(RNNOptions);
  EMBER_RNN_LAYER_ARGS;
  EMBER_ARG(nonlinearity_t, nonlinearity) = init::Nonlinearity::Tanh;
};

// proj_size > 0 adds a projection weight_hr_l{k} [proj_size, hidden_size] on h (LSTMP).
struct LSTMOptions {
  EMBER_RNN_SIZES(LSTMOptions);
  EMBER_RNN_LAYER_ARGS;
  EMBER_ARG(int64_t, proj_size) = 0;
};

struct GRUOptions {
  EMBER_RNN_SIZES(GRUOptions);
  EMBER_RNN_LAYER_ARGS;
};

struct RNNCellOptions {
  using nonlinearity_t = init::Nonlinearity;
  EMBER_RNN_SIZES(RNNCellOptions);
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(nonlinearity_t, nonlinearity) = init::Nonlinearity::Tanh;
};

struct LSTMCellOptions {
  EMBER_RNN_SIZES(LSTMCellOptions);
  EMBER_ARG(bool, bias) = true;
};

struct GRUCellOptions {
  EMBER_RNN_SIZES(GRUCellOptions);
  EMBER_ARG(bool, bias) = true;
};

namespace detail {

// The recurrence kind of RNNOptionsBase (LibTorch's torch::kLSTM, kGRU, kRNN_TANH, kRNN_RELU).
enum class RNNMode : uint8_t { kLSTM, kGRU, kRNN_TANH, kRNN_RELU };

// The options every recurrent layer shares (LibTorch's detail::RNNOptionsBase).
struct RNNOptionsBase {
  using rnn_options_base_mode_t = RNNMode;
  RNNOptionsBase(RNNMode mode, int64_t input_size, int64_t hidden_size)
      : mode_(mode), input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(rnn_options_base_mode_t, mode);
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_RNN_LAYER_ARGS;
  EMBER_ARG(int64_t, proj_size) = 0;
};

// The options every recurrent cell shares (LibTorch's detail::RNNCellOptionsBase).
struct RNNCellOptionsBase {
  RNNCellOptionsBase(int64_t input_size, int64_t hidden_size, bool bias, int64_t num_chunks)
      : input_size_(input_size), hidden_size_(hidden_size), bias_(bias), num_chunks_(num_chunks) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(bool, bias);
  EMBER_ARG(int64_t, num_chunks);
};

}  // namespace detail
}  // namespace nn

#undef EMBER_RNN_SIZES
#undef EMBER_RNN_LAYER_ARGS

inline constexpr nn::detail::RNNMode kLSTM = nn::detail::RNNMode::kLSTM;
inline constexpr nn::detail::RNNMode kGRU = nn::detail::RNNMode::kGRU;
inline constexpr nn::detail::RNNMode kRNN_TANH = nn::detail::RNNMode::kRNN_TANH;
inline constexpr nn::detail::RNNMode kRNN_RELU = nn::detail::RNNMode::kRNN_RELU;

}  // namespace ember
