// Bad-input suite, ops: undefined tensors, broadcasting and matmul shape mismatches, dtype and
// value errors, integer division by zero, reductions over bad dims, indexing out of range.
// Each case asserts ember::Error and the op and the shapes or dtypes its message names.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <string>

#include "bad_input.h"

using namespace ember;
using bad_input::expect_error;

namespace {

Tensor longs(std::initializer_list<int64_t> v) { return tensor(v); }

// ---- undefined tensors ----

TEST(BadOps, AddUndefinedLeft) {
  expect_error([] { add(Tensor(), ones({2})); }, {"add", "undefined"});
}

TEST(BadOps, MulUndefinedRight) {
  expect_error([] { mul(ones({2}), Tensor()); }, {"mul", "undefined"});
}

TEST(BadOps, MatmulUndefined) {
  expect_error([] { matmul(Tensor(), ones({2, 2})); }, {"matmul", "undefined"});
}

TEST(BadOps, SumOfUndefined) {
  expect_error([] { sum(Tensor()); }, {"sum", "undefined"});
}

TEST(BadOps, ExpOfUndefined) {
  expect_error([] { ember::exp(Tensor()); }, {"exp", "undefined"});
}

TEST(BadOps, CatWithAnUndefined) {
  expect_error([] { cat({ones({2}), Tensor()}); }, {"cat", "undefined"});
}

TEST(BadOps, WhereUndefinedCondition) {
  expect_error([] { where(Tensor(), ones({2}), ones({2})); }, {"where", "undefined"});
}

TEST(BadOps, CopyIntoFromUndefined) {
  expect_error([] { ones({2}).copy_(Tensor()); }, {"copy_", "undefined"});
}

TEST(BadOps, ItemOfUndefined) {
  expect_error([] { Tensor().item<float>(); }, {"item", "undefined"});
}

TEST(BadOps, SizesOfUndefined) {
  expect_error([] { (void)Tensor().sizes(); }, {"sizes", "undefined"});
}

// The rest of the ops: each message starts with the op the user called ("argsort: ...", not the
// "sort: ..." it is built on).
void expect_undefined(const char* op, const std::function<void()>& f) {
  SCOPED_TRACE(op);
  expect_error(f, {std::string(op) + ": got an undefined Tensor"});
}

TEST(BadOps, UndefinedSoftmax) {
  const Tensor u;
  expect_undefined("softmax", [&] { softmax(u, 0); });
  expect_undefined("log_softmax", [&] { log_softmax(u, 0); });
}

TEST(BadOps, UndefinedJoinAndGather) {
  const Tensor u, a = ones({2, 3}), i = longs({0});
  expect_undefined("stack", [&] { stack({a, u}); });
  expect_undefined("stack", [&] { stack({u, a}); });
  expect_error([&] { cat({u, a}); }, {"cat: tensor at entry 0 is undefined"});
  expect_undefined("index_select", [&] { index_select(u, 0, i); });
  expect_undefined("index_select", [&] { index_select(a, 0, u); });
  expect_undefined("gather", [&] { gather(u, 0, i); });
  expect_undefined("scatter", [&] { u.scatter(0, i, 1.0); });
  expect_undefined("scatter", [&] { a.scatter(0, u, a); });
  expect_undefined("scatter_add", [&] { scatter_add(u, 0, i, a); });
}

TEST(BadOps, UndefinedIndexing) {
  const Tensor u, a = ones({2, 3});
  expect_undefined("index", [&] { u.index({0}); });
  expect_undefined("index_put_", [&] { u.index_put_({0}, 1.0); });
  expect_undefined("masked_fill", [&] { u.masked_fill(a > 0, 1.0); });
  expect_undefined("masked_fill", [&] { a.masked_fill(u, 1.0); });
  expect_undefined("masked_select", [&] { masked_select(u, a > 0); });
  expect_undefined("nonzero", [&] { nonzero(u); });
  expect_undefined("argwhere", [&] { argwhere(u); });
}

TEST(BadOps, UndefinedReductions) {
  const Tensor u;
  expect_undefined("argmax", [&] { argmax(u); });
  expect_undefined("argmin", [&] { argmin(u, 0); });
  expect_undefined("norm", [&] { u.norm(); });
  expect_undefined("var", [&] { u.var(); });
  expect_undefined("std", [&] { u.std(); });
  expect_undefined("any", [&] { u.any(); });
  expect_undefined("all", [&] { u.all(0); });
  expect_undefined("cumsum", [&] { cumsum(u, 0); });
  expect_undefined("cumsum_", [&] { u.cumsum_(0); });
  expect_undefined("var_mean", [&] { var_mean(u); });
}

TEST(BadOps, UndefinedSortAndSelect) {
  const Tensor u;
  expect_undefined("sort", [&] { sort(u); });
  expect_undefined("argsort", [&] { u.argsort(); });
  expect_undefined("topk", [&] { topk(u, 1); });
  expect_undefined("kthvalue", [&] { u.kthvalue(1); });
  expect_undefined("median", [&] { u.median(); });
}

TEST(BadOps, UndefinedWithScalars) {
  const Tensor u;
  expect_undefined("clamp", [&] { clamp(u, 0, 1); });
  expect_undefined("pow", [&] { pow(u, 2); });
  expect_undefined("pow", [&] { pow(2, u); });
  expect_undefined("add", [&] { add(u, 1); });
  expect_undefined("sub", [&] { (void)(u - 1); });
  expect_undefined("mul", [&] { (void)(u * 2); });
  expect_undefined("div", [&] { (void)(u / 2); });
  expect_undefined("eq", [&] { eq(u, 0); });
  expect_undefined("rsub", [&] { (void)(1 - u); });
}

TEST(BadOps, UndefinedInPlace) {
  const Tensor u, a = ones({2, 3});
  expect_undefined("add_", [&] { u.add_(a); });
  expect_undefined("add_", [&] { u.add_(1); });
  expect_undefined("mul_", [&] { a.clone().mul_(u); });
  expect_undefined("fill_", [&] { u.fill_(1); });
  expect_undefined("zero_", [&] { u.zero_(); });
  expect_undefined("clamp_", [&] { u.clamp_(0, 1); });
  expect_undefined("masked_fill_", [&] { u.masked_fill_(a > 0, 1.0); });
  expect_undefined("exp_", [&] { u.exp_(); });
  expect_undefined("maximum_", [&] { a.clone().maximum_(u); });
  expect_undefined("eq_", [&] { u.eq_(0); });
}

TEST(BadOps, UndefinedShapeOps) {
  const Tensor u;
  expect_undefined("repeat", [&] { u.repeat({2}); });
  expect_undefined("tile", [&] { u.tile({2}); });
  expect_undefined("flip", [&] { u.flip({0}); });
  expect_undefined("roll", [&] { u.roll({1}); });
  expect_undefined("tril", [&] { u.tril(); });
}

TEST(BadOps, UndefinedPredicates) {
  const Tensor u, a = ones({2, 3});
  expect_undefined("allclose", [&] { allclose(u, a); });
  expect_undefined("equal", [&] { equal(a, u); });
}

// ---- shapes ----

TEST(BadOps, BroadcastThreeDims) {
  expect_error(
      [] {
        add(zeros({2, 1, 3}), zeros({4, 2}));
      },
      {"add", "[2, 1, 3]", "[4, 2]", "broadcast"});
}

TEST(BadOps, BroadcastOverflowsElementCount) {
  // each operand is small; the broadcast shape has 2^80 elements
  const int64_t n = int64_t(1) << 40;
  expect_error(
      [&] {
        add(zeros({1}).expand({n, 1}), zeros({1}).expand({1, n}));
      },
      {"add", "[1099511627776, 1099511627776]"});
}

TEST(BadOps, AddcmulMismatch) {
  expect_error([] { addcmul(zeros({3}), zeros({2}), zeros({3})); }, {"addcmul", "[2]", "[3]"});
}

TEST(BadOps, MvWrongVector) {
  expect_error([] { mv(zeros({2, 3}), zeros({4})); }, {"mv", "2x3", "vec (4)"});
}

TEST(BadOps, DotLengths) {
  expect_error([] { dot(zeros({3}), zeros({4})); }, {"dot", "3", "4"});
}

TEST(BadOps, BaddbmmBatchMismatch) {
  expect_error(
      [] {
        baddbmm(zeros({2, 2, 2}), zeros({2, 2, 3}), zeros({3, 3, 2}));
      },
      {"baddbmm", "[2, 2, 3]", "[3, 3, 2]"});
}

TEST(BadOps, MatmulZeroDimOperand) {
  expect_error([] { matmul(zeros({2, 3}), zeros({})); }, {"matmul", "[2, 3]", "[]"});
}

// ---- dtypes and values ----

TEST(BadOps, BitwiseAndOfFloats) {
  expect_error([] { bitwise_and(zeros({2}), zeros({2})); }, {"bitwise_and", "float32"});
}

TEST(BadOps, IntegerPowerNegative) {
  expect_error([] { pow(longs({2, 3}), -1); }, {"pow", "negative", "int64"});
}

TEST(BadOps, FloorDivideIntegerByZero) {
  expect_error(
      [] {
        floor_divide(longs({4, 5}), longs({2, 0}));
      },
      {"floor_divide", "ZeroDivisionError", "int64"});
}

TEST(BadOps, RemainderIntegerByZeroScalar) {
  expect_error([] { remainder(longs({4, 5}), 0); }, {"remainder", "ZeroDivisionError"});
}

TEST(BadOps, DivTruncIntegerByZero) {
  expect_error([] { div(longs({7}), longs({0}), "trunc"); }, {"ZeroDivisionError"});
}

TEST(BadOps, DivUnknownRoundingMode) {
  expect_error([] { div(ones({2}), ones({2}), "round"); }, {"div", "rounding_mode", "round"});
}

TEST(BadOps, InPlaceFloatIntoInt) {
  expect_error([] { zeros({2}, kInt32).sub_(ones({2})); }, {"sub", "float32", "int32"});
}

TEST(BadOps, ItemValueOverflowsInt32) {
  expect_error([] { full({}, 3.0e9).item<int32_t>(); }, {"item", "3e+09", "int32"});
}

TEST(BadOps, ItemValueOverflowsUInt8) {
  expect_error([] { full({}, int64_t(1000)).item<uint8_t>(); }, {"item", "1000", "uint8"});
}

TEST(BadOps, MaskedFillValueOverflows) {
  expect_error([] { zeros({2}, kInt32).masked_fill(ones({2}, kBool), 1.0e12); },
               {"masked_fill", "int32"});
}

TEST(BadOps, ClampBoundOfOtherShape) {
  expect_error([] { clamp(zeros({3}), std::optional<Tensor>(zeros({2}))); },
               {"clamp", "[2]", "[3]"});
}

// ---- reductions ----

TEST(BadOps, MeanDimOutOfRange) {
  expect_error([] { zeros({2, 3}).mean({3}); }, {"mean", "3", "out of range"});
}

TEST(BadOps, ProdDimNegativeOutOfRange) {
  expect_error([] { zeros({2, 3}).prod(-3); }, {"prod", "-3", "out of range"});
}

TEST(BadOps, SoftmaxOfScalarDim) {
  expect_error([] { softmax(zeros({}), 1); }, {"softmax", "1"});
}

TEST(BadOps, CumsumDimOutOfRange) {
  expect_error([] { zeros({4}).cumsum(1); }, {"cumsum", "out of range"});
}

TEST(BadOps, KthvalueOutOfRange) {
  expect_error([] { zeros({4}).kthvalue(5); }, {"kthvalue", "5"});
}

TEST(BadOps, TopkTooLarge) {
  expect_error([] { topk(zeros({3}), 4); }, {"topk", "4"});
}

TEST(BadOps, LogsumexpRepeatedDim) {
  expect_error([] { zeros({2, 3}).logsumexp({1, -1}); }, {"logsumexp", "appears twice"});
}

TEST(BadOps, MedianOverAnEmptyDim) {
  expect_error([] { zeros({0, 3}).median(0); }, {"median", "dim 0", "non-zero size"});
}

// ---- indexing ----

TEST(BadOps, IndexSelectLowestInt64) {
  expect_error([] { zeros({3}).index_select(0, longs({std::numeric_limits<int64_t>::min()})); },
               {"index_select", "-9223372036854775808"});
}

TEST(BadOps, IndexTensorOutOfRange) {
  expect_error([] { zeros({3, 2}).index({longs({0, 3})}); }, {"index", "3"});
}

TEST(BadOps, IndexPutOutOfRange) {
  expect_error([] { zeros({3}).index_put_({longs({5})}, ones({1})); }, {"index", "5"});
}

TEST(BadOps, ScatterIndexNegative) {
  expect_error([] { zeros({3}).scatter(0, longs({-4}), 1.0); }, {"scatter", "-4"});
}

TEST(BadOps, IndexAddOutOfRange) {
  expect_error([] { zeros({3}).index_add(0, longs({3}), ones({1})); }, {"index_add", "3"});
}

TEST(BadOps, BoolMaskWrongShape) {
  expect_error(
      [] {
        zeros({3, 2}).masked_select(ones({3, 3}, kBool));
      },
      {"masked_select", "[3, 3]", "[3, 2]"});
}

TEST(BadOps, EmbeddingIndexOutOfRange) {
  expect_error([] { nn::functional::embedding(longs({4}), zeros({4, 2})); }, {"4"});
}

TEST(BadOps, BincountNegative) {
  expect_error([] { longs({1, -1}).bincount(); }, {"bincount", "negative"});
}

}  // namespace
