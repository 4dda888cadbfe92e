// gradcheck and gradgradcheck: the analytic Jacobian (one grad() call per output element)
// against central differences (two evaluations per input element), compared element by
// element; the worst element is reported.
#include <ember/autograd/gradcheck.h>

#include <cmath>
#include <sstream>

#include <ember/autograd/autograd.h>
#include <ember/core/checks.h>
#include <ember/core/functions.h>

namespace ember::autograd {

namespace {

// Values of t in logical (row-major) order, as doubles on the host.
std::vector<double> host_values(const Tensor& t) {
  NoGradGuard no_grad;
  Tensor c = t.detach().to(kCPU, kFloat64).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

// Storage offset (in elements) of logical element `flat` of t.
int64_t element_offset(const Tensor& t, int64_t flat) {
  int64_t off = t.storage_offset();
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    const int64_t size = t.sizes()[d];
    off += (flat % size) * t.strides()[d];
    flat /= size;
  }
  return off;
}

std::string index_str(IntArrayRef sizes, int64_t flat) {
  DimVector idx(sizes.size());
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    idx[d] = flat % sizes[d];
    flat /= sizes[d];
  }
  return ember::detail::str(IntArrayRef(idx));
}

tensor_list outputs_of(const GradcheckFn& fn, const tensor_list& inputs) {
  tensor_list outs = fn(inputs);
  for (Tensor& o : outs) {
    if (o.defined()) o = o.detach().clone();  // may share memory with an input
  }
  return outs;
}

}  // namespace

bool gradcheck(const GradcheckFn& fn, const tensor_list& inputs, const GradcheckOptions& opt) {
  std::vector<size_t> diff;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& x = inputs[i];
    if (!x.defined() || !x.requires_grad()) continue;
    EMBER_CHECK(x.dtype() == kFloat64, "gradcheck: input ", i, " is ", x.dtype(),
                "; finite differences need float64 inputs");
    diff.push_back(i);
  }
  EMBER_CHECK(!diff.empty(), "gradcheck: no input requires grad");
  tensor_list diff_inputs;
  for (size_t i : diff) diff_inputs.push_back(inputs[i]);

  // Analytic Jacobians: analytic[o][k][e * n_out + j] = d out_o[j] / d in_k[e].
  tensor_list outs = fn(inputs);
  std::vector<std::vector<std::vector<double>>> analytic(outs.size());
  for (size_t o = 0; o < outs.size(); ++o) {
    const Tensor& out = outs[o];
    if (!out.defined() || !out.is_floating_point()) continue;
    const int64_t n_out = out.numel();
    analytic[o].resize(diff.size());
    for (size_t k = 0; k < diff.size(); ++k) {
      analytic[o][k].assign(static_cast<size_t>(diff_inputs[k].numel() * n_out), 0.0);
    }
    if (!out.requires_grad()) continue;
    for (int64_t j = 0; j < n_out; ++j) {
      Tensor go = zeros(out.sizes(), out.options());
      {
        NoGradGuard no_grad;
        go.view({-1}).select(0, j).fill_(1);
      }
      tensor_list g = grad({out}, diff_inputs, {go}, /*retain_graph=*/true,
                           /*create_graph=*/false, /*allow_unused=*/true);
      for (size_t k = 0; k < diff.size(); ++k) {
        if (!g[k].defined()) continue;
        EMBER_CHECK(g[k].sizes().equals(diff_inputs[k].sizes()),
                    "gradcheck: the gradient of input ", diff[k], " has shape ", g[k].sizes(),
                    " but the input has shape ", diff_inputs[k].sizes());
        std::vector<double> v = host_values(g[k]);
        for (size_t e = 0; e < v.size(); ++e) analytic[o][k][e * n_out + j] = v[e];
      }
    }
  }

  // Numeric Jacobians by central differences, one input element at a time.
  double worst = 0;
  std::string report;
  int64_t mismatches = 0;
  for (size_t k = 0; k < diff.size(); ++k) {
    const Tensor& x = diff_inputs[k];
    const int64_t n_in = x.numel();
    for (int64_t e = 0; e < n_in; ++e) {
      Tensor elem;
      double orig;
      {
        NoGradGuard no_grad;
        elem = x.detach().as_strided({}, {}, element_offset(x, e));
        orig = elem.item<double>();
        elem.fill_(orig + opt.eps);
      }
      tensor_list plus = outputs_of(fn, inputs);
      {
        NoGradGuard no_grad;
        elem.fill_(orig - opt.eps);
      }
      tensor_list minus = outputs_of(fn, inputs);
      {
        NoGradGuard no_grad;
        elem.fill_(orig);
      }
      for (size_t o = 0; o < outs.size(); ++o) {
        if (analytic[o].empty()) continue;
        std::vector<double> p = host_values(plus[o]), m = host_values(minus[o]);
        const int64_t n_out = static_cast<int64_t>(p.size());
        for (int64_t j = 0; j < n_out; ++j) {
          const double numeric = (p[j] - m[j]) / (2 * opt.eps);
          const double a = analytic[o][k][e * n_out + j];
          const double excess = std::abs(a - numeric) - (opt.atol + opt.rtol * std::abs(numeric));
          if (!(excess <= 0)) {  // NaN counts as a mismatch
            ++mismatches;
            if (!(excess <= worst)) {
              worst = std::isnan(excess) ? INFINITY : excess;
              report =
                  ember::detail::str("input ", diff[k], " element ", index_str(x.sizes(), e),
                                     ", output ", o, " element ", index_str(outs[o].sizes(), j),
                                     ": analytic ", a, " vs numeric ", numeric);
            }
          }
        }
      }
    }
  }
  if (mismatches == 0) return true;
  if (!opt.raise) return false;
  EMBER_THROW("gradcheck: Jacobian mismatch in ", mismatches, " element(s); worst at ", report,
              " (atol ", opt.atol, ", rtol ", opt.rtol, ", eps ", opt.eps, ")");
}

