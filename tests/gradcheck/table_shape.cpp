// Gradcheck entries of the shape ops (core/ops_shape.cpp): flip, roll, rot90, tril/triu,
// diag/diagonal/diag_embed, repeat, repeat_interleave, tile, meshgrid, movedim, broadcast_*,
// unflatten, squeeze(dims), mT, the stacks, split(sizes), narrow_copy and the in-place views.
#include "op_table.h"

namespace optable {
namespace {

using ember::Tensor;

std::vector<Sample> one(const std::string& desc, Tensor x) { return {{desc, {std::move(x)}}}; }

Register reg({
    // ---- flip, roll, rot90 ----
    {"flip", fn1([](const tensor_list& x) {
       return x[0].flip({0, -1});
     }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 2, 4]", {input({3, 2, 4}, d)}},
                                  {"transposed [3, 4]", {input({3, 4}, d, Layout::Transposed)}}};
     }},
    {"fliplr", fn1([](const tensor_list& x) { return x[0].fliplr(); }),
     [](Device d) {
       return one("stepped [2, 3]", input({2, 3}, d, Layout::Stepped));
     }},
    {"roll", fn1([](const tensor_list& x) {
       return x[0].roll({1, -3}, {0, 2});
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[3, 2, 4]", {input({3, 2, 4}, d)}},
           {"transposed [2, 2, 3]", {input({2, 2, 3}, d, Layout::Transposed)}}};
     }},
    {"roll/flattened", fn1([](const tensor_list& x) { return ember::roll(x[0], 2); }),
     [](Device d) {
       return one("transposed [3, 2]", input({3, 2}, d, Layout::Transposed));
     }},
    {"rot90", fn1([](const tensor_list& x) { return x[0].rot90(1) * x[0].rot90(-1); }),
     [](Device d) {
       return one("[3, 3]", input({3, 3}, d));
     }},

