// Gradcheck entries of the losses (nn/functional_loss.h): the fused cross_entropy (whose
// double backward runs the composite gradient), probability targets, nll_loss and the
// elementwise losses. Targets, weights and masks are inputs that don't require grad.
#include <ember/nn/functional_loss.h>

#include "op_table.h"

namespace optable {
namespace {

namespace F = ember::nn::functional;
using ember::kInt64;
using ember::TensorOptions;

Tensor idx(const std::vector<int64_t>& v, const Shape& shape, Device d) {
  return ember::tensor(v, TensorOptions().dtype(kInt64).device(d)).reshape(shape);
}
Tensor values(const std::vector<double>& v, Device d) {
  return ember::tensor(v, TensorOptions().dtype(ember::kFloat64).device(d));
}
// A constant in [lo, hi) (probabilities, targets).
Tensor probs(const Shape& s, Device d, double lo = 0.1, double hi = 0.9) {
  return constant(s, d, lo, hi);
}

F::CrossEntropyFuncOptions ce(ember::nn::Reduction r, bool weight_and_smoothing, Device d) {
  auto o = F::CrossEntropyFuncOptions().reduction(r).ignore_index(3);
  if (weight_and_smoothing) o.weight(values({0.5, 1.0, 2.0, 1.5, 0.25}, d)).label_smoothing(0.2);
  return o;
}

std::vector<Sample> ce_samples(Device d) {
  return {{"[4, 5] target with ignore_index 3", {input({4, 5}, d), idx({1, 3, 4, 0}, {4}, d)}},
          {"transposed [4, 5]", {input({4, 5}, d, Layout::Transposed), idx({2, 2, 4, 3}, {4}, d)}}};
}

Register reg({
    {"cross_entropy/fused mean", fn1([](const tensor_list& x) {
       return F::cross_entropy(x[0], x[1], ce(ember::kMean, false, x[0].device()));
     }),
     ce_samples},
    {"cross_entropy/fused mean weight smoothing", fn1([](const tensor_list& x) {
       return F::cross_entropy(x[0], x[1], ce(ember::kMean, true, x[0].device()));
     }),
     ce_samples},
    {"cross_entropy/fused sum weight smoothing", fn1([](const tensor_list& x) {
       return F::cross_entropy(x[0], x[1], ce(ember::kSum, true, x[0].device()));
     }),
     ce_samples},
    {"cross_entropy/fused none weight smoothing", fn1([](const tensor_list& x) {
       return F::cross_entropy(x[0], x[1], ce(ember::kNone, true, x[0].device()));
     }),
     ce_samples},
    {"cross_entropy/fused [N, C, d] and [C]", fn1([](const tensor_list& x) {
       return F::cross_entropy(x[0], x[1],
                               F::CrossEntropyFuncOptions().label_smoothing(0.1).ignore_index(1));
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 3, 4]", {input({2, 3, 4}, d), idx({0, 2, 1, 1, 2, 0, 0, 2}, {2, 4}, d)}},
           {"[3] with a 0-dim target", {input({3}, d), idx({2}, {}, d)}}};
     }},
    {"cross_entropy/probabilities", fn1([](const tensor_list& x) {
       return F::cross_entropy(x[0], x[1],
                               F::CrossEntropyFuncOptions().label_smoothing(0.1).weight(
                                   values({1, 2, 0.5}, x[0].device())));
     }),
     [](Device d) {
       return std::vector<Sample>{{"[4, 3]", {input({4, 3}, d), probs({4, 3}, d)}},
                                  {"[2, 3, 2]", {input({2, 3, 2}, d), probs({2, 3, 2}, d)}}};
     }},
    {"nll_loss/weight ignore_index", fn1([](const tensor_list& x) {
       return F::nll_loss(
           x[0], x[1],
           F::NLLLossFuncOptions().weight(values({0.5, 1, 2, 1.5}, x[0].device())).ignore_index(0));
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[3, 4]", {input({3, 4}, d), idx({1, 0, 3}, {3}, d)}},
           {"[2, 4, 3]", {input({2, 4, 3}, d), idx({1, 2, 3, 0, 3, 2}, {2, 3}, d)}}};
     }},
    {"mse_loss", fn1([](const tensor_list& x) { return F::mse_loss(x[0], x[1]); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[3, 4] both require grad", {input({3, 4}, d), input({3, 4}, d)}},
           {"broadcast target [4]", {input({3, 4}, d), constant({4}, d)}}};
     }},
    {"l1_loss/sum", fn1([](const tensor_list& x) { return F::l1_loss(x[0], x[1], ember::kSum); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[3, 4]",
            {input({3, 4}, d, Layout::Contiguous, 0.5, 2), constant({3, 4}, d, -2, -0.5)}}};
     }},
    {"smooth_l1_loss/beta 0.5 none", fn1([](const tensor_list& x) {
       return F::smooth_l1_loss(x[0], x[1], F::SmoothL1LossFuncOptions(ember::kNone).beta(0.5));
     }),
     [](Device d) {
       return std::vector<Sample>{{"quadratic and linear parts",
                                   {input({6}, d), values({0.1, -0.2, 3, -3, 0.4, 1.5}, d)}}};
     }},
    {"binary_cross_entropy/weight", fn1([](const tensor_list& x) {
       return F::binary_cross_entropy(x[0], x[1], F::BinaryCrossEntropyFuncOptions().weight(x[2]));
     }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 4]",
                                   {input({3, 4}, d, Layout::Contiguous, 0.1, 0.9),
                                    probs({3, 4}, d), probs({4}, d, 0.5, 2)}}};
     }},
    {"binary_cross_entropy_with_logits/pos_weight", fn1([](const tensor_list& x) {
       return F::binary_cross_entropy_with_logits(
           x[0], x[1], F::BinaryCrossEntropyWithLogitsFuncOptions().pos_weight(x[2]).weight(x[3]));
     }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 4]",
                                   {input({3, 4}, d, Layout::Contiguous, -4, 4), probs({3, 4}, d),
                                    probs({4}, d, 0.5, 3), probs({3, 1}, d, 0.5, 2)}}};
     }},
    {"kl_div/batchmean", fn1([](const tensor_list& x) {
       return F::kl_div(x[0], x[1], F::KLDivFuncOptions(ember::kBatchMean));
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[3, 4]", {input({3, 4}, d, Layout::Contiguous, -3, -0.1), probs({3, 4}, d)}}};
     }},
    {"kl_div/log_target none", fn1([](const tensor_list& x) {
       return F::kl_div(x[0], x[1], F::KLDivFuncOptions(ember::kNone).log_target(true));
     }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 4] both require grad",
                                   {input({3, 4}, d, Layout::Contiguous, -3, -0.1),
                                    input({3, 4}, d, Layout::Contiguous, -3, -0.1)}}};
     }},
});

}  // namespace
}  // namespace optable
