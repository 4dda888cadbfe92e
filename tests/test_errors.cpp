// Wrong use throws ember::Error (never aborts), and the message names the op and the shapes,
// dtypes or devices involved. One test per kind of mistake.
#include <ember/ember.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <type_traits>

#include "reference.h"

#include "asan_runtime.h"
#include "error_of.h"

using namespace ember;
using ::testing::AllOf;
using ::testing::AnyOf;
using ::testing::HasSubstr;

namespace {

static_assert(std::is_base_of<std::runtime_error, ember::Error>::value,
              "ember::Error is a std::runtime_error");

// An allocation the system refuses is an OutOfMemoryError (an ember::Error) that says how many
// bytes, and for which tensor: dtype and shape. (Skipped under ASan unless its allocator may
// return null: it aborts on a request this size otherwise.)
TEST(Errors, OutOfMemoryNamesTheTensor) {
  if (asan_aborts_on_huge_allocations())
    GTEST_SKIP()
        << "ASan's allocator aborts on huge requests (ASAN_OPTIONS=allocator_may_return_null=1)";
  const int64_t n = int64_t(1) << 45;  // 128 TiB of float32
  try {
    Tensor t = empty({n, 1});
    FAIL() << "allocating 128 TiB did not throw";
  } catch (const OutOfMemoryError& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("out of memory"), HasSubstr("140737488355328 bytes"),
                                HasSubstr("float32 tensor of shape [35184372088832, 1]")));
  }
  EXPECT_THAT(error_of([&] {
                (void)(zeros({1 << 22, 1}) + zeros({1, int64_t(1) << 23}));
              }),
              AllOf(HasSubstr("out of memory"), HasSubstr("shape [4194304, 8388608]")));
}

TEST(Errors, BroadcastMismatch) {
  Tensor a = zeros({2, 3}), b = zeros({4});
  EXPECT_THAT(error_of([&] { add(a, b); }),
              HasSubstr("add: shapes [2, 3] and [4] cannot be broadcast"));
  EXPECT_THAT(error_of([&] { (void)(a + b); }), HasSubstr("add: shapes [2, 3] and [4]"));
  EXPECT_THAT(error_of([&] { (void)(a - b); }), AllOf(HasSubstr("sub"), HasSubstr("[2, 3]")));
  EXPECT_THAT(error_of([&] { mul(a, b); }), AllOf(HasSubstr("mul"), HasSubstr("[4]")));
  EXPECT_THAT(error_of([&] { div(a, b); }), AllOf(HasSubstr("div"), HasSubstr("[2, 3]")));
  EXPECT_THAT(error_of([&] { maximum(a, b); }), AllOf(HasSubstr("maximum"), HasSubstr("[4]")));
  EXPECT_THAT(error_of([&] { lt(a, b); }), AllOf(HasSubstr("lt"), HasSubstr("[2, 3]")));
  EXPECT_THAT(error_of([&] { pow(a, b); }), AllOf(HasSubstr("pow"), HasSubstr("[4]")));
  EXPECT_THAT(error_of([&] { where(zeros({5}, kBool), a, a); }),
              AllOf(HasSubstr("where"), HasSubstr("[5]"), HasSubstr("[2, 3]")));
  EXPECT_THAT(error_of([&] {
                masked_fill(a, zeros({2, 2}, kBool), 1);
              }),
              AllOf(HasSubstr("masked_fill"), HasSubstr("[2, 2]"), HasSubstr("[2, 3]")));
  // the shape on the left wins for the leading dims: [3, 1] and [2, 4] fail on dim 0
  EXPECT_THAT(error_of([&] {
                add(zeros({3, 1}), zeros({2, 4}));
              }),
              HasSubstr("add: shapes [3, 1] and [2, 4] cannot be broadcast"));
}

