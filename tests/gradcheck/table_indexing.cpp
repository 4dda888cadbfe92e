// Gradcheck entries of tensor indexing (index with ints, slices, None, Ellipsis, index tensors
// and masks; index_put_/index_put with and without accumulate), masked_select/scatter/fill.
#include "op_table.h"

namespace optable {
namespace {

using ember::kInt64;
using ember::Tensor;
using ember::TensorOptions;
using ember::indexing::Ellipsis;
using ember::indexing::None;
using ember::indexing::Slice;

Tensor idx(const std::vector<int64_t>& v, Device d) {
  return ember::tensor(v, TensorOptions().dtype(kInt64).device(d));
}
Tensor mask(const std::vector<int64_t>& v, const Shape& shape, Device d) {
  return idx(v, d).reshape(shape).ne(0);
}

// x.index({i}) for a 1-D i, naively: row i (counted from the end when negative) of x.
tensor_list rows_reference(const tensor_list& in) {
  const Tensor x = in[0].contiguous(), i = in[1].contiguous();
  const int64_t n = x.size(0), row = n == 0 ? 0 : x.numel() / n;
  const double* src = x.data_ptr<double>();
  const int64_t* at = i.data_ptr<int64_t>();
  std::vector<double> out;
  for (int64_t k = 0; k < i.numel(); ++k) {
    const int64_t r = at[k] < 0 ? at[k] + n : at[k];
    out.insert(out.end(), src + r * row, src + (r + 1) * row);
  }
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  shape[0] = i.numel();
  return {ember::tensor(out, ember::kFloat64).reshape(shape)};
}

Register reg({
    // ---- index: basic (views) ----
    {"index/slice int", fn1([](const tensor_list& x) {
       return x[0].index({Slice(), 1});
     }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 4]", {input({3, 4}, d)}},
                                  {"transposed [3, 4]", {input({3, 4}, d, Layout::Transposed)}}};
     }},
    {"index/step None Ellipsis", fn1([](const tensor_list& x) {
       return x[0].index({Slice(1, None, 2), None, Ellipsis, -1});
     }),
     [](Device d) {
       return std::vector<Sample>{{"[5, 2, 3]", {input({5, 2, 3}, d)}},
                                  {"stepped [4, 3]", {input({4, 3}, d, Layout::Stepped)}}};
     }},
    // ---- index: advanced ----
    {"index/one tensor", fn1([](const tensor_list& x) { return x[0].index({x[1]}); }),
     [](Device d) {
       return std::vector<Sample>{{"[4, 3] repeated", {input({4, 3}, d), idx({3, -1, 0, 3}, d)}},
                                  {"[5]", {input({5}, d, Layout::Stepped), idx({4, -5, 1, 1}, d)}}};
     },
     true, 1e-5, 1e-3, rows_reference},
    {"index/two tensors separated", fn1([](const tensor_list& x) {
       return x[0].index({x[1], Slice(), x[2]});
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 3, 4]", {input({2, 3, 4}, d), idx({0, 1, 1}, d), idx({3, 0, 3}, d)}},
           {"broadcast", {input({2, 3, 4}, d, Layout::Transposed), idx({1}, d), idx({2, 2}, d)}}};
     }},
    {"index/adjacent tensors after a slice", fn1([](const tensor_list& x) {
       return x[0].index({Slice(), x[1], x[2]});
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 3, 4]", {input({2, 3, 4}, d), idx({0, 2}, d).reshape({2, 1}), idx({1, 3}, d)}}};
     }},
    {"index/mask", fn1([](const tensor_list& x) { return x[0].index({x[1]}); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 3] mask [2, 3]", {input({2, 3}, d), mask({1, 0, 1, 1, 0, 0}, {2, 3}, d)}},
           {"[3, 2] mask [3]", {input({3, 2}, d), mask({0, 1, 1}, {3}, d)}}};
     }},
    // ---- index_put ----
    {"index_put_/values tensor", fn1([](const tensor_list& x) {
       Tensor y = x[0] * 1;
       y.index_put_({x[2]}, x[1]);
       return y;
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"rows", {input({4, 3}, d), input({2, 3}, d), idx({3, 1}, d)}},
           {"repeated (last wins)", {input({4}, d), input({3}, d), idx({1, 2, 1}, d)}},
           {"broadcast value", {input({4, 3}, d), input({3}, d), idx({0, 2}, d)}}};
     }},
    {"index_put_/basic", fn1([](const tensor_list& x) {
       Tensor y = x[0] * 1;
       y.index_put_({Slice(), 0}, x[1]);
       return y;
     }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 2]", {input({3, 2}, d), input({3}, d)}}};
     }},
    {"index_put_/mask scalar", fn1([](const tensor_list& x) {
       Tensor y = x[0] * 1;
       y.index_put_({x[0] > 0}, 0.5);
       return y;
     }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3]", {input({2, 3}, d, Layout::Contiguous, -2, 2, 0.1)}}};
     }},
    {"index_put/accumulate", fn1([](const tensor_list& x) {
       return x[0].index_put({x[2], std::nullopt}, x[1], true);
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"repeated", {input({3, 2}, d), input({4, 2}, d), idx({2, 0, 2, 2}, d)}}};
     }},
    // ---- masked ops ----
    {"masked_select", fn1([](const tensor_list& x) { return x[0].masked_select(x[1]); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 3]", {input({2, 3}, d), mask({1, 0, 1, 1, 0, 1}, {2, 3}, d)}},
           {"broadcast mask", {input({2, 3}, d, Layout::Transposed), mask({0, 1, 1}, {3}, d)}}};
     }},
    {"masked_scatter", fn1([](const tensor_list& x) { return x[0].masked_scatter(x[2], x[1]); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 3]", {input({2, 3}, d), input({5}, d), mask({1, 0, 1, 1, 0, 1}, {2, 3}, d)}}};
     }},
    {"masked_fill/tensor value",
     fn1([](const tensor_list& x) { return x[0].masked_fill(x[2], x[1]); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 3]", {input({2, 3}, d), input({}, d), mask({1, 0, 1, 1, 0, 1}, {2, 3}, d)}}};
     }},
});

}  // namespace
}  // namespace optable
