// Bad-input suite, views: view/reshape/narrow/select/expand/permute/transpose/slice/as_strided
// with arguments out of range, overflowing or inconsistent; each case asserts ember::Error and
// the op and shape its message names (a view that reached outside its storage would crash).
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

const int64_t kMax = std::numeric_limits<int64_t>::max();
const int64_t k2e40 = int64_t(1) << 40;

TEST(BadViews, ViewOfUndefined) {
  expect_error([] { Tensor().view({2}); }, {"view", "undefined"});
}

// Each view names itself, not the dim() or sizes() it would read first.
void expect_undefined(const char* op, const std::function<void()>& f) {
  SCOPED_TRACE(op);
  expect_error(f, {std::string(op) + ": got an undefined Tensor"});
}

TEST(BadViews, UndefinedDimViews) {
  const Tensor u;
  expect_undefined("transpose", [&] { u.transpose(0, 1); });
  expect_undefined("permute", [&] { u.permute({1, 0}); });
  expect_undefined("narrow", [&] { u.narrow(0, 0, 1); });
  expect_undefined("select", [&] { u.select(0, 0); });
  expect_undefined("slice", [&] { u.slice(0, 0, 1); });
  expect_undefined("squeeze", [&] { u.squeeze(); });
  expect_undefined("squeeze", [&] { u.squeeze(0); });
  expect_undefined("unsqueeze", [&] { u.unsqueeze(0); });
  expect_undefined("flatten", [&] { u.flatten(); });
  expect_undefined("t", [&] { u.t(); });
}

TEST(BadViews, UndefinedShapedViews) {
  const Tensor u, a = ones({2, 3});
  expect_undefined("expand", [&] { u.expand({2, 3}); });
  expect_undefined("expand_as", [&] { a.expand_as(u); });
  expect_undefined("reshape_as", [&] { u.reshape_as(a); });
  expect_undefined("as_strided", [&] { u.as_strided({1}, {1}); });
  expect_undefined("contiguous", [&] { u.contiguous(); });
}

TEST(BadViews, UndefinedSplits) {
  const Tensor u;
  expect_undefined("chunk", [&] { u.chunk(2); });
  expect_undefined("split", [&] { u.split(1); });
  expect_undefined("unbind", [&] { u.unbind(); });
}

TEST(BadViews, ViewShapeOverflows) {
  expect_error([] { zeros({4}).view({k2e40, k2e40, -1}); }, {"view", "[1099511627776"});
}

TEST(BadViews, ViewTwoInferredDims) {
  expect_error(
      [] {
        zeros({2, 3}).view({-1, 3, -1});
      },
      {"view", "only one dimension", "[-1, 3, -1]"});
}

TEST(BadViews, ViewInferFromZeroElements) {
  expect_error([] { zeros({0, 3}).view({-1, 0}); }, {"view", "0 elements", "[-1, 0]"});
}

TEST(BadViews, ReshapeNegativeDim) {
  expect_error([] { zeros({6}).reshape({-3, -2}); }, {"reshape", "-3"});
}

TEST(BadViews, ReshapeInferredDoesNotDivide) {
  expect_error([] { zeros({7}).reshape({2, -1}); }, {"reshape", "[2, -1]", "7"});
}

TEST(BadViews, NarrowLengthOverflows) {
  // start + length wraps around int64: must not pass the bounds check
  expect_error([] { zeros({4}).narrow(0, 1, kMax); }, {"narrow", "9223372036854775807", "4"});
}

TEST(BadViews, NarrowStartBelowRange) {
  expect_error([] { zeros({4}).narrow(0, -5, 1); }, {"narrow", "start -5", "size 4"});
}

TEST(BadViews, NarrowOfScalar) {
  expect_error([] { zeros({}).narrow(0, 0, 1); }, {"narrow", "0-dim"});
}

TEST(BadViews, SelectLowestInt64) {
  expect_error(
      [] {
        zeros({3, 4}).select(1, std::numeric_limits<int64_t>::min());
      },
      {"select", "-9223372036854775808", "size 4"});
}

TEST(BadViews, SelectOfScalar) {
  expect_error([] { zeros({}).select(0, 0); }, {"select", "0-dim"});
}

TEST(BadViews, SelectOnEmptyDim) {
  expect_error([] { zeros({0, 2}).select(0, 0); }, {"select", "index 0", "size 0"});
}

