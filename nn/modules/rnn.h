// Recurrent layers RNN, LSTM, GRU and cells RNNCell, LSTMCell, GRUCell, as LibTorch's: same
// options, parameter names (weight_ih_l0, ..._reverse), gate order, init and forward signatures.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/nn/holder.h>
#include <ember/nn/module.h>
#include <ember/nn/options_rnn.h>

namespace ember::nn {
namespace detail {

// Shared parameter setup of RNN, LSTM and GRU: per layer and direction weight_ih_l{k}[_reverse]
// [gates * hidden, in], weight_hh_l{k} [gates * hidden, hidden], bias_ih/bias_hh_l{k}
// [gates * hidden] (with bias) and, for LSTM with proj_size, weight_hr_l{k} [proj, hidden].
// All initialized uniform in +-1/sqrt(hidden_size).
class RNNImplBase : public Module {
 public:
  explicit RNNImplBase(const RNNOptionsBase& options_);

  void reset();
  void reset_parameters();
  // No-op (ember keeps no cuDNN flat weight buffer); kept for source compatibility.
  void flatten_parameters() {}
  // The parameters in registration order (LibTorch's all_weights()).
  std::vector<Tensor> all_weights() const;
  void pretty_print(std::ostream& stream) const override;

  RNNOptionsBase options_base;

 protected:
  // Runs every layer and direction over a time-major input [T, B, in] (batched), from the
  // initial states hx [L * D, B, H_out] and, for LSTM, cx [L * D, B, H]. Returns the output
  // [T, B, D * H_out], h_n and c_n (undefined unless LSTM).
  std::tuple<Tensor, Tensor, Tensor> run(const Tensor& input, const Tensor& hx, const Tensor& cx);
  // Input and state checks and the unbatched / batch_first handling shared by the forwards.
  Tensor prepare_input(const Tensor& input, bool& is_batched) const;
  void check_hidden(const Tensor& h, const std::vector<int64_t>& expected, const char* which) const;
  int64_t num_directions() const { return options_base.bidirectional() ? 2 : 1; }
  // RNN's and GRU's forward (one state, h): (output, h_n).
  std::tuple<Tensor, Tensor> forward_one_state(const Tensor& input, Tensor hx);
  int64_t gate_count() const;

  std::vector<std::string> flat_weights_names_;
  std::vector<Tensor> flat_weights_;
};

// Shared parameter setup of the cells: weight_ih [chunks * hidden, in], weight_hh
// [chunks * hidden, hidden], bias_ih, bias_hh [chunks * hidden] (undefined without bias).
class RNNCellImplBase : public Module {
 public:
  explicit RNNCellImplBase(const RNNCellOptionsBase& options_);

  void reset();
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  RNNCellOptionsBase options_base;
  Tensor weight_ih;
  Tensor weight_hh;
  Tensor bias_ih;
  Tensor bias_hh;

 protected:
  // Checks input ([B, in] or unbatched [in]) and returns it batched.
  Tensor prepare_input(const Tensor& input, bool& is_batched) const;
  // Checks a state against the batched input and returns it batched (zeros when undefined).
  Tensor prepare_hidden(const Tensor& hx, const Tensor& input, bool is_batched,
                        const char* which) const;
  virtual std::string get_nonlinearity_str() const { return ""; }
};

// The base options of each recurrent layer and cell (nn/modules/rnn.cpp); RNNOptions' and
// RNNCellOptions' nonlinearity must be kTanh or kReLU.
RNNOptionsBase base_options(const RNNOptions& options);
RNNOptionsBase base_options(const LSTMOptions& options);
RNNOptionsBase base_options(const GRUOptions& options);
RNNCellOptionsBase base_options(const RNNCellOptions& options);
RNNCellOptionsBase base_options(const LSTMCellOptions& options);
RNNCellOptionsBase base_options(const GRUCellOptions& options);

// What every recurrent layer and cell has over its Base (RNNImplBase or RNNCellImplBase):
// LibTorch's two constructors, (input_size, hidden_size) and explicit (options), and `options`.
template <class Base, class Options>
class RecurrentImpl : public Base {
 public:
  RecurrentImpl(int64_t input_size, int64_t hidden_size)
      : RecurrentImpl(Options(input_size, hidden_size)) {}
  explicit RecurrentImpl(const Options& options_)
      : Base(base_options(options_)), options(options_) {}

  Options options;
};

}  // namespace detail

// Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu). Input [T, B, in]
// ([B, T, in] with batch_first, or unbatched [T, in]); returns (output [T, B, D * H], h_n
// [L * D, B, H]).
class RNNImpl : public detail::RecurrentImpl<detail::RNNImplBase, RNNOptions> {
 public:
  using RecurrentImpl::RecurrentImpl;

  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});
};
EMBER_BUILTIN_MODULE(RNN);

// LSTM with PyTorch's gate order (i, f, g, o): returns (output, (h_n, c_n)).
class LSTMImpl : public detail::RecurrentImpl<detail::RNNImplBase, LSTMOptions> {
 public:
  using RecurrentImpl::RecurrentImpl;

  std::tuple<Tensor, std::tuple<Tensor, Tensor>> forward(
      const Tensor& input, std::optional<std::tuple<Tensor, Tensor>> hx_opt = {});
};
EMBER_BUILTIN_MODULE(LSTM);

// GRU with PyTorch's gate order (r, z, n), n = tanh(W_in x + b_in + r * (W_hn h + b_hn)).
class GRUImpl : public detail::RecurrentImpl<detail::RNNImplBase, GRUOptions> {
 public:
  using RecurrentImpl::RecurrentImpl;

  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});
};
EMBER_BUILTIN_MODULE(GRU);

// One RNN step: input [B, in] or [in], hx [B, H] or [H] (zeros when undefined).
class RNNCellImpl : public detail::RecurrentImpl<detail::RNNCellImplBase, RNNCellOptions> {
 public:
  using RecurrentImpl::RecurrentImpl;

  Tensor forward(const Tensor& input, Tensor hx = {});

 protected:
  std::string get_nonlinearity_str() const override;
};
EMBER_BUILTIN_MODULE(RNNCell);

// One LSTM step: returns (h', c').
class LSTMCellImpl : public detail::RecurrentImpl<detail::RNNCellImplBase, LSTMCellOptions> {
 public:
  using RecurrentImpl::RecurrentImpl;

  std::tuple<Tensor, Tensor> forward(const Tensor& input,
                                     std::optional<std::tuple<Tensor, Tensor>> hx_opt = {});
};
EMBER_BUILTIN_MODULE(LSTMCell);

// One GRU step: returns h'.
class GRUCellImpl : public detail::RecurrentImpl<detail::RNNCellImplBase, GRUCellOptions> {
 public:
  using RecurrentImpl::RecurrentImpl;

  Tensor forward(const Tensor& input, Tensor hx = {});
};
EMBER_BUILTIN_MODULE(GRUCell);

}  // namespace ember::nn
