// Gradcheck entries of sorting, selection and scans: sort, topk, kthvalue, median, nanmedian,
// mode, cummax/cummin (gradient to the selected positions), cumsum, cumprod (with zeros),
// logsumexp.
#include "op_table.h"

namespace optable {
namespace {

using ember::kFloat64;
using ember::Tensor;
using ember::TensorOptions;

Tensor leaf(const std::vector<double>& v, const Shape& shape, Device d) {
  Tensor t = ember::tensor(v, TensorOptions().dtype(kFloat64).device(d)).reshape(shape);
  return t.detach().requires_grad_(true);
}

// Distinct values (random ones are, almost surely): the selection does not move under the
// finite differences.
std::vector<Sample> matrices(Device d) {
  return {{"[3, 4]", {input({3, 4}, d)}},
          {"transposed [4, 5]", {input({4, 5}, d, Layout::Transposed)}},
          {"stepped [2, 3, 3]", {input({2, 3, 3}, d, Layout::Stepped)}}};
}

Register reg({
    {"sort", fn1([](const tensor_list& x) { return std::get<0>(x[0].sort(-1)); }), matrices},
    {"sort/dim 0 descending, stable", fn1([](const tensor_list& x) {
       return std::get<0>(ember::sort(x[0], std::optional<bool>(true), 0, true));
     }),
     [](Device d) {
       return std::vector<Sample>{{"[4, 3]", {input({4, 3}, d, Layout::Transposed)}},
                                  {"0-dim", {input({}, d)}}};
     }},
    {"topk", fn1([](const tensor_list& x) { return std::get<0>(x[0].topk(2)); }), matrices},
    {"topk/smallest dim 0",
     fn1([](const tensor_list& x) { return std::get<0>(ember::topk(x[0], 2, 0, false)); }),
     matrices},
    {"kthvalue", fn1([](const tensor_list& x) { return std::get<0>(x[0].kthvalue(2, 1)); }),
     matrices},
    {"kthvalue/keepdim",
     fn1([](const tensor_list& x) { return std::get<0>(ember::kthvalue(x[0], 1, 0, true)); }),
     matrices},
    {"median/dim", fn1([](const tensor_list& x) { return std::get<0>(x[0].median(1)); }), matrices},
    {"median/full", fn1([](const tensor_list& x) { return x[0].median(); }), matrices},
    {"nanmedian/dim keepdim",
     fn1([](const tensor_list& x) { return std::get<0>(x[0].nanmedian(0, true)); }), matrices},
    {"nanmedian/full", fn1([](const tensor_list& x) { return ember::nanmedian(x[0]); }), matrices},
    {"mode", fn1([](const tensor_list& x) { return std::get<0>(x[0].mode(1)); }), matrices},
    {"cummax", fn1([](const tensor_list& x) { return std::get<0>(x[0].cummax(1)); }), matrices},
    {"cummin/dim 0", fn1([](const tensor_list& x) { return std::get<0>(ember::cummin(x[0], 0)); }),
     matrices},
    {"cumsum", fn1([](const tensor_list& x) { return x[0].cumsum(-1); }),
     [](Device d) {
       auto v = matrices(d);
       v.push_back({"0-dim", {input({}, d)}});
       return v;
     }},
    {"cumsum/dim 0 dtype",
     fn1([](const tensor_list& x) { return ember::cumsum(x[0], 0, kFloat64); }), matrices},
    {"cumprod", fn1([](const tensor_list& x) { return x[0].cumprod(-1); }),
     [](Device d) {
       auto v = matrices(d);
       v.push_back({"one zero", {leaf({0.7, -1.2, 0.0, 1.3, 0.9, -0.8}, {2, 3}, d)}});
       v.push_back({"two zeros", {leaf({0.0, 1.2, 0.0, 1.3, 0.5, -0.8}, {2, 3}, d)}});
       v.push_back({"0-dim", {input({}, d)}});
       return v;
     }},
    {"logsumexp", fn1([](const tensor_list& x) { return x[0].logsumexp({1}); }), matrices},
    {"logsumexp/all dims keepdim", fn1([](const tensor_list& x) {
       return ember::logsumexp(x[0], {0, 1}, true);
     }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 4]", {input({3, 4}, d, Layout::Transposed)}}};
     }},
    {"nansum/nanmean",
     fn1([](const tensor_list& x) { return x[0].nansum({1}) + x[0].nanmean({0}, true).sum(); }),
     matrices},
    {"var_mean/correction", fn1([](const tensor_list& x) {
       auto [v, m] = ember::var_mean(x[0], {1}, ember::Scalar(2), false);
       return v + m;
     }),
     matrices},
});

}  // namespace
}  // namespace optable
