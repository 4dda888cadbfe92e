// Gradcheck entries of softmax/log_softmax, index_select, gather, scatter_add (and
// scatter_add_), cat and stack. Index tensors are inputs that don't require grad.
#include "op_table.h"

namespace optable {
namespace {

using ember::kInt32;
using ember::kInt64;
using ember::Tensor;
using ember::TensorOptions;

Tensor idx(const std::vector<int64_t>& v, Device d) {
  return ember::tensor(v, TensorOptions().dtype(kInt64).device(d));
}
Tensor idx(const std::vector<int64_t>& v, const Shape& shape, Device d) {
  return idx(v, d).reshape(shape);
}
Tensor idx0(int64_t v, Device d) {  // a 0-dim index
  return ember::scalar_tensor(v, TensorOptions().dtype(kInt64).device(d));
}

Register reg({
    // ---- softmax / log_softmax ----
    {"softmax/last dim", fn1([](const tensor_list& x) { return x[0].softmax(-1); }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 4]", {input({3, 4}, d)}},
                                  {"transposed [3, 4]", {input({3, 4}, d, Layout::Transposed)}},
                                  {"stepped [2, 5]", {input({2, 5}, d, Layout::Stepped)}},
                                  {"size-1 softmax dim [4, 1]", {input({4, 1}, d)}},
                                  {"0-dim", {input({}, d)}}};
     }},
    {"softmax/dim 0", fn1([](const tensor_list& x) { return ember::softmax(x[0], 0); }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 4]", {input({3, 4}, d, Layout::Transposed)}},
                                  {"[2, 1, 3]", {input({2, 1, 3}, d)}},
                                  {"[5]", {input({5}, d, Layout::Stepped)}}};
     }},
    {"softmax/dim 1 dtype float64",
     fn1([](const tensor_list& x) { return x[0].softmax(1, ember::kFloat64); }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3, 2]", {input({2, 3, 2}, d)}}};
     }},
    {"log_softmax/last dim", fn1([](const tensor_list& x) { return x[0].log_softmax(-1); }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 4]", {input({3, 4}, d)}},
                                  {"transposed [3, 4]", {input({3, 4}, d, Layout::Transposed)}},
                                  {"stepped [2, 5]", {input({2, 5}, d, Layout::Stepped)}},
                                  {"size-1 dim [4, 1]", {input({4, 1}, d)}},
                                  {"0-dim", {input({}, d)}}};
     }},
    {"log_softmax/dim 0", fn1([](const tensor_list& x) { return ember::log_softmax(x[0], 0); }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 4]", {input({3, 4}, d, Layout::Transposed)}},
                                  {"[2, 1, 3]", {input({2, 1, 3}, d)}},
                                  {"[5]", {input({5}, d, Layout::Stepped)}}};
     }},

    // ---- index_select ----
    {"index_select/dim 1", fn1([](const tensor_list& x) { return x[0].index_select(1, x[1]); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[3, 4] repeated index", {input({3, 4}, d), idx({3, 0, 3, 1}, d)}},
           {"transposed [3, 4]", {input({3, 4}, d, Layout::Transposed), idx({2}, d)}},
           {"0-dim index", {input({2, 3}, d, Layout::Stepped), idx0(1, d)}},
           {"int32 index", {input({2, 3, 2}, d), idx({2, 2, 0}, d).to(kInt32)}},
           {"empty index", {input({2, 3}, d), idx({}, d)}}};
     }},
    {"index_select/dim 0",
     fn1([](const tensor_list& x) { return ember::index_select(x[0], 0, x[1]); }),
     [](Device d) {
       return std::vector<Sample>{{"[5]", {input({5}, d, Layout::Stepped), idx({4, 1, 1}, d)}},
                                  {"[1, 3]", {input({1, 3}, d), idx({0, 0}, d)}},
                                  {"0-dim", {input({}, d), idx({0}, d)}}};
     }},

    // ---- gather ----
    {"gather/dim 1", fn1([](const tensor_list& x) { return x[0].gather(1, x[1]); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[3, 4] index [3, 2]", {input({3, 4}, d), idx({3, 3, 0, 1, 2, 3}, {3, 2}, d)}},
           {"transposed [3, 4], index [2, 5]",
            {input({3, 4}, d, Layout::Transposed), idx({0, 1, 2, 3, 0, 3, 3, 1, 1, 2}, {2, 5}, d)}},
           {"stepped [2, 3, 2]",
            {input({2, 3, 2}, d, Layout::Stepped), idx({2, 0, 1, 1, 0, 0, 2, 2}, {2, 2, 2}, d)}}};
     }},
    {"gather/dim 0", fn1([](const tensor_list& x) { return ember::gather(x[0], 0, x[1]); }),
     [](Device d) {
       return std::vector<Sample>{{"[4]", {input({4}, d), idx({3, 3, 0}, d)}},
                                  {"[1, 3]", {input({1, 3}, d), idx({0, 0}, {2, 1}, d)}},
                                  {"0-dim", {input({}, d), idx0(0, d)}}};
     }},

    // ---- scatter_add: inputs {self, src, index} ----
    {"scatter_add/dim 1", fn1([](const tensor_list& x) { return x[0].scatter_add(1, x[2], x[1]); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[3, 4] src [3, 3]",
            {input({3, 4}, d), input({3, 3}, d), idx({0, 0, 3, 1, 2, 1, 3, 3, 3}, {3, 3}, d)}},
           {"transposed self, index smaller than src",
            {input({3, 4}, d, Layout::Transposed), input({4, 5}, d, Layout::Stepped),
             idx({1, 1, 0, 2, 3, 3}, {3, 2}, d)}},
           {"constant self", {constant({2, 3}, d), input({2, 2}, d), idx({2, 2, 0, 1}, {2, 2}, d)}},
           {"constant src", {input({2, 3}, d), constant({2, 2}, d), idx({2, 2, 0, 1}, {2, 2}, d)}}};
     }},
    {"scatter_add/dim 0",
     fn1([](const tensor_list& x) { return ember::scatter_add(x[0], 0, x[2], x[1]); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[4] src [5]", {input({4}, d), input({5}, d), idx({3, 0, 3, 3, 1}, d)}},
           {"[2, 3] src [3, 1]", {input({2, 3}, d), input({3, 1}, d), idx({1, 1, 0}, {3, 1}, d)}},
           {"0-dim", {input({}, d), input({}, d), idx0(0, d)}}};
     }},
    {"scatter_add_/dim 1", fn1([](const tensor_list& x) {
       Tensor y = x[0] * 1;
       y.scatter_add_(1, x[2], x[1]);
       return y;
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[3, 4] src [3, 3]",
            {input({3, 4}, d), input({3, 3}, d), idx({0, 0, 3, 1, 2, 1, 3, 3, 3}, {3, 3}, d)}},
           {"index smaller than src",
            {input({3, 4}, d, Layout::Transposed), input({4, 5}, d),
             idx({1, 1, 0, 2, 3, 3}, {3, 2}, d)}},
           {"constant self (only src records)",
            {constant({2, 3}, d), input({2, 2}, d, Layout::Transposed),
             idx({2, 2, 0, 1}, {2, 2}, d)}}};
     }},

    // ---- cat / stack ----
    {"cat/dim 1", fn1([](const tensor_list& x) {
       return ember::cat({x[0], x[1], x[2]}, 1);
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 3] [2, 1] [2, 2]",
            {input({2, 3}, d), input({2, 1}, d, Layout::Transposed),
             input({2, 2}, d, Layout::Stepped)}},
           {"a constant in the middle", {input({2, 2}, d), constant({2, 3}, d), input({2, 1}, d)}},
           {"size 0 along dim", {input({3, 1}, d), input({3, 0}, d), input({3, 2}, d)}}};
     }},
    {"cat/dim 0", fn1([](const tensor_list& x) {
       return ember::cat({x[0], x[1]}, 0);
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2] [3]", {input({2}, d), input({3}, d, Layout::Stepped)}},
           {"[1, 3] [2, 3]", {input({1, 3}, d), input({2, 3}, d, Layout::Transposed)}},
           {"skipped [0] input", {input({0}, d), input({2, 2}, d)}}};
     }},
    {"cat/one input last dim", fn1([](const tensor_list& x) { return ember::cat({x[0]}, -1); }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3]", {input({2, 3}, d, Layout::Transposed)}}};
     }},
    {"stack/dim 1", fn1([](const tensor_list& x) {
       return ember::stack({x[0], x[1]}, 1);
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 3] x2", {input({2, 3}, d), input({2, 3}, d, Layout::Transposed)}},
           {"[1] x2", {input({1}, d), input({1}, d)}}};
     }},
    {"stack/dim 0", fn1([](const tensor_list& x) {
       return ember::stack({x[0], x[1], x[0]}, 0);
     }),
     [](Device d) {
       return std::vector<Sample>{{"0-dim x2", {input({}, d), input({}, d)}},
                                  {"[3] stepped", {input({3}, d, Layout::Stepped), input({3}, d)}}};
     }},
    {"stack/last dim", fn1([](const tensor_list& x) {
       return ember::stack({x[0], x[1]}, -1);
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 2]", {input({2, 2}, d), input({2, 2}, d, Layout::Stepped)}}};
     }},
});

}  // namespace
}  // namespace optable
