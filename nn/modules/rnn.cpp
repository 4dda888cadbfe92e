// RNN, LSTM, GRU and their cells: parameter setup (uniform +-1/sqrt(hidden)) and forwards built
// from public ops (one input projection per layer and direction, then a loop over time steps).
#include <ember/nn/modules/rnn.h>

#include <cmath>
#include <string>

#include <ember/core/checks.h>
#include <ember/core/functions.h>
#include <ember/nn/functional_conv.h>
#include <ember/nn/init.h>

namespace ember::nn {
namespace {

// One step of each recurrence. `gi` is the input projection x W_ih^T + b_ih for this step.
Tensor rnn_step(const Tensor& gi, const Tensor& h, const Tensor& w_hh, const Tensor& b_hh,
                bool relu) {
  Tensor pre = gi + ember::linear(h, w_hh, b_hh);
  return relu ? ember::relu(pre) : ember::tanh(pre);
}

// Gates in PyTorch's order i, f, g, o; w_hr (when defined) projects h' to proj_size.
std::tuple<Tensor, Tensor> lstm_step(const Tensor& gi, const Tensor& h, const Tensor& c,
                                     const Tensor& w_hh, const Tensor& b_hh, const Tensor& w_hr) {
  std::vector<Tensor> g = ember::chunk(gi + ember::linear(h, w_hh, b_hh), 4, 1);
  Tensor c_next = ember::sigmoid(g[1]) * c + ember::sigmoid(g[0]) * ember::tanh(g[2]);
  Tensor h_next = ember::sigmoid(g[3]) * ember::tanh(c_next);
  if (w_hr.defined()) h_next = ember::linear(h_next, w_hr);
  return {h_next, c_next};
}

// Gates r, z, n; n = tanh(i_n + r * (W_hn h + b_hn)); h' = (1 - z) n + z h.
Tensor gru_step(const Tensor& gi, const Tensor& h, const Tensor& w_hh, const Tensor& b_hh) {
  std::vector<Tensor> i = ember::chunk(gi, 3, 1);
  std::vector<Tensor> hh = ember::chunk(ember::linear(h, w_hh, b_hh), 3, 1);
  Tensor r = ember::sigmoid(i[0] + hh[0]);
  Tensor z = ember::sigmoid(i[1] + hh[1]);
  Tensor n = ember::tanh(i[2] + r * hh[2]);
  return n + z * (h - n);
}

detail::RNNMode rnn_mode(init::Nonlinearity nonlinearity, const char* who) {
  EMBER_CHECK(nonlinearity == init::Nonlinearity::Tanh || nonlinearity == init::Nonlinearity::ReLU,
              who, ": nonlinearity must be kTanh or kReLU");
  return nonlinearity == init::Nonlinearity::Tanh ? detail::RNNMode::kRNN_TANH
                                                  : detail::RNNMode::kRNN_RELU;
}

}  // namespace

namespace detail {

// ---- the base options of each layer and cell ----

namespace {
// The layer options' common fields (all but RNN's nonlinearity and LSTM's proj_size).
template <class Options>
RNNOptionsBase layer_base(RNNMode mode, const Options& o) {
  return RNNOptionsBase(mode, o.input_size(), o.hidden_size())
      .num_layers(o.num_layers())
      .bias(o.bias())
      .batch_first(o.batch_first())
      .dropout(o.dropout())
      .bidirectional(o.bidirectional());
}
}  // namespace

RNNOptionsBase base_options(const RNNOptions& options) {
  return layer_base(rnn_mode(options.nonlinearity(), "RNN"), options);
}
RNNOptionsBase base_options(const LSTMOptions& options) {
  return layer_base(RNNMode::kLSTM, options).proj_size(options.proj_size());
}
RNNOptionsBase base_options(const GRUOptions& options) {
  return layer_base(RNNMode::kGRU, options);
}
RNNCellOptionsBase base_options(const RNNCellOptions& options) {
  rnn_mode(options.nonlinearity(), "RNNCell");
  return RNNCellOptionsBase(options.input_size(), options.hidden_size(), options.bias(), 1);
}
RNNCellOptionsBase base_options(const LSTMCellOptions& options) {
  return RNNCellOptionsBase(options.input_size(), options.hidden_size(), options.bias(), 4);
}
RNNCellOptionsBase base_options(const GRUCellOptions& options) {
  return RNNCellOptionsBase(options.input_size(), options.hidden_size(), options.bias(), 3);
}

// ---- RNNImplBase ----

RNNImplBase::RNNImplBase(const RNNOptionsBase& options_) : options_base(options_) { reset(); }

int64_t RNNImplBase::gate_count() const {
  switch (options_base.mode()) {
    case RNNMode::kLSTM:
      return 4;
    case RNNMode::kGRU:
      return 3;
    default:
      return 1;
  }
}

void RNNImplBase::reset() {
  const RNNOptionsBase& o = options_base;
  EMBER_CHECK(o.dropout() >= 0 && o.dropout() <= 1,
              "dropout should be a number in range [0, 1] representing the probability of an "
              "element being zeroed, got ",
              o.dropout());
  EMBER_CHECK(o.input_size() >= 0, "input_size must be non-negative, got ", o.input_size());
  EMBER_CHECK(o.hidden_size() > 0, "hidden_size must be greater than zero, got ", o.hidden_size());
  EMBER_CHECK(o.num_layers() > 0, "num_layers must be greater than zero, got ", o.num_layers());
  EMBER_CHECK(o.proj_size() >= 0,
              "proj_size should be a positive integer or zero to disable projections, got ",
              o.proj_size());
  EMBER_CHECK(o.proj_size() < o.hidden_size(), "proj_size has to be smaller than hidden_size, got ",
              o.proj_size(), " and ", o.hidden_size());
  EMBER_CHECK(o.proj_size() == 0 || o.mode() == RNNMode::kLSTM,
              "proj_size argument is only supported for LSTM, not RNN or GRU");
  flat_weights_names_.clear();
  flat_weights_.clear();

  const int64_t gate_size = gate_count() * o.hidden_size();
  const int64_t real_hidden = o.proj_size() > 0 ? o.proj_size() : o.hidden_size();
  for (int64_t layer = 0; layer < o.num_layers(); ++layer) {
    for (int64_t direction = 0; direction < num_directions(); ++direction) {
      const int64_t in = layer == 0 ? o.input_size() : real_hidden * num_directions();
      const std::string suffix = std::to_string(layer) + (direction == 1 ? "_reverse" : "");
      std::vector<std::pair<std::string, Tensor>> params = {
          {"weight_ih_l" + suffix, ember::empty({gate_size, in})},
          {"weight_hh_l" + suffix, ember::empty({gate_size, real_hidden})}};
      if (o.bias()) {
        params.push_back({"bias_ih_l" + suffix, ember::empty({gate_size})});
        params.push_back({"bias_hh_l" + suffix, ember::empty({gate_size})});
      }
      if (o.proj_size() > 0) {
        params.push_back({"weight_hr_l" + suffix, ember::empty({o.proj_size(), o.hidden_size()})});
      }
      for (auto& [name, tensor] : params) {
        flat_weights_.push_back(register_parameter(name, tensor));
        flat_weights_names_.push_back(name);
      }
    }
  }
  reset_parameters();
}

void RNNImplBase::reset_parameters() {
  const double stdv = 1.0 / std::sqrt(static_cast<double>(options_base.hidden_size()));
  for (Tensor& w : flat_weights_) init::uniform_(w, -stdv, stdv);
}

std::vector<Tensor> RNNImplBase::all_weights() const { return flat_weights_; }

void RNNImplBase::pretty_print(std::ostream& stream) const {
  const RNNOptionsBase& o = options_base;
  stream << std::boolalpha << name() << "(input_size=" << o.input_size()
         << ", hidden_size=" << o.hidden_size() << ", num_layers=" << o.num_layers()
         << ", bias=" << o.bias() << ", batch_first=" << o.batch_first()
         << ", dropout=" << o.dropout() << ", bidirectional=" << o.bidirectional();
  if (o.proj_size() > 0) stream << ", proj_size=" << o.proj_size();
  stream << ")";
}

Tensor RNNImplBase::prepare_input(const Tensor& input, bool& is_batched) const {
  EMBER_CHECK(input.defined(), name(), ": the input is undefined");
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, name(),
              ": Expected input to be 2-D or 3-D but received ", input.dim(), "-D tensor");
  is_batched = input.dim() == 3;
  EMBER_CHECK(input.size(-1) == options_base.input_size(),
              "input.size(-1) must be equal to input_size. Expected ", options_base.input_size(),
              ", got ", input.size(-1));
  // Time-major [T, B, in] from here on (an unbatched input is [T, in]).
  Tensor x = !is_batched ? input.unsqueeze(1)
                         : (options_base.batch_first() ? input.transpose(0, 1) : input);
  EMBER_CHECK(x.size(0) > 0, name(), ": Expected sequence length to be larger than 0 in RNN");
  return x;
}

void RNNImplBase::check_hidden(const Tensor& h, const std::vector<int64_t>& expected,
                               const char* which) const {
  EMBER_CHECK(h.sizes() == IntArrayRef(expected), "Expected ", which, " size ", shape_str(expected),
              ", got ", shape_str(h.sizes()));
}

std::tuple<Tensor, Tensor, Tensor> RNNImplBase::run(const Tensor& input, const Tensor& hx,
                                                    const Tensor& cx) {
  const RNNOptionsBase& o = options_base;
  const int64_t directions = num_directions();
  const int64_t per = (o.bias() ? 4 : 2) + (o.proj_size() > 0 ? 1 : 0);
  const int64_t steps = input.size(0);
  Tensor layer_input = input;
  std::vector<Tensor> h_n, c_n;
  for (int64_t layer = 0; layer < o.num_layers(); ++layer) {
    std::vector<Tensor> outputs;
    for (int64_t direction = 0; direction < directions; ++direction) {
      const int64_t index = layer * directions + direction;
      const Tensor* w = &flat_weights_[static_cast<size_t>(index * per)];
      const Tensor& w_ih = w[0];
      const Tensor& w_hh = w[1];
      const Tensor b_ih = o.bias() ? w[2] : Tensor();
      const Tensor b_hh = o.bias() ? w[3] : Tensor();
      const Tensor w_hr = o.proj_size() > 0 ? w[per - 1] : Tensor();
      // The input projection of every step at once: [T, B, gates * H].
      const Tensor gi = ember::linear(layer_input, w_ih, b_ih);
      Tensor h = hx.select(0, index);
      Tensor c = cx.defined() ? cx.select(0, index) : Tensor();
      std::vector<Tensor> out(static_cast<size_t>(steps));
      for (int64_t s = 0; s < steps; ++s) {
        const int64_t t = direction == 0 ? s : steps - 1 - s;
        const Tensor g = gi.select(0, t);
        switch (o.mode()) {
          case RNNMode::kLSTM:
            std::tie(h, c) = lstm_step(g, h, c, w_hh, b_hh, w_hr);
            break;
          case RNNMode::kGRU:
            h = gru_step(g, h, w_hh, b_hh);
            break;
          case RNNMode::kRNN_TANH:
            h = rnn_step(g, h, w_hh, b_hh, false);
            break;
          case RNNMode::kRNN_RELU:
            h = rnn_step(g, h, w_hh, b_hh, true);
            break;
        }
        out[static_cast<size_t>(t)] = h;
      }
      outputs.push_back(ember::stack(out, 0));
      h_n.push_back(h);
      if (c.defined()) c_n.push_back(c);
    }
    layer_input = directions == 1 ? outputs[0] : ember::cat(outputs, 2);
    if (o.dropout() > 0 && is_training() && layer + 1 < o.num_layers()) {
      layer_input = ember::dropout(layer_input, o.dropout(), true);
    }
  }
  return {layer_input, ember::stack(h_n, 0), c_n.empty() ? Tensor() : ember::stack(c_n, 0)};
}

// ---- RNNCellImplBase ----

RNNCellImplBase::RNNCellImplBase(const RNNCellOptionsBase& options_) : options_base(options_) {
  reset();
}

void RNNCellImplBase::reset() {
  const RNNCellOptionsBase& o = options_base;
  EMBER_CHECK(o.input_size() >= 0 && o.hidden_size() > 0,
              "RNN cell: input_size must be non-negative and hidden_size positive, got ",
              o.input_size(), " and ", o.hidden_size());
  const int64_t gate_size = o.num_chunks() * o.hidden_size();
  weight_ih = register_parameter("weight_ih", ember::empty({gate_size, o.input_size()}));
  weight_hh = register_parameter("weight_hh", ember::empty({gate_size, o.hidden_size()}));
  if (o.bias()) {
    bias_ih = register_parameter("bias_ih", ember::empty({gate_size}));
    bias_hh = register_parameter("bias_hh", ember::empty({gate_size}));
  } else {
    bias_ih = register_parameter("bias_ih", Tensor(), /*requires_grad=*/false);
    bias_hh = register_parameter("bias_hh", Tensor(), /*requires_grad=*/false);
  }
  reset_parameters();
}

void RNNCellImplBase::reset_parameters() {
  const double stdv = 1.0 / std::sqrt(static_cast<double>(options_base.hidden_size()));
  for (Tensor* w : {&weight_ih, &weight_hh, &bias_ih, &bias_hh}) {
    if (w->defined()) init::uniform_(*w, -stdv, stdv);
  }
}

void RNNCellImplBase::pretty_print(std::ostream& stream) const {
  stream << name() << "(" << options_base.input_size() << ", " << options_base.hidden_size();
  if (!options_base.bias()) stream << ", bias=false";
  const std::string nonlinearity = get_nonlinearity_str();
  if (!nonlinearity.empty() && nonlinearity != "kTanh") {
    stream << ", nonlinearity=" << nonlinearity;
  }
  stream << ")";
}

Tensor RNNCellImplBase::prepare_input(const Tensor& input, bool& is_batched) const {
  EMBER_CHECK(input.defined(), name(), ": the input is undefined");
  EMBER_CHECK(input.dim() == 1 || input.dim() == 2, name(),
              ": Expected input to be 1-D or 2-D but received ", input.dim(), "-D tensor");
  EMBER_CHECK(input.size(-1) == options_base.input_size(),
              "input has inconsistent input_size: got ", input.size(-1), " expected ",
              options_base.input_size());
  is_batched = input.dim() == 2;
  return is_batched ? input : input.unsqueeze(0);
}

Tensor RNNCellImplBase::prepare_hidden(const Tensor& hx, const Tensor& input, bool is_batched,
                                       const char* which) const {
  const int64_t hidden = options_base.hidden_size();
  if (!hx.defined()) return ember::zeros({input.size(0), hidden}, input.options());
  EMBER_CHECK(hx.dim() == (is_batched ? 2 : 1), name(), ": Expected ", which, " to be ",
              is_batched ? "2-D" : "1-D", " for ", is_batched ? "batched 2-D" : "unbatched 1-D",
              " input, but received ", hx.dim(), "-D tensor");
  Tensor h = is_batched ? hx : hx.unsqueeze(0);
  EMBER_CHECK(h.size(0) == input.size(0), "Input batch size ", input.size(0), " doesn't match ",
              which, " batch size ", h.size(0));
  EMBER_CHECK(h.size(1) == hidden, which, " has inconsistent hidden_size: got ", h.size(1),
              ", expected ", hidden);
  return h;
}

std::tuple<Tensor, Tensor> RNNImplBase::forward_one_state(const Tensor& input, Tensor hx) {
  bool is_batched = true;
  const Tensor x = prepare_input(input, is_batched);
  const std::vector<int64_t> expected = {options_base.num_layers() * num_directions(), x.size(1),
                                         options_base.hidden_size()};
  if (!hx.defined()) {
    hx = ember::zeros(expected, x.options());
  } else {
    EMBER_CHECK(hx.dim() == (is_batched ? 3 : 2), "For ",
                is_batched ? "batched 3-D input, hx should also be 3-D"
                           : "unbatched 2-D input, hx should also be 2-D",
                " but got ", hx.dim(), "-D tensor");
    if (!is_batched) hx = hx.unsqueeze(1);
    check_hidden(hx, expected, "hidden");
  }
  auto [output, h_n, c_n] = run(x, hx, Tensor());
  (void)c_n;
  if (!is_batched) return {output.squeeze(1), h_n.squeeze(1)};
  if (options_base.batch_first()) output = output.transpose(0, 1);
  return {output, h_n};
}

}  // namespace detail

