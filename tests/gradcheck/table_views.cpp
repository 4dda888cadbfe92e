// Gradcheck entries of the view ops (view, reshape, flatten, squeeze, unsqueeze, t,
// transpose, permute, expand, slice, narrow, select, chunk/split/unbind, as_strided) and
// of the copies (clone, contiguous, to, copy_).
#include "op_table.h"

namespace optable {
namespace {

using ember::kFloat64;
using ember::Tensor;
using ember::TensorOptions;

Tensor constant64(const Shape& shape, Device d) { return constant(shape, d); }

Register reg({
    // ---- view / reshape / flatten ----
    {"view", fn1([](const tensor_list& x) {
       return x[0].view({3, -1});
     }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3]", {input({2, 3}, d)}},
                                  {"[1, 6, 1]", {input({1, 6, 1}, d)}},
                                  {"stepped [6]", {input({6}, d, Layout::Stepped)}}};
     }},
    {"view/0-dim", fn1([](const tensor_list& x) {
       return x[0].view({1, 1}).view({});
     }),
     [](Device d) {
       return std::vector<Sample>{{"0-dim", {input({}, d)}}};
     }},
    {"view/of a transposed view", fn1([](const tensor_list& x) {
       return x[0].t().view({2, 1, 3}) * x[0].t().view({2, 1, 3});
     }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 2]", {input({3, 2}, d)}}};
     }},
    {"view_as", fn1([](const tensor_list& x) { return x[0].view_as(x[1]); }),
     [](Device d) {
       return std::vector<Sample>{{"[6] as [3, 2]", {input({6}, d), constant64({3, 2}, d)}}};
     }},
    {"reshape/view", fn1([](const tensor_list& x) {
       return x[0].reshape({-1, 2});
     }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3, 2]", {input({2, 3, 2}, d)}},
                                  {"stepped [4]", {input({4}, d, Layout::Stepped)}}};
     }},
    {"reshape/copy", fn1([](const tensor_list& x) { return x[0].reshape({-1}); }),
     [](Device d) {
       return std::vector<Sample>{{"transposed [2, 3]", {input({2, 3}, d, Layout::Transposed)}},
                                  {"stepped [2, 3]", {input({2, 3}, d, Layout::Stepped)}},
                                  {"0-dim", {input({}, d)}}};
     }},
    {"reshape_as", fn1([](const tensor_list& x) { return x[0].reshape_as(x[1]); }),
     [](Device d) {
       return std::vector<Sample>{{"transposed [2, 3] as [3, 2]",
                                   {input({2, 3}, d, Layout::Transposed), constant64({3, 2}, d)}}};
     }},
    {"flatten", fn1([](const tensor_list& x) { return x[0].flatten(); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 3, 2]", {input({2, 3, 2}, d)}},
           {"transposed [2, 3, 2]", {input({2, 3, 2}, d, Layout::Transposed)}},
           {"0-dim", {input({}, d)}}};
     }},
    {"flatten/dims", fn1([](const tensor_list& x) { return ember::flatten(x[0], 1, -1); }),
     [](Device d) {
       return std::vector<Sample>{{"stepped [2, 3, 2]", {input({2, 3, 2}, d, Layout::Stepped)}}};
     }},
    {"flatten/start == end", fn1([](const tensor_list& x) { return x[0].flatten(1, 1); }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3]", {input({2, 3}, d)}}};
     }},

    // ---- squeeze / unsqueeze ----
    {"squeeze", fn1([](const tensor_list& x) { return x[0].squeeze(); }),
     [](Device d) {
       return std::vector<Sample>{{"[1, 3, 1, 2]", {input({1, 3, 1, 2}, d)}},
                                  {"stepped [2, 1]", {input({2, 1}, d, Layout::Stepped)}},
                                  {"[1]", {input({1}, d)}},
                                  {"0-dim", {input({}, d)}}};
     }},
    {"squeeze/dim", fn1([](const tensor_list& x) { return ember::squeeze(x[0], 1); }),
     [](Device d) {
       return std::vector<Sample>{
           {"size-1 dim [3, 1, 2]", {input({3, 1, 2}, d, Layout::Transposed)}},
           {"not size 1 [3, 2]", {input({3, 2}, d)}}};
     }},
    {"squeeze/negative dim", fn1([](const tensor_list& x) { return x[0].squeeze(-1); }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 1]", {input({3, 1}, d, Layout::Stepped)}},
                                  {"0-dim", {input({}, d)}}};
     }},
    {"unsqueeze", fn1([](const tensor_list& x) { return x[0].unsqueeze(1); }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3]", {input({2, 3}, d, Layout::Transposed)}},
                                  {"[3]", {input({3}, d, Layout::Stepped)}}};
     }},
    {"unsqueeze/negative dim", fn1([](const tensor_list& x) { return ember::unsqueeze(x[0], -1); }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3]", {input({2, 3}, d)}}, {"0-dim", {input({}, d)}}};
     }},

    // ---- t / transpose / permute ----
    {"t", fn1([](const tensor_list& x) { return x[0].t(); }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3]", {input({2, 3}, d)}},
                                  {"transposed [2, 3]", {input({2, 3}, d, Layout::Transposed)}},
                                  {"[3]", {input({3}, d)}},
                                  {"0-dim", {input({}, d)}}};
     }},
    {"t/twice in a product", fn1([](const tensor_list& x) { return x[0].t() * x[1]; }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 3] [3, 2]", {input({2, 3}, d), input({3, 2}, d, Layout::Stepped)}}};
     }},
    {"transpose", fn1([](const tensor_list& x) { return x[0].transpose(0, 2); }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3, 2]", {input({2, 3, 2}, d)}},
                                  {"stepped [2, 1, 3]", {input({2, 1, 3}, d, Layout::Stepped)}}};
     }},
    {"transpose/negative and same dims",
     fn1([](const tensor_list& x) { return ember::transpose(x[0], -1, 1).transpose(1, 1); }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3, 2]", {input({2, 3, 2}, d, Layout::Transposed)}}};
     }},
    {"permute", fn1([](const tensor_list& x) {
       return x[0].permute({2, 0, 1});
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 3, 2]", {input({2, 3, 2}, d)}},
           {"transposed [2, 1, 3]", {input({2, 1, 3}, d, Layout::Transposed)}}};
     }},
    {"permute/negative dims", fn1([](const tensor_list& x) {
       return ember::permute(x[0], {-1, 0});
     }),
     [](Device d) {
       return std::vector<Sample>{{"stepped [2, 3]", {input({2, 3}, d, Layout::Stepped)}}};
     }},

    // ---- expand ----
    {"expand", fn1([](const tensor_list& x) {
       return x[0].expand({2, 3, 4});
     }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 1]", {input({3, 1}, d)}},
                                  {"stepped [4]", {input({4}, d, Layout::Stepped)}},
                                  {"[1, 1, 4]", {input({1, 1, 4}, d)}},
                                  {"0-dim", {input({}, d)}}};
     }},
    {"expand/-1 and a product", fn1([](const tensor_list& x) {
       return x[0].expand({-1, 3}) * x[1];
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 1] x [2, 3]", {input({2, 1}, d, Layout::Transposed), input({2, 3}, d)}}};
     }},
    {"expand_as", fn1([](const tensor_list& x) { return x[0].expand_as(x[1]); }),
     [](Device d) {
       return std::vector<Sample>{{"[3] as [2, 3]", {input({3}, d), constant64({2, 3}, d)}}};
     }},

    // ---- slice / narrow / select / operator[] ----
    {"slice", fn1([](const tensor_list& x) { return x[0].slice(0, 1); }),
     [](Device d) {
       return std::vector<Sample>{{"[4, 2]", {input({4, 2}, d)}},
                                  {"transposed [3, 2]", {input({3, 2}, d, Layout::Transposed)}}};
     }},
    {"slice/step", fn1([](const tensor_list& x) { return x[0].slice(1, 1, std::nullopt, 2); }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 6]", {input({2, 6}, d)}},
                                  {"[2, 5]", {input({2, 5}, d, Layout::Stepped)}},
                                  {"one element [2, 2]", {input({2, 2}, d)}}};
     }},
    {"slice/step 3 negative bounds",
     fn1([](const tensor_list& x) { return x[0].slice(-1, -7, -1, 3); }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 9]", {input({2, 9}, d, Layout::Transposed)}}};
     }},
    {"slice/clamped end", fn1([](const tensor_list& x) { return x[0].slice(0, 2, 100); }),
     [](Device d) {
       return std::vector<Sample>{{"[5]", {input({5}, d, Layout::Stepped)}}};
     }},
    {"slice/whole", fn1([](const tensor_list& x) { return x[0].slice(); }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 2]", {input({3, 2}, d)}}};
     }},
    {"slice/empty", fn1([](const tensor_list& x) {
       return x[0].slice(0, 2, 2).sum() + x[0].slice(0, 1, 2).sum();
     }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 2]", {input({3, 2}, d)}}};
     }},
    {"slice/twice", fn1([](const tensor_list& x) {
       return x[0].slice(0, 1).slice(1, 0, 2) * x[0].slice(0, 0, 2).slice(1, 1);
     }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 3]", {input({3, 3}, d, Layout::Stepped)}}};
     }},
    {"narrow", fn1([](const tensor_list& x) { return x[0].narrow(1, 1, 2); }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 4]", {input({2, 4}, d)}},
                                  {"transposed [2, 3]", {input({2, 3}, d, Layout::Transposed)}}};
     }},
    {"narrow/negative start",
     fn1([](const tensor_list& x) { return ember::narrow(x[0], 0, -2, 2); }),
     [](Device d) {
       return std::vector<Sample>{{"stepped [4, 2]", {input({4, 2}, d, Layout::Stepped)}}};
     }},
    {"select", fn1([](const tensor_list& x) { return x[0].select(1, 1); }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3, 2]", {input({2, 3, 2}, d)}},
                                  {"transposed [3, 2]", {input({3, 2}, d, Layout::Transposed)}}};
     }},
    {"select/negative index to 0-dim",
     fn1([](const tensor_list& x) { return ember::select(x[0], 0, -1); }),
     [](Device d) {
       return std::vector<Sample>{{"[4]", {input({4}, d, Layout::Stepped)}},
                                  {"[1]", {input({1}, d)}}};
     }},
    {"operator[]", fn1([](const tensor_list& x) { return x[0][1] * x[0][0]; }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 2]", {input({3, 2}, d, Layout::Transposed)}}};
     }},

    // ---- chunk / split / unbind (several outputs, each its own node) ----
    {"chunk", [](const tensor_list& x) { return x[0].chunk(3, 1); },
     [](Device d) {
       return std::vector<Sample>{{"[2, 5]", {input({2, 5}, d)}},
                                  {"stepped [2, 6]", {input({2, 6}, d, Layout::Stepped)}}};
     }},
    {"split", [](const tensor_list& x) { return ember::split(x[0], 2, 0); },
     [](Device d) {
       return std::vector<Sample>{{"transposed [5, 2]", {input({5, 2}, d, Layout::Transposed)}}};
     }},
    {"unbind", [](const tensor_list& x) { return x[0].unbind(-1); },
     [](Device d) {
       return std::vector<Sample>{{"[2, 3]", {input({2, 3}, d)}},
                                  {"stepped [3, 2]", {input({3, 2}, d, Layout::Stepped)}}};
     }},
    {"unbind/summed back", fn1([](const tensor_list& x) {
       auto parts = x[0].unbind(0);
       return parts[0] * parts[1] + parts[2];
     }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 2]", {input({3, 2}, d)}}};
     }},

    // ---- as_strided ----
    {"as_strided", fn1([](const tensor_list& x) {
       return x[0].as_strided({2, 2}, {1, 2}, 1);
     }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 3]", {input({3, 3}, d)}}};
     }},
    {"as_strided/overlapping output", fn1([](const tensor_list& x) {
       return x[0].as_strided({3, 3}, {1, 1}, 0);
     }),
     [](Device d) {
       return std::vector<Sample>{{"[6]", {input({6}, d)}}};
     }},
    {"as_strided/default offset of a view", fn1([](const tensor_list& x) {
       Tensor v = x[0].slice(0, 1);  // offset into x's storage
       return v.as_strided({2, 3}, {1, 2});
     }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 3]", {input({3, 3}, d)}}};
     }},
    {"as_strided/non-contiguous input", fn1([](const tensor_list& x) {
       // Geometry in x's own storage: transposed [2, 3] has strides [1, 2]; stepped [2, 3]
       // has strides [12, 2] in a 4x6 storage.
       return x[0].as_strided({3, 2}, {2, 1}, 0);
     }),
     [](Device d) {
       return std::vector<Sample>{{"transposed [2, 3]", {input({2, 3}, d, Layout::Transposed)}}};
     }},
    {"as_strided/stepped input", fn1([](const tensor_list& x) {
       return x[0].as_strided({2, 2}, {12, 4}, 2);
     }),
     [](Device d) {
       return std::vector<Sample>{{"stepped [2, 3]", {input({2, 3}, d, Layout::Stepped)}}};
     }},
    {"as_strided/overlapping input (expanded)", fn1([](const tensor_list& x) {
       return x[0].expand({2, 3}).as_strided({2, 2}, {1, 1}, 0);
     }),
     [](Device d) {
       return std::vector<Sample>{{"[3]", {input({3}, d)}}};
     }},
    {"as_strided/0-dim output",
     fn1([](const tensor_list& x) { return x[0].as_strided({}, {}, 2); }),
     [](Device d) {
       return std::vector<Sample>{{"[4]", {input({4}, d)}}};
     }},

    // ---- copies ----
    {"clone", fn1([](const tensor_list& x) { return x[0].clone(); }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3]", {input({2, 3}, d)}},
                                  {"transposed [2, 3]", {input({2, 3}, d, Layout::Transposed)}},
                                  {"0-dim", {input({}, d)}}};
     }},
    {"clone/free function", fn1([](const tensor_list& x) { return ember::clone(x[0]) * x[0]; }),
     [](Device d) {
       return std::vector<Sample>{{"stepped [3]", {input({3}, d, Layout::Stepped)}}};
     }},
    {"contiguous", fn1([](const tensor_list& x) { return x[0].contiguous() * 2; }),
     [](Device d) {
       return std::vector<Sample>{{"contiguous [2, 3]", {input({2, 3}, d)}},
                                  {"transposed [2, 3]", {input({2, 3}, d, Layout::Transposed)}},
                                  {"stepped [2, 3]", {input({2, 3}, d, Layout::Stepped)}}};
     }},
    {"to/dtype copy",
     fn1([](const tensor_list& x) { return x[0].to(kFloat64, false, /*copy=*/true); }),
     [](Device d) {
       return std::vector<Sample>{{"transposed [2, 3]", {input({2, 3}, d, Layout::Transposed)}},
                                  {"0-dim", {input({}, d)}}};
     }},
    {"to/device copy",
     fn1([](const tensor_list& x) { return x[0].to(x[0].device(), false, true); }),
     [](Device d) {
       return std::vector<Sample>{{"[3]", {input({3}, d, Layout::Stepped)}}};
     }},
    {"to/options copy", fn1([](const tensor_list& x) {
       return x[0].to(TensorOptions().dtype(kFloat64), false, true) * x[0];
     }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 2]", {input({2, 2}, d)}}};
     }},
    {"to/no-op", fn1([](const tensor_list& x) { return x[0].to(kFloat64) * 3; }),
     [](Device d) {
       return std::vector<Sample>{{"[3]", {input({3}, d)}}};
     }},
    {"copy_", fn1([](const tensor_list& x) {
       Tensor y = x[0] * 1;
       y.copy_(x[1]);
       return y;
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"same shape", {input({2, 3}, d), input({2, 3}, d, Layout::Transposed)}},
           {"broadcast src", {input({2, 3}, d), input({3}, d, Layout::Stepped)}},
           {"size-1 src dims", {input({2, 3}, d, Layout::Stepped), input({2, 1}, d)}},
           {"0-dim src", {input({2}, d), input({}, d)}}};
     }},
    {"copy_/into a constant", fn1([](const tensor_list& x) {
       Tensor y = ember::zeros({2, 3}, x[0].options());
       y.copy_(x[0]);
       return y * x[0];
     }),
     [](Device d) {
       return std::vector<Sample>{{"[3]", {input({3}, d)}}};
     }},
    {"copy_/src without grad", fn1([](const tensor_list& x) {
       Tensor y = x[0] * 1;
       y.copy_(x[1]);
       return y + x[0];
     }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 2]", {input({2, 2}, d), constant64({2, 2}, d)}}};
     }},
});

}  // namespace
}  // namespace optable