TEST(Errors, InPlaceCannotBroadcastSelf) {
  // the result of an in-place op must have self's shape
  Tensor a = zeros({3});
  EXPECT_THAT(error_of([&] {
                a.add_(zeros({2, 3}));
              }),
              AllOf(HasSubstr("add"), HasSubstr("[3]"), HasSubstr("[2, 3]")));
  EXPECT_THAT(error_of([&] {
                a *= zeros({2, 3});
              }),
              AllOf(HasSubstr("mul"), HasSubstr("[3]"), HasSubstr("[2, 3]")));
  EXPECT_THAT(error_of([&] {
                zeros({2, 3}).copy_(zeros({4}));
              }),
              AllOf(HasSubstr("copy_"), HasSubstr("[4]"), HasSubstr("[2, 3]")));
}

TEST(Errors, InPlaceResultTypeCannotBeCastToSelf) {
  // PyTorch: "result type Float can't be cast to the desired output type Long"
  Tensor i = zeros({2}, kInt64);
  EXPECT_THAT(error_of([&] { i.add_(ones({2})); }),
              AllOf(HasSubstr("add"), HasSubstr("float32"), HasSubstr("int64")));
  EXPECT_THAT(error_of([&] { i.mul_(2.5); }),
              AllOf(HasSubstr("mul"), HasSubstr("float32"), HasSubstr("int64")));
  EXPECT_THAT(error_of([&] { i.div_(2); }),  // true division gives a float
              AllOf(HasSubstr("div"), HasSubstr("float32"), HasSubstr("int64")));
  EXPECT_THAT(error_of([&] { i /= ones({2}, kInt64); }),
              AllOf(HasSubstr("div"), HasSubstr("float32"), HasSubstr("int64")));
  Tensor b = zeros({2}, kBool);
  EXPECT_THAT(error_of([&] { b.add_(ones({2}, kInt32)); }),
              AllOf(HasSubstr("add"), HasSubstr("int32"), HasSubstr("bool")));
  Tensor f = zeros({2}, kFloat32);
  EXPECT_NO_THROW(f.add_(ones({2}, kFloat64)));  // float64 -> float32 is a same-kind cast
  EXPECT_NO_THROW(f.add_(ones({2}, kInt64)));
}

TEST(Errors, BoolArithmeticPyTorchRejects) {
  Tensor b = zeros({2}, kBool);
  EXPECT_THAT(error_of([&] { sub(b, b); }), AllOf(HasSubstr("sub"), HasSubstr("bool")));
  EXPECT_THAT(error_of([&] { (void)(-b); }), AllOf(HasSubstr("neg"), HasSubstr("bool")));
}

TEST(Errors, MatmulMismatch) {
  EXPECT_THAT(error_of([&] {
                matmul(zeros({2, 3}), zeros({4, 5}));
              }),
              HasSubstr("matmul: shapes [2, 3] and [4, 5] cannot be multiplied (3 != 4)"));
  EXPECT_THAT(error_of([&] {
                mm(zeros({2, 3}), zeros({4, 5}));
              }),
              AllOf(HasSubstr("mm"), HasSubstr("[2, 3]"), HasSubstr("[4, 5]")));
  EXPECT_THAT(error_of([&] { matmul(zeros({3}), zeros({4})); }),
              AllOf(HasSubstr("matmul"), HasSubstr("[3]"), HasSubstr("[4]")));
  EXPECT_THAT(error_of([&] {
                matmul(zeros({2, 2, 3}), zeros({3, 3, 4}));
              }),  // batch 2 vs 3
              AllOf(HasSubstr("matmul"), HasSubstr("[2, 2, 3]"), HasSubstr("[3, 3, 4]")));
  EXPECT_THAT(error_of([&] { matmul(zeros({}), zeros({3})); }), HasSubstr("matmul"));
  EXPECT_THAT(error_of([&] {
                bmm(zeros({2, 3, 4}), zeros({3, 4, 5}));
              }),
              AllOf(HasSubstr("bmm"), HasSubstr("[2, 3, 4]"), HasSubstr("[3, 4, 5]")));
  EXPECT_THAT(error_of([&] {
                bmm(zeros({3, 4}), zeros({4, 5}));
              }),
              AllOf(HasSubstr("bmm"), HasSubstr("[3, 4]")));
  EXPECT_THAT(error_of([&] {
                mm(zeros({2, 3, 4}), zeros({4, 5}));
              }),
              AllOf(HasSubstr("mm"), HasSubstr("[2, 3, 4]")));
  EXPECT_THAT(error_of([&] {
                addmm(zeros({7}), zeros({2, 3}), zeros({3, 4}));
              }),
              AllOf(HasSubstr("addmm"), HasSubstr("[7]")));
  EXPECT_THAT(error_of([&] {
                linear(zeros({2, 3}), zeros({4, 5}));
              }),
              AllOf(HasSubstr("[2, 3]"), AnyOf(HasSubstr("[4, 5]"), HasSubstr("[5, 4]"))));
  EXPECT_THAT(error_of([&] {
                matmul(zeros({2, 3}), zeros({3, 2}, kFloat64));
              }),
              AllOf(HasSubstr("matmul"), HasSubstr("float32"), HasSubstr("float64")));
}

