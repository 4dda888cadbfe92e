// Gradcheck entries of the CNN composites (nn/normalization_ops.cpp, resample_ops.cpp,
// dropout_ops.cpp): batch_norm in training (fresh running stats per call, updated as a side
// effect) and eval, with and without affine; group_norm; instance_norm; constant, reflect,
// replicate and circular padding; nearest and bilinear upsampling; dropout2d (seed reset inside).
#include <ember/nn/functional_conv.h>

#include "op_table.h"

namespace optable {
namespace {

namespace F = ember::nn::functional;
using ember::TensorOptions;

TensorOptions f64(Device d) { return TensorOptions().dtype(ember::kFloat64).device(d); }

// x [N, C, *] with an affine weight and bias of [C].
std::vector<Sample> norm_samples(Device d) {
  return {{"[4, 3, 2, 2]", {input({4, 3, 2, 2}, d), input({3}, d), input({3}, d)}},
          {"transposed [3, 2] (BatchNorm1d)",
           {input({3, 2}, d, Layout::Transposed), input({2}, d), input({2}, d)}},
          {"[3, 2, 3]", {input({3, 2, 3}, d), input({2}, d), input({2}, d)}}};
}

std::vector<Sample> image_samples(Device d) {
  return {{"[2, 3, 4, 5]", {input({2, 3, 4, 5}, d)}},
          {"stepped [2, 3]", {input({1, 2, 2, 3}, d, Layout::Stepped)}}};
}

Register reg({
    {"nn/batch_norm train affine", fn1([](const tensor_list& x) {
       Tensor rm = ember::zeros({x[1].size(0)}, f64(x[0].device()));
       Tensor rv = ember::ones({x[1].size(0)}, f64(x[0].device()));
       return ember::batch_norm(x[0], x[1], x[2], rm, rv, /*training=*/true, 0.1, 1e-5);
     }),
     norm_samples},
    {"nn/batch_norm train no affine", fn1([](const tensor_list& x) {
       return ember::batch_norm(x[0], {}, {}, {}, {}, true, 0.1, 1e-3);
     }),
     norm_samples},
    {"nn/batch_norm eval affine", fn1([](const tensor_list& x) {
       const int64_t c = x[1].size(0);
       const Tensor rm = ember::arange(c, f64(x[0].device())) * 0.3 - 0.2;
       const Tensor rv = ember::arange(c, f64(x[0].device())) * 0.5 + 0.5;
       return F::batch_norm(x[0], rm, rv, F::BatchNormFuncOptions().weight(x[1]).bias(x[2]));
     }),
     norm_samples},
    {"nn/group_norm affine", fn1([](const tensor_list& x) {
       return F::group_norm(x[0], F::GroupNormFuncOptions(2).weight(x[1]).bias(x[2]));
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 4, 3]", {input({2, 4, 3}, d), input({4}, d), input({4}, d)}},
           {"transposed [3, 4]",
            {input({3, 4}, d, Layout::Transposed), input({4}, d), input({4}, d)}}};
     }},
    {"nn/group_norm no affine", fn1([](const tensor_list& x) {
       return F::group_norm(x[0], F::GroupNormFuncOptions(3).eps(1e-3));
     }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 6, 2, 2]", {input({2, 6, 2, 2}, d)}}};
     }},
    {"nn/instance_norm affine", fn1([](const tensor_list& x) {
       return F::instance_norm(x[0], F::InstanceNormFuncOptions().weight(x[1]).bias(x[2]));
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 3, 4]", {input({2, 3, 4}, d), input({3}, d), input({3}, d)}},
           {"[1, 2, 2, 3]", {input({1, 2, 2, 3}, d), input({2}, d), input({2}, d)}}};
     }},
    // Running stats updated by the training call (a side effect without history) and, for
    // the eval call, constants of their own (the updated ones would depend on x).
    {"nn/instance_norm running stats and eval", fn1([](const tensor_list& x) {
       const Device d = x[0].device();
       Tensor rm = ember::zeros({3}, f64(d)), rv = ember::ones({3}, f64(d));
       const Tensor train =
           F::instance_norm(x[0], F::InstanceNormFuncOptions().running_mean(rm).running_var(rv));
       const Tensor eval = F::instance_norm(x[0], F::InstanceNormFuncOptions()
                                                      .running_mean(ember::full({3}, 0.5, f64(d)))
                                                      .running_var(ember::full({3}, 2.0, f64(d)))
                                                      .use_input_stats(false));
       return train + eval;
     }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3, 5]", {input({2, 3, 5}, d)}}};
     }},
    {"nn/pad constant", fn1([](const tensor_list& x) {
       return F::pad(x[0], F::PadFuncOptions({1, 2, -1, 1}).value(0.5));
     }),
     image_samples},
    {"nn/pad reflect", fn1([](const tensor_list& x) {
       return F::pad(x[0], F::PadFuncOptions({2, 1, 1, 1}).mode(ember::kReflect));
     }),
     image_samples},
    {"nn/pad replicate", fn1([](const tensor_list& x) {
       return F::pad(x[0], F::PadFuncOptions({1, 3, 2, 0}).mode(ember::kReplicate));
     }),
     image_samples},
    {"nn/pad circular", fn1([](const tensor_list& x) {
       return F::pad(x[0], F::PadFuncOptions({2, 1, 1, 2}).mode(ember::kCircular));
     }),
     image_samples},
    {"nn/upsample nearest", fn1([](const tensor_list& x) {
       return F::interpolate(x[0], F::InterpolateFuncOptions().size(std::vector<int64_t>{5, 7}));
     }),
     image_samples},
    {"nn/upsample bilinear", fn1([](const tensor_list& x) {
       return F::interpolate(x[0], F::InterpolateFuncOptions()
                                       .scale_factor(std::vector<double>{1.5, 2})
                                       .mode(ember::kBilinear)
                                       .align_corners(false));
     }),
     image_samples},
    {"nn/upsample bilinear align_corners", fn1([](const tensor_list& x) {
       return F::interpolate(x[0], F::InterpolateFuncOptions()
                                       .size(std::vector<int64_t>{3, 8})
                                       .mode(ember::kBilinear)
                                       .align_corners(true));
     }),
     image_samples},
    // The seed is reset inside, so every evaluation drops the same channels.
    {"nn/dropout2d", fn1([](const tensor_list& x) {
       ember::manual_seed(7);
       return F::dropout2d(x[0], F::Dropout2dFuncOptions().p(0.4));
     }),
     image_samples},
});

}  // namespace
}  // namespace optable
