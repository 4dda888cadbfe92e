// Gradcheck entries of the linear-algebra composites (dot ... einsum, trace, kron, tensordot,
// cross, the linalg norms) and of the scatter family (scatter, scatter_reduce,
// index_add/fill/copy).
#include <limits>

#include "op_table.h"

namespace optable {
namespace {

using ember::kInt64;
using ember::Tensor;
using ember::TensorOptions;

Tensor idx(const std::vector<int64_t>& v, const Shape& shape, Device d) {
  return ember::tensor(v, TensorOptions().dtype(kInt64).device(d)).reshape(shape);
}

// scatter_reduce over {self, src, index} along dim 1 with each reduction.
OpEntry reduce_entry(const char* reduce, bool include_self) {
  std::string name =
      std::string("scatter_reduce/") + reduce + (include_self ? "" : " exclude self");
  return {name, fn1([reduce, include_self](const tensor_list& x) {
            return x[0].scatter_reduce(1, x[2], x[1], reduce, include_self);
          }),
          [](Device d) {
            return std::vector<Sample>{{"[3, 4] src [3, 3] repeated index",
                                        {input({3, 4}, d, Layout::Contiguous, 0.5, 2),
                                         input({3, 3}, d, Layout::Contiguous, 0.5, 2),
                                         idx({0, 0, 3, 1, 2, 1, 3, 3, 3}, {3, 3}, d)}},
                                       {"transposed self, index smaller than src",
                                        {input({3, 4}, d, Layout::Transposed, -2, 2, 0.2),
                                         input({4, 5}, d, Layout::Stepped, -2, 2, 0.2),
                                         idx({1, 1, 0, 2, 3, 3}, {3, 2}, d)}}};
          }};
}

Register reg({
    // ---- products ----
    {"dot", fn1([](const tensor_list& x) { return x[0].dot(x[1]); }),
     [](Device d) {
       return std::vector<Sample>{{"[5]", {input({5}, d), input({5}, d, Layout::Stepped)}}};
     }},
    {"vdot", fn1([](const tensor_list& x) { return ember::vdot(x[0], x[1]); }),
     [](Device d) {
       return std::vector<Sample>{{"[4]", {input({4}, d), input({4}, d)}}};
     }},
    {"inner", fn1([](const tensor_list& x) { return ember::inner(x[0], x[1]); }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3] [4, 3]", {input({2, 3}, d), input({4, 3}, d)}}};
     }},
    {"outer", fn1([](const tensor_list& x) { return ember::outer(x[0], x[1]); }),
     [](Device d) {
       return std::vector<Sample>{{"[3] [4]", {input({3}, d), input({4}, d)}}};
     }},
    {"mv", fn1([](const tensor_list& x) { return x[0].mv(x[1]); }),
     [](Device d) {
       return std::vector<Sample>{
           {"transposed [3, 4]", {input({3, 4}, d, Layout::Transposed), input({4}, d)}}};
     }},
    {"addmv", fn1([](const tensor_list& x) { return ember::addmv(x[0], x[1], x[2], 0.5, 2); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[3]", {input({3}, d), input({3, 4}, d), input({4}, d)}},
           {"broadcast [1]", {input({1}, d), input({3, 4}, d), input({4}, d)}}};
     }},
    {"addr", fn1([](const tensor_list& x) { return ember::addr(x[0], x[1], x[2], 2, -1); }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 2]", {input({3, 2}, d), input({3}, d), input({2}, d)}}};
     }},
    {"baddbmm", fn1([](const tensor_list& x) { return ember::baddbmm(x[0], x[1], x[2], 0.5, -1); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 3, 2]", {input({2, 3, 2}, d), input({2, 3, 4}, d), input({2, 4, 2}, d)}},
           {"broadcast self [2]", {input({2}, d), input({2, 3, 4}, d), input({2, 4, 2}, d)}}};
     }},
    {"addbmm", fn1([](const tensor_list& x) { return ember::addbmm(x[0], x[1], x[2], 0.5, 2); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[3, 2]", {input({3, 2}, d), input({2, 3, 4}, d), input({2, 4, 2}, d)}}};
     }},

    // ---- einsum ----
    {"einsum/mm", fn1([](const tensor_list& x) {
       return ember::einsum("ij,jk->ik", {x[0], x[1]});
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 3] [3, 4]", {input({2, 3}, d, Layout::Transposed), input({3, 4}, d)}}};
     }},
    {"einsum/bmm", fn1([](const tensor_list& x) {
       return ember::einsum("bij,bjk->bik", {x[0], x[1]});
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 2, 3] [2, 3, 2]", {input({2, 2, 3}, d), input({2, 3, 2}, d)}}};
     }},
    {"einsum/trace and diagonal", fn1([](const tensor_list& x) {
       return ember::einsum("ii->", {x[0]}) + ember::einsum("ii->i", {x[0]}).sum() * 2;
     }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 3]", {input({3, 3}, d)}}};
     }},
    {"einsum/outer", fn1([](const tensor_list& x) {
       return ember::einsum("i,j->ij", {x[0], x[1]});
     }),
     [](Device d) {
       return std::vector<Sample>{{"[2] [3]", {input({2}, d), input({3}, d)}}};
     }},
    {"einsum/bilinear", fn1([](const tensor_list& x) {
       return ember::einsum("bn,anm,bm->ba", {x[0], x[1], x[2]});
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 3] [2, 3, 2] [2, 2]", {input({2, 3}, d), input({2, 3, 2}, d), input({2, 2}, d)}}};
     }},
    {"einsum/ellipsis", fn1([](const tensor_list& x) {
       return ember::einsum("...ij,...jk", {x[0], x[1]});
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 1, 2, 3] [3, 3, 2]", {input({2, 1, 2, 3}, d), input({3, 3, 2}, d)}}};
     }},