TEST(Errors, ViewOfIncompatibleSize) {
  Tensor a = zeros({2, 3});
  // PyTorch's wording names the requested shape and the element count
  EXPECT_THAT(error_of([&] { a.view({4}); }), AllOf(HasSubstr("view"), HasSubstr("[4]"),
                                                    AnyOf(HasSubstr("[2, 3]"), HasSubstr("6"))));
  EXPECT_THAT(error_of([&] { a.view({-1, -1}); }), HasSubstr("view"));
  EXPECT_THAT(error_of([&] { a.view({4, -1}); }), AllOf(HasSubstr("view"), HasSubstr("[4, -1]")));
  EXPECT_THAT(error_of([&] { a.reshape({7}); }), AllOf(HasSubstr("reshape"), HasSubstr("[7]"),
                                                       AnyOf(HasSubstr("[2, 3]"), HasSubstr("6"))));
  EXPECT_THAT(error_of([&] { a.view({-2, 3}); }), HasSubstr("view"));
}

TEST(Errors, ViewOfNonViewableStrides) {
  Tensor t = zeros({2, 3}).t();  // [3, 2] with strides [1, 3]
  EXPECT_THAT(error_of([&] { t.view({6}); }), AllOf(HasSubstr("view"), HasSubstr("[3, 2]")));
  // [4, 4] with strides [6, 1]: rows are not adjacent ([4, 3] with strides [6, 2] would be)
  EXPECT_THAT(error_of([&] {
                zeros({4, 6}).slice(1, 0, 4).view({16});
              }),
              AllOf(HasSubstr("view"), HasSubstr("[4, 4]")));
  EXPECT_NO_THROW(zeros({4, 6}).slice(1, 0, 6, 2).view({12}));
  EXPECT_NO_THROW(t.reshape({6})) << "reshape copies instead";
}