// ---- RNN, LSTM, GRU ----

std::tuple<Tensor, Tensor> RNNImpl::forward(const Tensor& input, Tensor hx) {
  return forward_one_state(input, std::move(hx));
}

std::tuple<Tensor, Tensor> GRUImpl::forward(const Tensor& input, Tensor hx) {
  return forward_one_state(input, std::move(hx));
}

std::tuple<Tensor, std::tuple<Tensor, Tensor>> LSTMImpl::forward(
    const Tensor& input, std::optional<std::tuple<Tensor, Tensor>> hx_opt) {
  bool is_batched = true;
  const Tensor x = prepare_input(input, is_batched);
  const int64_t layers = options_base.num_layers() * num_directions();
  const int64_t real_hidden =
      options_base.proj_size() > 0 ? options_base.proj_size() : options_base.hidden_size();
  const std::vector<int64_t> h_shape = {layers, x.size(1), real_hidden};
  const std::vector<int64_t> c_shape = {layers, x.size(1), options_base.hidden_size()};
  Tensor hx, cx;
  if (!hx_opt.has_value()) {
    hx = ember::zeros(h_shape, x.options());
    cx = ember::zeros(c_shape, x.options());
  } else {
    std::tie(hx, cx) = *hx_opt;
    EMBER_CHECK(hx.defined() && cx.defined(), "LSTM: hx and cx must both be defined");
    EMBER_CHECK(hx.dim() == (is_batched ? 3 : 2) && cx.dim() == (is_batched ? 3 : 2), "For ",
                is_batched ? "batched 3-D input, hx and cx should also be 3-D"
                           : "unbatched 2-D input, hx and cx should also be 2-D",
                " but got (", hx.dim(), "-D, ", cx.dim(), "-D) tensors");
    if (!is_batched) {
      hx = hx.unsqueeze(1);
      cx = cx.unsqueeze(1);
    }
    check_hidden(hx, h_shape, "hidden[0]");
    check_hidden(cx, c_shape, "hidden[1]");
  }
  auto [output, h_n, c_n] = run(x, hx, cx);
  if (!is_batched) return {output.squeeze(1), {h_n.squeeze(1), c_n.squeeze(1)}};
  if (options_base.batch_first()) output = output.transpose(0, 1);
  return {output, {h_n, c_n}};
}

