// Gradcheck entries of the nn::functional composites of nn/functional_activation.h,
// nn/functional_distance.h, nn/functional_vision.h and nn/functional_loss_more.h: every
// activation, distance, image op and margin/robust loss, with inputs kept off their kinks.
#include "op_table.h"

namespace optable {
namespace {

namespace F = ember::nn::functional;
using ember::kInt64;
using ember::Tensor;
using ember::TensorOptions;

Tensor idx(const std::vector<int64_t>& v, const Shape& shape, Device d) {
  return ember::tensor(v, TensorOptions().dtype(kInt64).device(d)).reshape(shape);
}
Tensor vals(const std::vector<double>& v, const Shape& shape, Device d) {
  return ember::tensor(v, TensorOptions().dtype(ember::kFloat64).device(d)).reshape(shape);
}

// Unary samples in [lo, hi), kept gap away from 0.
std::function<std::vector<Sample>(Device)> unary(double lo, double hi, double gap = 0.05) {
  return [=](Device d) {
    return std::vector<Sample>{
        {"[3, 4]", {input({3, 4}, d, Layout::Contiguous, lo, hi, gap)}},
        {"transposed [3, 4]", {input({3, 4}, d, Layout::Transposed, lo, hi, gap)}},
        {"0-dim", {input({}, d, Layout::Contiguous, lo, hi, gap)}}};
  };
}

std::vector<Sample> pair_samples(Device d) {
  return {{"[3, 4] x [3, 4]", {input({3, 4}, d), input({3, 4}, d)}},
          {"transposed [2, 5] x [2, 5]", {input({2, 5}, d, Layout::Transposed), input({2, 5}, d)}}};
}

Register reg({
    {"nn/elu",
     fn1([](const tensor_list& x) { return F::elu(x[0], F::ELUFuncOptions().alpha(0.5)); }),
     unary(-3, 3)},
    {"nn/selu", fn1([](const tensor_list& x) { return F::selu(x[0]); }), unary(-3, 3)},
    {"nn/celu",
     fn1([](const tensor_list& x) { return F::celu(x[0], F::CELUFuncOptions().alpha(2.0)); }),
     unary(-3, 3)},
    {"nn/softplus beta", fn1([](const tensor_list& x) {
       return F::softplus(x[0], F::SoftplusFuncOptions().beta(2).threshold(20));
     }),
     unary(-3, 3)},
    {"nn/softplus linear part", fn1([](const tensor_list& x) {
       return F::softplus(x[0], F::SoftplusFuncOptions().beta(2).threshold(1));
     }),
     unary(1, 3)},
    {"nn/hardtanh", fn1([](const tensor_list& x) {
       return F::hardtanh(x[0], F::HardtanhFuncOptions().min_val(-0.5).max_val(1.5));
     }),
     unary(-3, 3)},
    {"nn/relu6", fn1([](const tensor_list& x) { return F::relu6(x[0]); }), unary(-2, 8)},
    {"nn/hardswish", fn1([](const tensor_list& x) { return ember::hardswish(x[0]); }),
     unary(-5, 5)},
    {"nn/hardsigmoid", fn1([](const tensor_list& x) { return ember::hardsigmoid(x[0]); }),
     unary(-5, 5)},
    {"nn/mish", fn1([](const tensor_list& x) { return F::mish(x[0]); }), unary(-4, 4)},
    {"nn/logsigmoid", fn1([](const tensor_list& x) { return F::logsigmoid(x[0]); }), unary(-4, 4)},
    {"nn/softsign", fn1([](const tensor_list& x) { return F::softsign(x[0]); }), unary(-3, 3)},
    {"nn/tanhshrink", fn1([](const tensor_list& x) { return F::tanhshrink(x[0]); }), unary(-3, 3)},
    {"nn/hardshrink", fn1([](const tensor_list& x) { return F::hardshrink(x[0]); }), unary(-2, 2)},
    {"nn/softshrink",
     fn1([](const tensor_list& x) { return F::softshrink(x[0], F::SoftshrinkFuncOptions(0.25)); }),
     unary(-2, 2)},
    {"nn/threshold", fn1([](const tensor_list& x) {
       return F::threshold(x[0], F::ThresholdFuncOptions(0.1, -1.0));
     }),
     unary(-2, 2)},
    {"nn/glu", fn1([](const tensor_list& x) { return F::glu(x[0], F::GLUFuncOptions(0)); }),
     [](Device d) {
       return std::vector<Sample>{{"[4, 3] dim 0", {input({4, 3}, d)}},
                                  {"transposed [2, 3]", {input({2, 3}, d, Layout::Transposed)}}};
     }},
    {"nn/softmin",
     fn1([](const tensor_list& x) { return F::softmin(x[0], F::SoftminFuncOptions(-1)); }),
     unary(-2, 2)},
    {"nn/prelu", fn1([](const tensor_list& x) { return F::prelu(x[0], x[1]); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 3, 4] by [3]",
            {input({2, 3, 4}, d, Layout::Contiguous, -2, 2, 0.05), input({3}, d)}},
           {"[2, 3] by [1]", {input({2, 3}, d, Layout::Contiguous, -2, 2, 0.05), input({1}, d)}}};
     }},
    {"nn/normalize", fn1([](const tensor_list& x) { return F::normalize(x[0]); }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 4]", {input({3, 4}, d)}},
                                  {"transposed [3, 4]", {input({3, 4}, d, Layout::Transposed)}}};
     }},
    {"nn/normalize p1 dim0", fn1([](const tensor_list& x) {
       return F::normalize(x[0], F::NormalizeFuncOptions().p(1).dim(0));
     }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 4]", {input({3, 4}, d, Layout::Contiguous, -2, 2, 0.05)}}};
     }},
    {"nn/cosine_similarity",
     fn1([](const tensor_list& x) { return F::cosine_similarity(x[0], x[1]); }), pair_samples},
    {"nn/cosine_similarity broadcast", fn1([](const tensor_list& x) {
       return F::cosine_similarity(x[0], x[1], F::CosineSimilarityFuncOptions().dim(0));
     }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 2] x [3, 1]", {input({3, 2}, d), input({3, 1}, d)}}};
     }},
    {"nn/pairwise_distance",
     fn1([](const tensor_list& x) { return F::pairwise_distance(x[0], x[1]); }), pair_samples},
    {"nn/pairwise_distance p1 keepdim", fn1([](const tensor_list& x) {
       return F::pairwise_distance(x[0], x[1], F::PairwiseDistanceFuncOptions().p(1).keepdim(true));
     }),
     pair_samples},
    {"nn/pdist", fn1([](const tensor_list& x) { return F::pdist(x[0]); }),
     [](Device d) {
       return std::vector<Sample>{{"[4, 3]", {input({4, 3}, d)}}};
     }},
    {"nn/cdist", fn1([](const tensor_list& x) { return ember::cdist(x[0], x[1]); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[3, 2] x [4, 2]", {input({3, 2}, d), input({4, 2}, d)}},
           {"batched [2, 2, 3] x [2, 3, 3]", {input({2, 2, 3}, d), input({2, 3, 3}, d)}}};
     }},
    {"nn/local_response_norm", fn1([](const tensor_list& x) {
       return F::local_response_norm(x[0], F::LocalResponseNormFuncOptions(3).alpha(0.5));
     }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 4, 3]", {input({2, 4, 3}, d)}},
                                  {"[1, 3, 2, 2] size 2", {input({1, 3, 2, 2}, d)}}};
     }},
    {"nn/pixel_shuffle", fn1([](const tensor_list& x) {
       return F::pixel_shuffle(x[0], F::PixelShuffleFuncOptions(2));
     }),
     [](Device d) {
       return std::vector<Sample>{{"[1, 4, 2, 3]", {input({1, 4, 2, 3}, d)}}};
     }},
    {"nn/pixel_unshuffle", fn1([](const tensor_list& x) {
       return F::pixel_unshuffle(x[0], F::PixelUnshuffleFuncOptions(2));
     }),
     [](Device d) {
       return std::vector<Sample>{{"[1, 1, 4, 2]", {input({1, 1, 4, 2}, d)}}};
     }},
    {"nn/unfold", fn1([](const tensor_list& x) {
       return F::unfold(x[0], F::UnfoldFuncOptions({2, 2}).padding(1).stride(2).dilation({1, 2}));
     }),
     [](Device d) {
       return std::vector<Sample>{{"[1, 2, 4, 5]", {input({1, 2, 4, 5}, d)}}};
     }},
    {"nn/fold", fn1([](const tensor_list& x) {
       return F::fold(x[0], F::FoldFuncOptions({4, 5}, {2, 2}).padding(1).stride(2));
     }),
     [](Device d) {
       return std::vector<Sample>{{"[1, 8, 9]", {input({1, 8, 9}, d)}}};
     }},
    {"nn/huber_loss", fn1([](const tensor_list& x) {
       return F::huber_loss(x[0], x[1], F::HuberLossFuncOptions().delta(0.7));
     }),
     pair_samples},
    {"nn/smooth_l1_loss beta",
     fn1([](const tensor_list& x) { return F::smooth_l1_loss(x[0], x[1], ember::kSum, 0.7); }),
     pair_samples},
    {"nn/margin_ranking_loss", fn1([](const tensor_list& x) {
       return F::margin_ranking_loss(x[0], x[1], x[2],
                                     F::MarginRankingLossFuncOptions().margin(0.3));
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[6]", {input({6}, d), input({6}, d), vals({1, -1, 1, 1, -1, -1}, {6}, d)}}};
     }},
    {"nn/hinge_embedding_loss", fn1([](const tensor_list& x) {
       return F::hinge_embedding_loss(x[0], x[1], F::HingeEmbeddingLossFuncOptions().margin(1.5));
     }),
     [](Device d) {
       return std::vector<Sample>{{"[6]", {input({6}, d), vals({1, -1, -1, 1, -1, 1}, {6}, d)}}};
     }},
    {"nn/cosine_embedding_loss", fn1([](const tensor_list& x) {
       return F::cosine_embedding_loss(x[0], x[1], x[2],
                                       F::CosineEmbeddingLossFuncOptions().margin(-0.5));
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[3, 4]", {input({3, 4}, d), input({3, 4}, d), vals({1, -1, -1}, {3}, d)}}};
     }},
    {"nn/soft_margin_loss",
     fn1([](const tensor_list& x) { return F::soft_margin_loss(x[0], x[1]); }),
     [](Device d) {
       return std::vector<Sample>{{"[4]", {input({4}, d), vals({1, -1, -1, 1}, {4}, d)}}};
     }},
    {"nn/multilabel_soft_margin_loss", fn1([](const tensor_list& x) {
       return F::multilabel_soft_margin_loss(x[0], x[1],
                                             F::MultilabelSoftMarginLossFuncOptions().weight(x[2]));
     }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3]",
                                   {input({2, 3}, d), vals({1, 0, 1, 0, 0, 1}, {2, 3}, d),
                                    input({3}, d, Layout::Contiguous, 0.5, 2)}}};
     }},
    {"nn/multilabel_margin_loss",
     fn1([](const tensor_list& x) { return F::multilabel_margin_loss(x[0], x[1]); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 4]", {input({2, 4}, d), idx({3, 0, -1, 1, 2, 2, 1, -1}, {2, 4}, d)}}};
     }},
    {"nn/multi_margin_loss",
     fn1([](const tensor_list& x) { return F::multi_margin_loss(x[0], x[1]); }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 4]", {input({3, 4}, d), idx({3, 0, 1}, {3}, d)}}};
     }},
    {"nn/multi_margin_loss p2 weight", fn1([](const tensor_list& x) {
       return F::multi_margin_loss(x[0], x[1],
                                   F::MultiMarginLossFuncOptions().p(2).margin(0.5).weight(x[2]));
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[3, 4]",
            {input({3, 4}, d), idx({3, 0, 1}, {3}, d), input({4}, d, Layout::Contiguous, 0.5, 2)}}};
     }},
    {"nn/triplet_margin_loss swap", fn1([](const tensor_list& x) {
       return F::triplet_margin_loss(x[0], x[1], x[2],
                                     F::TripletMarginLossFuncOptions().margin(2.0).swap(true));
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[3, 4]", {input({3, 4}, d), input({3, 4}, d), input({3, 4}, d)}}};
     }},
    {"nn/poisson_nll_loss",
     fn1([](const tensor_list& x) { return F::poisson_nll_loss(x[0], x[1]); }),
     [](Device d) {
       return std::vector<Sample>{{"[5]", {input({5}, d), constant({5}, d, 0, 4)}}};
     }},
    {"nn/poisson_nll_loss full", fn1([](const tensor_list& x) {
       return F::poisson_nll_loss(x[0], x[1],
                                  F::PoissonNLLLossFuncOptions().log_input(false).full(true));
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[5]", {input({5}, d, Layout::Contiguous, 0.5, 3), vals({0, 1, 2, 3.5, 7}, {5}, d)}}};
     }},
});

}  // namespace
}  // namespace optable