TEST(Errors, DimOutOfRange) {
  Tensor a = zeros({2, 3});
  auto dim_error = [](const char* op) {
    return AllOf(HasSubstr(op), HasSubstr("out of range"), HasSubstr("2 dims"));
  };
  EXPECT_THAT(error_of([&] { a.sum({2}); }), AllOf(dim_error("sum"), HasSubstr("2")));
  EXPECT_THAT(error_of([&] { a.sum({-3}); }), AllOf(dim_error("sum"), HasSubstr("-3")));
  EXPECT_THAT(error_of([&] { a.size(5); }), HasSubstr("5"));
  EXPECT_THAT(error_of([&] { a.transpose(0, 2); }), dim_error("transpose"));
  EXPECT_THAT(error_of([&] { a.select(2, 0); }), dim_error("select"));
  EXPECT_THAT(error_of([&] { a.squeeze(3); }), dim_error("squeeze"));
  EXPECT_THAT(error_of([&] { a.unsqueeze(4); }), HasSubstr("unsqueeze"));
  EXPECT_THAT(error_of([&] { softmax(a, 2); }), dim_error("softmax"));
  EXPECT_THAT(error_of([&] { log_softmax(a, -3); }), dim_error("log_softmax"));
  EXPECT_THAT(error_of([&] { a.max(2); }), dim_error("max"));
  EXPECT_THAT(error_of([&] { a.argmax(-5); }), dim_error("argmax"));
  EXPECT_THAT(error_of([&] { cat({a, a}, 2); }), dim_error("cat"));
  EXPECT_THAT(error_of([&] { stack({a, a}, 4); }), HasSubstr("stack"));
  EXPECT_THAT(error_of([&] { a.narrow(2, 0, 1); }), dim_error("narrow"));
  EXPECT_THAT(error_of([&] { a.slice(2); }), dim_error("slice"));
  EXPECT_THAT(error_of([&] { a.flatten(0, 2); }), dim_error("flatten"));
  EXPECT_THAT(error_of([&] { a.index_select(2, zeros({1}, kInt64)); }), dim_error("index_select"));
  EXPECT_THAT(error_of([&] { a.permute({0, 2}); }), HasSubstr("permute"));
  EXPECT_THAT(error_of([&] { a.permute({0, 0}); }), HasSubstr("permute"));
  EXPECT_THAT(error_of([&] { a.permute({0}); }), HasSubstr("permute"));
  EXPECT_THAT(error_of([&] { a.chunk(2, 3); }), HasSubstr("chunk"));
  EXPECT_THAT(error_of([&] { a.var(IntArrayRef{2}); }), dim_error("var"));
  EXPECT_THAT(error_of([&] { a.all(2); }), dim_error("all"));
  // a dim named twice in one reduction
  EXPECT_THAT(error_of([&] { a.sum({0, -2}); }), HasSubstr("sum"));
  EXPECT_THAT(error_of([&] { a.amax({1, 1}); }), HasSubstr("amax"));
}

TEST(Errors, IndexOutOfRange) {
  Tensor a = zeros({3, 4});
  EXPECT_THAT(error_of([&] { a.select(0, 3); }),
              AllOf(HasSubstr("select"), HasSubstr("index 3"),
                    AnyOf(HasSubstr("[3, 4]"), HasSubstr("size 3"))));
  EXPECT_THAT(error_of([&] { a.select(1, -5); }), AllOf(HasSubstr("select"), HasSubstr("-5")));
  EXPECT_THAT(error_of([&] { a[7]; }), AllOf(HasSubstr("select"), HasSubstr("7")));
  EXPECT_THAT(error_of([&] {
                a.index_select(0, tensor({int64_t(0), int64_t(3)}));
              }),
              AllOf(HasSubstr("index_select"), HasSubstr("3")));
  EXPECT_THAT(error_of([&] { a.index_select(1, tensor({int64_t(-1)})); }),
              AllOf(HasSubstr("index_select"), HasSubstr("-1")));
  EXPECT_THAT(error_of([&] {
                a.gather(1, full({3, 1}, 4, kInt64));
              }),
              AllOf(HasSubstr("gather"), HasSubstr("4")));
  EXPECT_THAT(error_of([&] {
                a.scatter_add(0, full({1, 4}, 9, kInt64), ones({1, 4}));
              }),
              AllOf(HasSubstr("scatter_add"), HasSubstr("9")));
  EXPECT_THAT(error_of([&] {
                one_hot(tensor({int64_t(0), int64_t(5)}), 3);
              }),
              AllOf(HasSubstr("one_hot"), HasSubstr("5")));
  EXPECT_THAT(error_of([&] { a.narrow(0, 2, 2); }), HasSubstr("narrow"));
  // index tensors must be integers
  EXPECT_THAT(error_of([&] { a.index_select(0, zeros({1})); }),
              AllOf(HasSubstr("index_select"), HasSubstr("float32")));
  EXPECT_THAT(error_of([&] {
                a.gather(0, zeros({1, 1}));
              }),
              AllOf(HasSubstr("gather"), HasSubstr("float32")));
  // gather's index must have the input's rank
  EXPECT_THAT(error_of([&] { a.gather(0, zeros({2}, kInt64)); }), HasSubstr("gather"));
}