TEST(BadViews, ExpandNegativeSize) {
  expect_error([] { zeros({1, 3}).expand({-2, 3}); }, {"expand", "-2"});
}

TEST(BadViews, ExpandNewDimMinusOne) {
  expect_error([] { zeros({3}).expand({-1, 3}); }, {"expand", "-1", "leading"});
}

TEST(BadViews, ExpandElementCountOverflows) {
  expect_error(
      [] {
        zeros({1}).expand({k2e40, k2e40, 1 << 30});
      },
      {"expand", "[1099511627776, 1099511627776, 1073741824]"});
}

TEST(BadViews, PermuteNegativeDuplicate) {
  expect_error([] { zeros({2, 3}).permute({1, -1}); }, {"permute", "repeated"});
}

TEST(BadViews, PermuteTooManyDims) {
  expect_error([] { zeros({2, 3}).permute({0, 1, 2}); }, {"permute", "3 dims"});
}

TEST(BadViews, TransposeNegativeOutOfRange) {
  expect_error([] { zeros({2, 3}).transpose(-3, 0); }, {"transpose", "-3", "out of range"});
}

TEST(BadViews, TOfThreeDims) {
  expect_error([] { zeros({2, 3, 4}).t(); }, {"t: ", "3"});
}

TEST(BadViews, SliceNegativeStep) {
  expect_error([] { zeros({5}).slice(0, 0, 5, -1); }, {"slice", "step", "-1"});
}

TEST(BadViews, SliceHugeStepStaysInBounds) {
  // (end - start + step - 1) overflows for a step near int64's max: the view must still be
  // one element, not a negative size.
  Tensor t = arange(8, kFloat32).view({2, 4});
  Tensor s = t.slice(1, 1, 4, kMax);
  ASSERT_EQ(s.sizes().vec(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(s.sum().item<float>(), 1.0f + 5.0f);
}

TEST(BadViews, SliceDimOutOfRange) {
  expect_error([] { zeros({2, 3}).slice(-3, 0, 1); }, {"slice", "-3", "2 dims"});
}

TEST(BadViews, AsStridedExtentOverflows) {
  // (3 - 1) * 2^62 wraps to a negative "last element": must not pass the storage check
  expect_error([] { zeros({4}).as_strided({3}, {int64_t(1) << 62}); },
               {"as_strided", "[3]", "[4611686018427387904]"});
}

TEST(BadViews, AsStridedOutsideStorage) {
  expect_error(
      [] {
        zeros({4}).as_strided({2, 2}, {2, 2});
      },
      {"as_strided", "[2, 2]", "storage of 4 elements"});
}

TEST(BadViews, AsStridedNegativeOffset) {
  expect_error([] { zeros({4}).as_strided({1}, {1}, -1); }, {"as_strided", "offset -1"});
}

TEST(BadViews, UnflattenProductWraps) {
  // (2^62 + 1) * 4 wraps to 4 (the dim's size) in int64
  expect_error(
      [] {
        zeros({4}).unflatten(0, {(int64_t(1) << 62) + 1, 4});
      },
      {"unflatten", "[4611686018427387905, 4]"});
}

TEST(BadViews, UnflattenDoesNotMultiply) {
  expect_error([] { zeros({2, 6}).unflatten(1, {4, 2}); }, {"unflatten", "[4, 2]", "(6)"});
}

TEST(BadViews, DiagonalSameDims) {
  expect_error([] { zeros({3, 3}).diagonal(0, 1, -1); }, {"diagonal", "identical"});
}

TEST(BadViews, MovedimRepeated) {
  expect_error([] { zeros({2, 3, 4}).movedim({0, 0}, {1, 2}); }, {"movedim", "repeated"});
}

TEST(BadViews, SplitWithSizesWrongSum) {
  expect_error([] { zeros({5}).split_with_sizes({2, 2}); }, {"split_with_sizes", "5"});
}

TEST(BadViews, UnbindOfScalar) {
  expect_error([] { zeros({}).unbind(0); }, {"unbind", "0-dim"});
}

TEST(BadViews, SqueezeDimOutOfRange) {
  expect_error([] { zeros({1, 2}).squeeze(IntArrayRef{0, 5}); }, {"squeeze", "5"});
}

}  // namespace