    // ---- trace, kron, tensordot, cross ----
    {"trace", fn1([](const tensor_list& x) { return x[0].trace(); }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 4]", {input({3, 4}, d, Layout::Transposed)}}};
     }},
    {"kron", fn1([](const tensor_list& x) { return ember::kron(x[0], x[1]); }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3] [2]", {input({2, 3}, d), input({2}, d)}}};
     }},
    {"tensordot", fn1([](const tensor_list& x) {
       return ember::tensordot(x[0], x[1], {0, 2}, {2, 0});
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[3, 2, 2] [2, 3, 3]", {input({3, 2, 2}, d), input({2, 3, 3}, d)}}};
     }},
    {"cross", fn1([](const tensor_list& x) { return ember::cross(x[0], x[1]); }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 2]", {input({3, 2}, d), input({3, 2}, d)}}};
     }},
    {"linalg_cross", fn1([](const tensor_list& x) { return ember::linalg_cross(x[0], x[1]); }),
     [](Device d) {
       return std::vector<Sample>{
           {"broadcast [2, 3] [1, 3]", {input({2, 3}, d), input({1, 3}, d)}}};
     }},

    // ---- norms ----
    {"linalg_vector_norm", fn1([](const tensor_list& x) {
       return ember::linalg_vector_norm(x[0], 2, {1}) + ember::linalg_vector_norm(x[0], 3) +
              ember::linalg_vector_norm(x[0], std::numeric_limits<double>::infinity());
     }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 4]", {input({3, 4}, d, Layout::Contiguous, -2, 2, 0.1)}}};
     }},
    {"linalg_norm", fn1([](const tensor_list& x) {
       return ember::linalg_norm(x[0], "fro") + ember::linalg_norm(x[0], 1) +
              ember::linalg_norm(x[0]);
     }),
     [](Device d) {
       return std::vector<Sample>{{"[3, 4]", {input({3, 4}, d, Layout::Contiguous, -2, 2, 0.1)}}};
     }},

    // ---- scatter: inputs {self, src, index}, unique indices per row ----
    {"scatter/src", fn1([](const tensor_list& x) { return x[0].scatter(1, x[2], x[1]); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[3, 4] src [3, 3]",
            {input({3, 4}, d), input({3, 3}, d), idx({0, 2, 3, 1, 0, 2, 3, 1, 2}, {3, 3}, d)}},
           {"transposed self, index smaller than src",
            {input({3, 4}, d, Layout::Transposed), input({4, 5}, d, Layout::Stepped),
             idx({1, 0, 2, 3, 3, 0}, {3, 2}, d)}}};
     }},
    {"scatter/value", fn1([](const tensor_list& x) { return x[0].scatter(0, x[1], 2.5); }),
     [](Device d) {
       return std::vector<Sample>{{"[4, 2]", {input({4, 2}, d), idx({3, 0}, {1, 2}, d)}}};
     }},
    {"scatter_/in place", fn1([](const tensor_list& x) {
       Tensor y = x[0] * 1;
       y.scatter_(1, x[2], x[1]);
       return y;
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 3] src [2, 2]",
            {input({2, 3}, d), input({2, 2}, d), idx({2, 0, 1, 2}, {2, 2}, d)}}};
     }},
    reduce_entry("sum", true),
    reduce_entry("sum", false),
    reduce_entry("prod", true),
    reduce_entry("prod", false),
    reduce_entry("mean", true),
    reduce_entry("mean", false),
    reduce_entry("amax", true),
    reduce_entry("amax", false),
    reduce_entry("amin", true),
    {"scatter_reduce/prod with zeros",
     fn1([](const tensor_list& x) { return x[0].scatter_reduce(0, x[2], x[1], "prod"); }),
     [](Device d) {
       // a zero in self and a single zero in src: the exclusive products
       auto leaf = [d](std::vector<double> v) {
         return ember::tensor(v, TensorOptions().dtype(ember::kFloat64).device(d)).requires_grad_();
       };
       return std::vector<Sample>{
           {"[3] src [4]",
            {leaf({1.5, 0.0, 2.0}), leaf({0.7, 0.0, 1.3, 0.9}), idx({0, 1, 0, 2}, {4}, d)}}};
     }},
    // Two zeros of src at one position: first derivatives only (PyTorch's double backward
    // refuses this case too).
    {"scatter_reduce/prod with two zeros",
     fn1([](const tensor_list& x) { return x[0].scatter_reduce(0, x[2], x[1], "prod"); }),
     [](Device d) {
       auto leaf = [d](std::vector<double> v) {
         return ember::tensor(v, TensorOptions().dtype(ember::kFloat64).device(d)).requires_grad_();
       };
       return std::vector<Sample>{
           {"two zeros in src",
            {leaf({1.5, 0.5, 2.0}), leaf({0.0, 0.0, 1.3, 0.9}), idx({0, 0, 0, 2}, {4}, d)}}};
     },
     /*gradgrad=*/false},

    // ---- index_add, index_fill, index_copy: inputs {self, source, index} ----
    {"index_add", fn1([](const tensor_list& x) { return x[0].index_add(1, x[2], x[1], 2); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[3, 4] repeated index", {input({3, 4}, d), input({3, 3}, d), idx({3, 0, 3}, {3}, d)}}};
     }},
    {"index_fill", fn1([](const tensor_list& x) { return x[0].index_fill(0, x[1], -1.5); }),
     [](Device d) {
       return std::vector<Sample>{{"[4, 2]", {input({4, 2}, d), idx({2, 0}, {2}, d)}}};
     }},
    {"index_fill/tensor value",
     fn1([](const tensor_list& x) { return x[0].index_fill(1, x[2], x[1]); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 3] value []", {input({2, 3}, d), input({}, d), idx({1}, {1}, d)}}};
     }},
    {"index_copy", fn1([](const tensor_list& x) { return x[0].index_copy(0, x[2], x[1]); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[4, 2] source [2, 2]", {input({4, 2}, d), input({2, 2}, d), idx({3, 1}, {2}, d)}}};
     }},
});

}  // namespace
}  // namespace optable