    // ---- triangles and diagonals ----
    {"tril", fn1([](const tensor_list& x) { return x[0].tril(); }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 4]", {input({3, 4}, d)}},
                                  {"stepped [2, 3, 2]", {input({2, 3, 2}, d, Layout::Stepped)}}};
     }},
    {"tril/diagonal -1", fn1([](const tensor_list& x) { return ember::tril(x[0], -1); }),
     [](Device d) {
       return one("[4, 3]", input({4, 3}, d));
     }},
    {"triu", fn1([](const tensor_list& x) { return x[0].triu(1); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[3, 4]", {input({3, 4}, d)}},
           {"transposed [2, 3, 3]", {input({2, 3, 3}, d, Layout::Transposed)}}};
     }},
    {"tril_/of a non-leaf", fn1([](const tensor_list& x) {
       Tensor y = x[0] * 1;
       return y.tril_(1);
     }),
     [](Device d) {
       return one("[3, 3]", input({3, 3}, d));
     }},
    {"diagonal", fn1([](const tensor_list& x) { return x[0].diagonal(1, -1, 0); }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 4, 2]", {input({3, 4, 2}, d)}},
                                  {"transposed [4, 3]", {input({4, 3}, d, Layout::Transposed)}}};
     }},
    {"diagonal/negative offset",
     fn1([](const tensor_list& x) { return ember::diagonal(x[0], -1); }),
     [](Device d) {
       return one("stepped [4, 3]", input({4, 3}, d, Layout::Stepped));
     }},
    {"diag/vector", fn1([](const tensor_list& x) { return x[0].diag(1); }),
     [](Device d) { return one("[3]", input({3}, d)); }},
    {"diag/matrix", fn1([](const tensor_list& x) { return ember::diag(x[0], -1); }),
     [](Device d) {
       return one("transposed [3, 4]", input({3, 4}, d, Layout::Transposed));
     }},
    {"diag_embed", fn1([](const tensor_list& x) { return x[0].diag_embed(-1, 0, 2); }),
     [](Device d) {
       return one("[2, 3]", input({2, 3}, d));
     }},

    // ---- repeat, tile, repeat_interleave ----
    {"repeat", fn1([](const tensor_list& x) {
       return x[0].repeat({2, 1, 3});
     }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3]", {input({2, 3}, d)}},
                                  {"transposed [2, 2]", {input({2, 2}, d, Layout::Transposed)}}};
     }},
    {"tile", fn1([](const tensor_list& x) { return x[0].tile({2}); }),
     [](Device d) {
       return one("[2, 3]", input({2, 3}, d));
     }},
    {"repeat_interleave/int",
     fn1([](const tensor_list& x) { return x[0].repeat_interleave(2, 1); }),
     [](Device d) {
       return one("stepped [2, 3]", input({2, 3}, d, Layout::Stepped));
     }},
    {"repeat_interleave/flattened",
     fn1([](const tensor_list& x) { return x[0].repeat_interleave(3); }),
     [](Device d) {
       return one("transposed [2, 2]", input({2, 2}, d, Layout::Transposed));
     }},
    {"repeat_interleave/tensor", fn1([](const tensor_list& x) {
       Tensor reps = ember::tensor({2, 0, 1}).to(x[0].device());
       return x[0].repeat_interleave(reps, 0);
     }),
     [](Device d) {
       return one("[3, 2]", input({3, 2}, d));
     }},

    // ---- meshgrid, broadcasting ----
    {"meshgrid",
     [](const tensor_list& x) {
       return ember::meshgrid({x[0], x[1]}, "xy");
     },
     [](Device d) {
       return std::vector<Sample>{{"[3] and [2]", {input({3}, d), input({2}, d)}}};
     }},
    {"broadcast_tensors",
     [](const tensor_list& x) {
       return ember::broadcast_tensors({x[0], x[1]});
     },
     [](Device d) {
       return std::vector<Sample>{{"[3, 1] and [2]", {input({3, 1}, d), input({2}, d)}}};
     }},
    {"broadcast_to", fn1([](const tensor_list& x) {
       return x[0].broadcast_to({2, 3, 2});
     }),
     [](Device d) {
       return one("[3, 1]", input({3, 1}, d));
     }},

    // ---- views ----
    {"movedim", fn1([](const tensor_list& x) {
       return x[0].movedim({0, 1}, {2, 0});
     }),
     [](Device d) {
       return one("[2, 3, 4]", input({2, 3, 4}, d));
     }},
    {"swapaxes", fn1([](const tensor_list& x) { return x[0].swapaxes(0, -1) * 2; }),
     [](Device d) {
       return one("[2, 3]", input({2, 3}, d));
     }},
    {"unflatten", fn1([](const tensor_list& x) {
       return x[0].unflatten(1, {2, -1});
     }),
     [](Device d) {
       return one("transposed [2, 6]", input({2, 6}, d, Layout::Transposed));
     }},
    {"squeeze/dims", fn1([](const tensor_list& x) {
       return x[0].squeeze({0, 2});
     }),
     [](Device d) {
       return one("[1, 3, 1, 1]", input({1, 3, 1, 1}, d));
     }},
    {"mT", fn1([](const tensor_list& x) { return x[0].mT(); }),
     [](Device d) {
       return one("[2, 3, 2]", input({2, 3, 2}, d));
     }},
    {"T", fn1([](const tensor_list& x) { return x[0].T(); }),
     [](Device d) {
       return one("[2, 3, 2]", input({2, 3, 2}, d));
     }},
    {"split/sizes",
     [](const tensor_list& x) {
       return x[0].split({1, 3}, 1);
     },
     [](Device d) {
       return one("[2, 4]", input({2, 4}, d));
     }},
    {"narrow_copy", fn1([](const tensor_list& x) { return x[0].narrow_copy(1, 1, 2); }),
     [](Device d) {
       return one("[3, 4]", input({3, 4}, d));
     }},
    {"t_/of a non-leaf", fn1([](const tensor_list& x) {
       Tensor y = x[0] * 2;
       y.t_();
       return y * ember::arange(6, x[0].options()).view({3, 2});
     }),
     [](Device d) {
       return one("[2, 3]", input({2, 3}, d));
     }},
    {"unsqueeze_ squeeze_/of a non-leaf", fn1([](const tensor_list& x) {
       Tensor y = x[0].exp();
       y.unsqueeze_(1);
       y.squeeze_({1});
       return y;
     }),
     [](Device d) { return one("[3]", input({3}, d)); }},

    // ---- stacks ----
    {"hstack", fn1([](const tensor_list& x) {
       return ember::hstack({x[0], x[1]});
     }),
     [](Device d) {
       return std::vector<Sample>{{"[2] and [3]", {input({2}, d), input({3}, d)}}};
     }},
    {"vstack", fn1([](const tensor_list& x) {
       return ember::vstack({x[0], x[1]});
     }),
     [](Device d) {
       return std::vector<Sample>{{"[3] and [2, 3]", {input({3}, d), input({2, 3}, d)}}};
     }},
    {"dstack", fn1([](const tensor_list& x) {
       return ember::dstack({x[0], x[1]});
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 3] and [2, 3, 2]", {input({2, 3}, d), input({2, 3, 2}, d)}}};
     }},
    {"column_stack", fn1([](const tensor_list& x) {
       return ember::column_stack({x[0], x[1]});
     }),
     [](Device d) {
       return std::vector<Sample>{{"[3] and [3, 2]", {input({3}, d), input({3, 2}, d)}}};
     }},
});

}  // namespace
}  // namespace optable
