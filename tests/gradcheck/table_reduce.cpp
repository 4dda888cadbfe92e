// Gradcheck entries of the reductions: sum, mean, prod (with zeros), max/min (full and
// dim), amax/amin, var, std, norm.
#include <cmath>

#include "op_table.h"

namespace optable {
namespace {

using ember::kFloat64;
using ember::Tensor;
using ember::TensorOptions;

// A float64 leaf with the given values, reshaped to `shape` (ties and zeros on purpose).
Tensor leaf(const std::vector<double>& v, const Shape& shape, Device d) {
  Tensor t = ember::tensor(v, TensorOptions().dtype(kFloat64).device(d)).reshape(shape);
  return t.detach().requires_grad_(true);
}
// The same, as the transpose of a [shape[1], shape[0]] tensor (non-contiguous).
Tensor leaf_t(const std::vector<double>& v, const Shape& shape, Device d) {
  Tensor t = ember::tensor(v, TensorOptions().dtype(kFloat64).device(d));
  return t.reshape({shape[1], shape[0]}).t().detach().requires_grad_(true);
}

std::vector<Sample> full_samples(Device d) {
  return {{"[2, 3]", {input({2, 3}, d)}},
          {"transposed [3, 4]", {input({3, 4}, d, Layout::Transposed)}},
          {"stepped [2, 1, 3]", {input({2, 1, 3}, d, Layout::Stepped)}},
          {"[1]", {input({1}, d)}},
          {"0-dim", {input({}, d)}}};
}

// Values in [0.5, 1.5] with random signs would be better for prod; magnitudes near 1
// keep the product (and the numeric step) well scaled.
std::vector<Sample> prod_samples(Device d) {
  return {{"[2, 3]", {input({2, 3}, d, Layout::Contiguous, -1.5, 1.5, 0.5)}},
          {"transposed [3, 4]", {input({3, 4}, d, Layout::Transposed, -1.5, 1.5, 0.5)}},
          {"stepped [2, 1, 3]", {input({2, 1, 3}, d, Layout::Stepped, -1.5, 1.5, 0.5)}},
          {"0-dim", {input({}, d, Layout::Contiguous, 0.5, 1.5)}},
          {"one zero", {leaf({0.7, -1.2, 0.0, 1.3, 0.9, -0.8}, {2, 3}, d)}},
          {"two zeros", {leaf({0.7, 0.0, 1.1, 1.3, 0.0, -0.8}, {2, 3}, d)}},
          {"three zeros, transposed", {leaf_t({0.0, 1.2, 0.0, -1.3, 0.0, 0.9}, {3, 2}, d)}},
          {"all zeros", {leaf({0.0, 0.0, 0.0}, {3}, d)}}};
}

using ember::amax;
using ember::amin;

Register reg({
    // ---- sum ----
    {"sum/full", fn1([](const tensor_list& x) { return x[0].sum(); }), full_samples},
    {"sum/dims", fn1([](const tensor_list& x) {
       return x[0].sum({0, 2});
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 3, 2]", {input({2, 3, 2}, d)}},
           {"transposed [2, 3, 2]", {input({2, 3, 2}, d, Layout::Transposed)}},
           {"size-1 [1, 3, 1]", {input({1, 3, 1}, d, Layout::Stepped)}}};
     }},
    {"sum/dim -1 keepdim", fn1([](const tensor_list& x) { return x[0].sum({-1}, true); }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 4]", {input({3, 4}, d, Layout::Transposed)}},
                                  {"[4]", {input({4}, d, Layout::Stepped)}},
                                  {"0-dim", {input({}, d)}}};
     }},
    {"sum/dims keepdim dtype", fn1([](const tensor_list& x) {
       return x[0].sum({0, 1}, true, kFloat64);
     }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3, 2]", {input({2, 3, 2}, d)}}};
     }},
    {"sum/all dims keepdim", fn1([](const tensor_list& x) { return x[0].sum({}, true); }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3]", {input({2, 3}, d, Layout::Transposed)}},
                                  {"0-dim", {input({}, d)}}};
     }},
    {"sum/dtype full", fn1([](const tensor_list& x) { return ember::sum(x[0], kFloat64); }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3]", {input({2, 3}, d)}}};
     }},

    // ---- mean ----
    {"mean/full", fn1([](const tensor_list& x) { return x[0].mean(); }), full_samples},
    {"mean/dims", fn1([](const tensor_list& x) {
       return x[0].mean({0, -1});
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 3, 2]", {input({2, 3, 2}, d)}},
           {"transposed [2, 3, 4]", {input({2, 3, 4}, d, Layout::Transposed)}},
           {"size-1 [1, 3, 1]", {input({1, 3, 1}, d, Layout::Stepped)}}};
     }},
    {"mean/all dims keepdim", fn1([](const tensor_list& x) { return x[0].mean({}, true); }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3]", {input({2, 3}, d, Layout::Stepped)}}};
     }},
    {"mean/dim keepdim", fn1([](const tensor_list& x) { return ember::mean(x[0], {1}, true); }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 4]", {input({3, 4}, d, Layout::Transposed)}},
                                  {"[2, 1]", {input({2, 1}, d)}}};
     }},

    // ---- prod ----
    {"prod/full", fn1([](const tensor_list& x) { return x[0].prod(); }), prod_samples},
    {"prod/dim 1", fn1([](const tensor_list& x) { return x[0].prod(1); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[3, 4]", {input({3, 4}, d, Layout::Contiguous, -1.5, 1.5, 0.5)}},
           {"transposed [3, 4]", {input({3, 4}, d, Layout::Transposed, -1.5, 1.5, 0.5)}},
           {"[2, 1, 3]", {input({2, 1, 3}, d, Layout::Stepped, -1.5, 1.5, 0.5)}},
           // a zero in row 0, two in row 1, none in row 2
           {"zeros [3, 3]", {leaf({1.1, 0.0, -0.9, 0.0, 0.8, 0.0, 1.2, -1.3, 0.7}, {3, 3}, d)}},
           {"zeros transposed [3, 3]",
            {leaf_t({1.1, 0.0, -0.9, 0.0, 0.8, 0.0, 1.2, -1.3, 0.7}, {3, 3}, d)}}};
     }},
    {"prod/dim 0 keepdim", fn1([](const tensor_list& x) { return x[0].prod(0, true); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[3, 2]", {input({3, 2}, d, Layout::Transposed, -1.5, 1.5, 0.5)}},
           {"zeros [3, 2]", {leaf({0.0, 1.5, 0.9, 0.0, -1.1, 0.0}, {3, 2}, d)}},
           {"0-dim", {input({}, d)}}};
     }},
    {"prod/dim -1 dtype",
     fn1([](const tensor_list& x) { return ember::prod(x[0], -1, false, kFloat64); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 3]", {input({2, 3}, d, Layout::Contiguous, -1.5, 1.5, 0.5)}},
           {"zeros [2, 3]", {leaf({0.0, 1.5, 0.9, 0.0, -1.1, 0.0}, {2, 3}, d)}}};
     }},

    // ---- max / min of all elements ----
    {"max/full", fn1([](const tensor_list& x) { return x[0].max(); }), full_samples},
    {"min/full", fn1([](const tensor_list& x) { return ember::min(x[0]); }), full_samples},
    // Two-way ties: the even split equals the central difference. No gradgradcheck: the
    // tie mask jumps when an element moves (the split is not differentiable in x).
    {"max/full ties", fn1([](const tensor_list& x) { return x[0].max(); }),
     [](Device d) {
       return std::vector<Sample>{
           {"tie [2, 3]", {leaf({0.5, 1.5, -1.0, 1.5, 0.2, 0.3}, {2, 3}, d)}}};
     },
     /*gradgrad=*/false},
    {"min/full ties", fn1([](const tensor_list& x) { return x[0].min(); }),
     [](Device d) {
       return std::vector<Sample>{
           {"tie [2, 3]", {leaf_t({0.5, -1.5, 1.0, -1.5, 0.2, 0.3}, {2, 3}, d)}}};
     },
     /*gradgrad=*/false},

    // ---- max / min along a dim (values; indices carry no gradient) ----
    {"max/dim 1", fn1([](const tensor_list& x) { return std::get<0>(x[0].max(1)); }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 4]", {input({3, 4}, d)}},
                                  {"transposed [3, 4]", {input({3, 4}, d, Layout::Transposed)}},
                                  {"stepped [2, 3, 2]", {input({2, 3, 2}, d, Layout::Stepped)}},
                                  {"size-1 [3, 1]", {input({3, 1}, d)}}};
     }},
    {"max/dim -1 keepdim",
     fn1([](const tensor_list& x) { return std::get<0>(x[0].max(-1, true)); }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3, 4]", {input({2, 3, 4}, d, Layout::Transposed)}},
                                  {"[5]", {input({5}, d)}},
                                  {"0-dim", {input({}, d)}}};
     }},
    {"min/dim 0", fn1([](const tensor_list& x) { return std::get<0>(ember::min(x[0], 0)); }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 4]", {input({3, 4}, d, Layout::Transposed)}},
                                  {"[4]", {input({4}, d, Layout::Stepped)}},
                                  {"0-dim", {input({}, d)}}};
     }},
    {"min/dim 1 keepdim", fn1([](const tensor_list& x) { return std::get<0>(x[0].min(1, true)); }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3, 2]", {input({2, 3, 2}, d, Layout::Stepped)}}};
     }},
    {"max/dim values and indices",
     [](const tensor_list& x) {
       auto [v, i] = x[0].max(0);
       return tensor_list{v, i};
     },
     [](Device d) {
       return std::vector<Sample>{{"[3, 2]", {input({3, 2}, d)}}};
     }},

    // ---- amax / amin ----
    {"amax/dims", fn1([](const tensor_list& x) {
       return x[0].amax({0, 2});
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 3, 2]", {input({2, 3, 2}, d)}},
           {"transposed [2, 3, 2]", {input({2, 3, 2}, d, Layout::Transposed)}},
           {"size-1 [1, 3, 1]", {input({1, 3, 1}, d, Layout::Stepped)}}};
     }},
    {"amax/all keepdim", fn1([](const tensor_list& x) { return amax(x[0], {}, true); }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 4]", {input({3, 4}, d, Layout::Transposed)}},
                                  {"0-dim", {input({}, d)}}};
     }},
    {"amin/dim -1", fn1([](const tensor_list& x) { return x[0].amin({-1}); }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 4]", {input({3, 4}, d, Layout::Stepped)}},
                                  {"[4]", {input({4}, d)}},
                                  {"0-dim", {input({}, d)}}};
     }},
    {"amin/dims keepdim", fn1([](const tensor_list& x) {
       return amin(x[0], {0, 1}, true);
     }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3, 2]", {input({2, 3, 2}, d)}}};
     }},
    // Two-way ties per slice (see max/full ties).
    {"amax/dim ties", fn1([](const tensor_list& x) { return x[0].amax({1}); }),
     [](Device d) {
       return std::vector<Sample>{
           {"ties [2, 3]", {leaf({0.5, 1.5, 1.5, 2.0, -1.0, 2.0}, {2, 3}, d)}}};
     },
     /*gradgrad=*/false},
    {"amin/dim ties", fn1([](const tensor_list& x) { return x[0].amin({0}, true); }),
     [](Device d) {
       return std::vector<Sample>{
           {"ties [2, 3]", {leaf({0.5, -1.5, 1.0, 0.5, -1.5, 2.0}, {2, 3}, d)}}};
     },
     /*gradgrad=*/false},

    // ---- var / std ----
    {"var/full", fn1([](const tensor_list& x) { return x[0].var(); }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3]", {input({2, 3}, d)}},
                                  {"transposed [3, 4]", {input({3, 4}, d, Layout::Transposed)}},
                                  {"stepped [2, 1, 3]", {input({2, 1, 3}, d, Layout::Stepped)}}};
     }},
    {"var/full biased", fn1([](const tensor_list& x) { return x[0].var(false); }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3]", {input({2, 3}, d)}}, {"0-dim", {input({}, d)}}};
     }},
    {"var/dims", fn1([](const tensor_list& x) {
       return x[0].var({0, 2});
     }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3, 2]", {input({2, 3, 2}, d, Layout::Transposed)}},
                                  {"size-1 [2, 1, 3]", {input({2, 1, 3}, d)}}};
     }},
    {"var/dim keepdim biased",
     fn1([](const tensor_list& x) { return ember::var(x[0], {-1}, false, true); }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 4]", {input({3, 4}, d, Layout::Stepped)}},
                                  {"[3, 1]", {input({3, 1}, d)}}};
     }},
    {"std/full", fn1([](const tensor_list& x) { return x[0].std(); }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3]", {input({2, 3}, d)}},
                                  {"transposed [3, 4]", {input({3, 4}, d, Layout::Transposed)}}};
     }},
    {"std/dims keepdim biased", fn1([](const tensor_list& x) {
       return x[0].std({0, 2}, false, true);
     }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3, 2]", {input({2, 3, 2}, d, Layout::Stepped)}}};
     }},
    {"std/dim", fn1([](const tensor_list& x) { return ember::std(x[0], {1}); }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 4]", {input({3, 4}, d, Layout::Transposed)}}};
     }},

    // ---- norm ----
    {"norm/p=2 full", fn1([](const tensor_list& x) { return x[0].norm(); }), full_samples},
    {"norm/p=2 dims", fn1([](const tensor_list& x) {
       return x[0].norm(2, {0, 2});
     }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3, 2]", {input({2, 3, 2}, d, Layout::Transposed)}},
                                  {"size-1 [1, 3, 1]", {input({1, 3, 1}, d)}}};
     }},
    {"norm/p=2 dim keepdim", fn1([](const tensor_list& x) { return x[0].norm(2, {-1}, true); }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 4]", {input({3, 4}, d, Layout::Stepped)}},
                                  {"0-dim", {input({}, d, Layout::Contiguous, -2, 2, 0.1)}}};
     }},
    {"norm/p=1 full", fn1([](const tensor_list& x) { return x[0].norm(1); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 3]", {input({2, 3}, d, Layout::Contiguous, -2, 2, 0.1)}},
           {"transposed [3, 4]", {input({3, 4}, d, Layout::Transposed, -2, 2, 0.1)}}};
     }},
    {"norm/p=1 dim", fn1([](const tensor_list& x) { return x[0].norm(1, {1}); }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 4]", {input({3, 4}, d, Layout::Stepped, -2, 2, 0.1)}}};
     }},
    {"norm/p=3 full", fn1([](const tensor_list& x) { return x[0].norm(3); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 3]", {input({2, 3}, d, Layout::Contiguous, -2, 2, 0.1)}},
           {"transposed [3, 4]", {input({3, 4}, d, Layout::Transposed, -2, 2, 0.1)}}};
     }},
    {"norm/p=1.5 dim keepdim", fn1([](const tensor_list& x) { return x[0].norm(1.5, {0}, true); }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 4]", {input({3, 4}, d, Layout::Transposed, -2, 2, 0.2)}}};
     }},
    {"norm/p=0.5 dims", fn1([](const tensor_list& x) {
       return x[0].norm(0.5, {0, 1});
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 3, 2]", {input({2, 3, 2}, d, Layout::Contiguous, -2, 2, 0.2)}}};
     }},
    {"norm/p=inf", fn1([](const tensor_list& x) { return x[0].norm(INFINITY); }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3]", {input({2, 3}, d, Layout::Contiguous, -2, 2, 0.1)}}};
     }},
    {"norm/p=-inf dim", fn1([](const tensor_list& x) { return x[0].norm(-INFINITY, {1}); }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 4]", {input({3, 4}, d, Layout::Transposed, -2, 2, 0.1)}}};
     }},
    {"norm/p=0", fn1([](const tensor_list& x) { return x[0].norm(0, {1}); }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 4]", {input({3, 4}, d, Layout::Contiguous, -2, 2, 0.1)}}};
     }},
});

}  // namespace
}  // namespace optable