TEST(Errors, TwoDevicesInOneOp) {
  if (!cuda::is_available()) {
    // without a GPU, asking for one is a clear error, not a crash
    EXPECT_THAT(error_of([&] { zeros({2}, kCUDA); }), AnyOf(HasSubstr("cuda"), HasSubstr("CUDA")));
    EXPECT_THAT(error_of([&] { ones({2}).to(kCUDA); }),
                AnyOf(HasSubstr("cuda"), HasSubstr("CUDA")));
    EXPECT_THAT(error_of([&] { ones({2}).cuda(); }), AnyOf(HasSubstr("cuda"), HasSubstr("CUDA")));
    EXPECT_EQ(cuda::device_count(), 0);
    return;
  }
  Tensor c = ones({2}), g = ones({2}, kCUDA);
  EXPECT_THAT(error_of([&] { add(c, g); }),
              AllOf(HasSubstr("add"), HasSubstr("cpu"), HasSubstr("cuda")));
  EXPECT_THAT(error_of([&] {
                matmul(c.view({1, 2}), g.view({2, 1}));
              }),
              AllOf(HasSubstr("matmul"), HasSubstr("cpu"), HasSubstr("cuda")));
  EXPECT_THAT(error_of([&] { where(ones({2}, kBool), c, g); }),
              AllOf(HasSubstr("where"), HasSubstr("cpu"), HasSubstr("cuda")));
  EXPECT_THAT(error_of([&] {
                cat({c, g});
              }),
              AllOf(HasSubstr("cat"), HasSubstr("cpu"), HasSubstr("cuda")));
}

TEST(Errors, ItemOfManyElements) {
  EXPECT_THAT(error_of([&] {
                zeros({2, 3}).item<float>();
              }),
              AllOf(HasSubstr("item"), AnyOf(HasSubstr("[2, 3]"), HasSubstr("6"))));
  EXPECT_THAT(error_of([&] { zeros({0}).item<float>(); }), HasSubstr("item"));
  EXPECT_THAT(error_of([&] { zeros({2}).item(); }), HasSubstr("item"));
}

TEST(Errors, FromBlobNull) {
  EXPECT_THAT(error_of([&] {
                from_blob(nullptr, {2, 3});
              }),
              AllOf(HasSubstr("from_blob"), HasSubstr("null")));
}

TEST(Errors, RequiresGradNeedsFloatingPoint) {
  EXPECT_THAT(error_of([&] { zeros({2}, TensorOptions().dtype(kInt64).requires_grad(true)); }),
              AllOf(HasSubstr("requires_grad"), HasSubstr("int64")));
  Tensor i = zeros({2}, kInt32);
  EXPECT_THAT(error_of([&] { i.requires_grad_(); }),
              AllOf(HasSubstr("requires_grad"), HasSubstr("int32")));
  EXPECT_THAT(error_of([&] { zeros({2}, kBool).requires_grad_(true); }),
              AllOf(HasSubstr("requires_grad"), HasSubstr("bool")));
  EXPECT_NO_THROW(i.requires_grad_(false));
}

TEST(Errors, DataPtrTypeMismatch) {
  EXPECT_THAT(error_of([&] { zeros({2}, kInt64).data_ptr<float>(); }),
              AllOf(HasSubstr("data_ptr"), HasSubstr("int64")));
}

