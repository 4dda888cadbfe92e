// Bad-input suite, ops: undefined tensors, broadcasting and matmul shape mismatches, dtype and
// value errors, integer division by zero, reductions over bad dims, indexing out of range.
// Each case asserts ember::Error and the op and the shapes or dtypes its message names.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

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
