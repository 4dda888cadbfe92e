// Gradcheck entries of mm, bmm, addmm (beta/alpha, broadcast self), matmul (every 1-D to
// N-D case, broadcast batch dims) and linear (with and without bias, 1-D to 3-D input).
#include "op_table.h"

namespace optable {
namespace {

using ember::Tensor;

Register reg({
    // ---- mm ----
    {"mm", fn1([](const tensor_list& x) { return x[0].mm(x[1]); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 3] x [3, 4]", {input({2, 3}, d), input({3, 4}, d)}},
           {"transposed x stepped",
            {input({3, 2}, d, Layout::Transposed), input({2, 4}, d, Layout::Stepped)}},
           {"stepped x transposed",
            {input({2, 3}, d, Layout::Stepped), input({3, 2}, d, Layout::Transposed)}},
           {"size-1 [1, 3] x [3, 1]", {input({1, 3}, d), input({3, 1}, d)}},
           {"[3, 1] x [1, 2]", {input({3, 1}, d), input({1, 2}, d, Layout::Transposed)}},
           {"constant rhs", {input({2, 3}, d), constant({3, 2}, d)}},
           {"constant lhs", {constant({2, 3}, d), input({3, 2}, d)}}};
     }},
    {"mm/free", fn1([](const tensor_list& x) { return ember::mm(x[0], x[1]); }),
     [](Device d) {
       return std::vector<Sample>{{"[4, 2] x [2, 3]", {input({4, 2}, d), input({2, 3}, d)}}};
     }},

    // ---- bmm ----
    {"bmm", fn1([](const tensor_list& x) { return x[0].bmm(x[1]); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 2, 3] x [2, 3, 2]", {input({2, 2, 3}, d), input({2, 3, 2}, d)}},
           {"transposed x stepped",
            {input({2, 3, 2}, d, Layout::Transposed), input({2, 2, 2}, d, Layout::Stepped)}},
           {"batch transposed",
            {input({3, 2, 2}, d).transpose(1, 2).detach().requires_grad_(), input({3, 2, 1}, d)}},
           {"size-1 [1, 1, 3] x [1, 3, 1]", {input({1, 1, 3}, d), input({1, 3, 1}, d)}},
           {"constant rhs", {input({2, 2, 3}, d), constant({2, 3, 2}, d)}}};
     }},

    // ---- addmm ----
    {"addmm", fn1([](const tensor_list& x) { return ember::addmm(x[0], x[1], x[2]); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 4] + [2, 3] x [3, 4]", {input({2, 4}, d), input({2, 3}, d), input({3, 4}, d)}},
           {"broadcast self [4]",
            {input({4}, d), input({2, 3}, d, Layout::Transposed), input({3, 4}, d)}},
           {"broadcast self [2, 1]",
            {input({2, 1}, d), input({2, 3}, d), input({3, 4}, d, Layout::Stepped)}},
           {"0-dim self", {input({}, d), input({2, 3}, d), input({3, 2}, d, Layout::Transposed)}},
           {"constant mats",
            {input({2, 2}, d, Layout::Transposed), constant({2, 3}, d), constant({3, 2}, d)}}};
     }},
    {"addmm/beta alpha",
     fn1([](const tensor_list& x) { return x[0].addmm(x[1], x[2], 0.5, -2.0); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[3, 2] + [3, 4] x [4, 2]",
            {input({3, 2}, d), input({3, 4}, d), input({4, 2}, d, Layout::Transposed)}},
           {"broadcast self [1, 2]",
            {input({1, 2}, d), input({3, 4}, d, Layout::Stepped), input({4, 2}, d)}}};
     }},
    {"addmm/beta 0",
     fn1([](const tensor_list& x) { return ember::addmm(x[0], x[1], x[2], 0.0, 1.5); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 2] + [2, 3] x [3, 2]", {input({2, 2}, d), input({2, 3}, d), input({3, 2}, d)}}};
     }},

    // ---- matmul: every rank combination ----
    {"matmul", fn1([](const tensor_list& x) { return ember::matmul(x[0], x[1]); }),
     [](Device d) {
       return std::vector<Sample>{
           {"dot [3] x [3]", {input({3}, d), input({3}, d, Layout::Stepped)}},
           {"[2, 3] x [3]", {input({2, 3}, d, Layout::Transposed), input({3}, d)}},
           {"[3] x [3, 2]", {input({3}, d), input({3, 2}, d)}},
           {"[2, 3] x [3, 4]", {input({2, 3}, d), input({3, 4}, d, Layout::Transposed)}},
           {"[2, 2, 3] x [3]", {input({2, 2, 3}, d), input({3}, d)}},
           {"[2, 2, 3] x [3, 2]", {input({2, 2, 3}, d, Layout::Transposed), input({3, 2}, d)}},
           {"[3] x [2, 3, 2]", {input({3}, d, Layout::Stepped), input({2, 3, 2}, d)}},
           {"[2, 3] x [2, 3, 2]", {input({2, 3}, d), input({2, 3, 2}, d, Layout::Stepped)}},
           {"[2, 2, 3] x [2, 3, 2]", {input({2, 2, 3}, d), input({2, 3, 2}, d)}},
           {"broadcast [2, 1, 2, 3] x [3, 3, 2]", {input({2, 1, 2, 3}, d), input({3, 3, 2}, d)}},
           {"broadcast [1, 2, 3] x [2, 1, 3, 2]",
            {input({1, 2, 3}, d, Layout::Transposed), input({2, 1, 3, 2}, d)}},
           {"constant rhs [2, 2, 3] x [3, 2]", {input({2, 2, 3}, d), constant({3, 2}, d)}},
           {"constant lhs [2, 3] x [2, 3, 2]", {constant({2, 3}, d), input({2, 3, 2}, d)}}};
     }},
    {"matmul/method", fn1([](const tensor_list& x) { return x[0].matmul(x[1]); }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3] x [3, 2]", {input({2, 3}, d), input({3, 2}, d)}}};
     }},

    // ---- linear ----
    {"linear/bias", fn1([](const tensor_list& x) { return ember::linear(x[0], x[1], x[2]); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 3] x [4, 3]^T + [4]", {input({2, 3}, d), input({4, 3}, d), input({4}, d)}},
           {"1-D [3]", {input({3}, d), input({2, 3}, d, Layout::Transposed), input({2}, d)}},
           {"3-D [2, 2, 3]",
            {input({2, 2, 3}, d, Layout::Stepped), input({2, 3}, d), input({2}, d)}},
           {"3-D transposed",
            {input({2, 2, 3}, d, Layout::Transposed), input({2, 3}, d), input({2}, d)}},
           {"constant input", {constant({2, 3}, d), input({4, 3}, d), input({4}, d)}}};
     }},
    {"linear/no bias", fn1([](const tensor_list& x) { return ember::linear(x[0], x[1]); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 3] x [4, 3]^T", {input({2, 3}, d), input({4, 3}, d, Layout::Stepped)}},
           {"1-D [3]", {input({3}, d), input({2, 3}, d)}},
           {"3-D [2, 2, 3]", {input({2, 2, 3}, d), input({2, 3}, d, Layout::Transposed)}}};
     }},
});

}  // namespace
}  // namespace optable