bool gradcheck(const std::function<Tensor(const tensor_list&)>& fn, const tensor_list& inputs,
               const GradcheckOptions& options) {
  return gradcheck(GradcheckFn([&](const tensor_list& x) { return tensor_list{fn(x)}; }), inputs,
                   options);
}

bool gradgradcheck(const GradcheckFn& fn, const tensor_list& inputs, const GradcheckOptions& opt) {
  tensor_list diff_inputs;
  for (const Tensor& x : inputs) {
    if (x.defined() && x.requires_grad()) diff_inputs.push_back(x);
  }
  EMBER_CHECK(!diff_inputs.empty(), "gradgradcheck: no input requires grad");
  // Random gradients for the differentiable outputs become inputs too.
  tensor_list grad_outputs;
  std::vector<size_t> out_index;
  {
    tensor_list outs = fn(inputs);
    for (size_t o = 0; o < outs.size(); ++o) {
      if (!outs[o].defined() || !outs[o].requires_grad()) continue;
      out_index.push_back(o);
      grad_outputs.push_back(randn(outs[o].sizes(), outs[o].options()).requires_grad_());
    }
  }
  EMBER_CHECK(!out_index.empty(), "gradgradcheck: no output requires grad");
  const size_t n_in = inputs.size();
  GradcheckFn first_derivative = [&](const tensor_list& all) {
    tensor_list x(all.begin(), all.begin() + static_cast<int64_t>(n_in));
    tensor_list go(all.begin() + static_cast<int64_t>(n_in), all.end());
    tensor_list outs = fn(x), used;
    for (size_t o : out_index) used.push_back(outs[o]);
    tensor_list xs;
    for (const Tensor& t : x) {
      if (t.defined() && t.requires_grad()) xs.push_back(t);
    }
    tensor_list g = grad(used, xs, go, /*retain_graph=*/true, /*create_graph=*/true,
                         /*allow_unused=*/true);
    for (size_t k = 0; k < g.size(); ++k) {
      if (!g[k].defined()) g[k] = zeros_like(xs[k]);
    }
    return g;
  };
  tensor_list all(inputs);
  all.insert(all.end(), grad_outputs.begin(), grad_outputs.end());
  return gradcheck(first_derivative, all, opt);
}

bool gradgradcheck(const std::function<Tensor(const tensor_list&)>& fn, const tensor_list& inputs,
                   const GradcheckOptions& options) {
  return gradgradcheck(GradcheckFn([&](const tensor_list& x) { return tensor_list{fn(x)}; }),
                       inputs, options);
}

}  // namespace ember::autograd