TEST(Errors, ShapeMismatchInJoins) {
  EXPECT_THAT(error_of([&] {
                cat({zeros({2, 3}), zeros({3, 4})}, 0);
              }),
              AllOf(HasSubstr("cat"), HasSubstr("[2, 3]"), HasSubstr("[3, 4]")));
  EXPECT_THAT(error_of([&] { cat({zeros({2, 3}), zeros({3})}); }), HasSubstr("cat"));
  EXPECT_THAT(error_of([&] { cat(std::vector<Tensor>{}); }), HasSubstr("cat"));
  EXPECT_THAT(error_of([&] {
                stack({zeros({2, 3}), zeros({3, 2})});
              }),
              AllOf(HasSubstr("stack"), HasSubstr("[2, 3]"), HasSubstr("[3, 2]")));
  EXPECT_THAT(error_of([&] {
                zeros({2, 3}).expand({4, 3});
              }),
              AllOf(HasSubstr("expand"), HasSubstr("[2, 3]"), HasSubstr("[4, 3]")));
  EXPECT_THAT(error_of([&] { zeros({2, 3}).expand({3}); }), HasSubstr("expand"));
}

TEST(Errors, BadArguments) {
  EXPECT_THAT(error_of([&] { arange(0, 5, 0); }), HasSubstr("arange"));
  EXPECT_THAT(error_of([&] { arange(5, 0, 1); }), HasSubstr("arange"));
  EXPECT_THAT(error_of([&] { linspace(0, 1, -1); }), HasSubstr("linspace"));
  EXPECT_THAT(error_of([&] { randint(5, 5, {2}); }), HasSubstr("randint"));
  EXPECT_THAT(error_of([&] { randperm(-1); }), HasSubstr("randperm"));
  EXPECT_THAT(error_of([&] { zeros({2, -3}); }), HasSubstr("-3"));
  EXPECT_THAT(error_of([&] { eye(-1); }), HasSubstr("eye"));
  EXPECT_THAT(error_of([&] { zeros({4}).chunk(0); }), HasSubstr("chunk"));
  EXPECT_THAT(error_of([&] { zeros({4}).split(0); }), HasSubstr("split"));
  EXPECT_THAT(error_of([&] { zeros({4}).slice(0, 0, 4, 0); }),
              AllOf(HasSubstr("slice"), HasSubstr("step")));
  EXPECT_THAT(error_of([&] { zeros({4}).narrow(0, 1, -1); }), HasSubstr("narrow"));
  EXPECT_THAT(error_of([&] { one_hot(zeros({2})); }),
              AllOf(HasSubstr("one_hot"), HasSubstr("float32")));
  EXPECT_THAT(error_of([&] { Device("gpu:0"); }), HasSubstr("gpu:0"));
}

TEST(Errors, DtypeRequirements) {
  // conditions and masks are bool (PyTorch rejects other dtypes)
  EXPECT_THAT(error_of([&] { where(zeros({2}), zeros({2}), zeros({2})); }),
              AllOf(HasSubstr("where"), HasSubstr("float32")));
  EXPECT_THAT(error_of([&] { zeros({2}).masked_fill(zeros({2}), 1); }),
              AllOf(HasSubstr("masked_fill"), HasSubstr("float32")));
  // mean of integers needs a dtype= (PyTorch: "could not infer output dtype")
  EXPECT_THAT(error_of([&] { zeros({2}, kInt64).mean(); }),
              AllOf(HasSubstr("mean"), HasSubstr("int64")));
}

TEST(Errors, EmptyReductions) {
  // max/min/argmax of nothing have no answer (PyTorch raises too)
  EXPECT_THAT(error_of([&] { zeros({0}).max(); }), HasSubstr("max"));
  EXPECT_THAT(error_of([&] { zeros({0}).argmin(); }), HasSubstr("argmin"));
  EXPECT_THAT(error_of([&] {
                zeros({0, 3}).max(0);
              }),
              AllOf(HasSubstr("max"), HasSubstr("[0, 3]")));
}

TEST(Errors, MessagesAreCatchableAsRuntimeError) {
  try {
    zeros({2, 3}).view({5});
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("view"));
  }
}

}  // namespace
