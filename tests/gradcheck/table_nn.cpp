// Gradcheck entries of nn::functional's composites: silu, leaky_relu, gelu (tanh form),
// layer_norm (with and without affine), embedding (with padding_idx), dropout (p = 0 and a
// fixed seed reset inside the function, so every evaluation draws the same mask).
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

std::vector<Sample> unary_samples(Device d) {
  return {{"[3, 4]", {input({3, 4}, d, Layout::Contiguous, -2, 2, 0.05)}},
          {"transposed [3, 4]", {input({3, 4}, d, Layout::Transposed, -2, 2, 0.05)}},
          {"stepped [2, 3]", {input({2, 3}, d, Layout::Stepped, -2, 2, 0.05)}},
          {"0-dim", {input({}, d, Layout::Contiguous, -2, 2, 0.05)}}};
}

Register reg({
    {"nn/silu", fn1([](const tensor_list& x) { return F::silu(x[0]); }), unary_samples},
    {"nn/leaky_relu", fn1([](const tensor_list& x) {
       return F::leaky_relu(x[0], F::LeakyReLUFuncOptions().negative_slope(0.2));
     }),
     unary_samples},
    {"nn/gelu tanh", fn1([](const tensor_list& x) {
       return F::gelu(x[0], F::GELUFuncOptions().approximate("tanh"));
     }),
     unary_samples},
    {"nn/layer_norm affine", fn1([](const tensor_list& x) {
       return F::layer_norm(x[0], F::LayerNormFuncOptions({4}).weight(x[1]).bias(x[2]));
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[3, 4]", {input({3, 4}, d), input({4}, d), input({4}, d)}},
           {"transposed [2, 4]",
            {input({2, 4}, d, Layout::Transposed), input({4}, d), input({4}, d)}}};
     }},
    {"nn/layer_norm two dims", fn1([](const tensor_list& x) {
       return F::layer_norm(x[0], F::LayerNormFuncOptions({2, 3}).eps(1e-3));
     }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 2, 3]", {input({2, 2, 3}, d)}},
                                  {"stepped [2, 3]", {input({2, 3}, d, Layout::Stepped)}}};
     }},
    {"nn/embedding", fn1([](const tensor_list& x) { return F::embedding(x[1], x[0]); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[5, 3] by [2, 3] (repeats)", {input({5, 3}, d), idx({4, 0, 4, 1, 1, 4}, {2, 3}, d)}},
           {"transposed [4, 2] by [3]",
            {input({4, 2}, d, Layout::Transposed), idx({3, 0, 2}, {3}, d)}}};
     }},
    // The padding row gets no gradient by design, which finite differences would see: the
    // function zeroes that row first, so both sides agree it has no influence.
    {"nn/embedding padding_idx", fn1([](const tensor_list& x) {
       Tensor keep = ember::ones({4, 1}, x[0].options());
       keep[1].fill_(0.0);
       return F::embedding(x[1], x[0] * keep, F::EmbeddingFuncOptions().padding_idx(1));
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[4, 3] by [5]", {input({4, 3}, d), idx({1, 0, 1, 3, 1}, {5}, d)}}};
     }},
    {"nn/dropout p=0",
     fn1([](const tensor_list& x) { return F::dropout(x[0], F::DropoutFuncOptions().p(0.0)); }),
     unary_samples},
    {"nn/dropout seeded", fn1([](const tensor_list& x) {
       ember::manual_seed(1234);  // the same mask on every evaluation
       return F::dropout(x[0], F::DropoutFuncOptions().p(0.4));
     }),
     unary_samples},
});

}  // namespace
}  // namespace optable