// ---- cells ----

std::string RNNCellImpl::get_nonlinearity_str() const {
  return options.nonlinearity() == init::Nonlinearity::ReLU ? "kReLU" : "kTanh";
}

Tensor RNNCellImpl::forward(const Tensor& input, Tensor hx) {
  bool is_batched = true;
  const Tensor x = prepare_input(input, is_batched);
  const Tensor h = prepare_hidden(hx, x, is_batched, "hidden");
  const bool relu = options.nonlinearity() == init::Nonlinearity::ReLU;
  Tensor out = rnn_step(ember::linear(x, weight_ih, bias_ih), h, weight_hh, bias_hh, relu);
  return is_batched ? out : out.squeeze(0);
}

std::tuple<Tensor, Tensor> LSTMCellImpl::forward(const Tensor& input,
                                                 std::optional<std::tuple<Tensor, Tensor>> hx_opt) {
  bool is_batched = true;
  const Tensor x = prepare_input(input, is_batched);
  Tensor h0, c0;
  if (hx_opt.has_value()) std::tie(h0, c0) = *hx_opt;
  const Tensor h = prepare_hidden(h0, x, is_batched, "hx[0]");
  const Tensor c = prepare_hidden(c0, x, is_batched, "hx[1]");
  auto [h1, c1] = lstm_step(ember::linear(x, weight_ih, bias_ih), h, c, weight_hh, bias_hh, {});
  if (!is_batched) return {h1.squeeze(0), c1.squeeze(0)};
  return {h1, c1};
}

Tensor GRUCellImpl::forward(const Tensor& input, Tensor hx) {
  bool is_batched = true;
  const Tensor x = prepare_input(input, is_batched);
  const Tensor h = prepare_hidden(hx, x, is_batched, "hidden");
  Tensor out = gru_step(ember::linear(x, weight_ih, bias_ih), h, weight_hh, bias_hh);
  return is_batched ? out : out.squeeze(0);
}

}  // namespace ember::nn
