// ember::data::datasets::MNIST: small IDX files written to a temporary folder (plain and, when
// zlib is linked, gzip-compressed) checked value by value, every error case, and the real
// Fashion-MNIST files when /usr/share/datasets/fashion-mnist is installed.
#include <ember/ember.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <algorithm>

#include "data_idx.h"

#include "error_of.h"

using namespace ember;
using data::datasets::MNIST;
using data_test::TempDir;
using ::testing::AllOf;
using ::testing::HasSubstr;

namespace {

// Every pixel and label of a split of `count` examples written by data_test::write_split.
void expect_split(const MNIST& set, int64_t count) {
  ASSERT_EQ(set.images().sizes(), IntArrayRef({count, 1, 28, 28}));
  ASSERT_EQ(set.images().dtype(), kFloat32);
  ASSERT_EQ(set.targets().sizes(), IntArrayRef({count}));
  ASSERT_EQ(set.targets().dtype(), kInt64);
  ASSERT_EQ(set.size(), std::optional<size_t>(static_cast<size_t>(count)));
  const float* px = set.images().data_ptr<float>();
  for (int64_t n = 0; n < count; ++n) {
    for (int64_t r = 0; r < 28; ++r) {
      for (int64_t c = 0; c < 28; ++c) {
        // The same float as LibTorch's byte tensor .to(kFloat32).div_(255).
        const float expected = static_cast<float>(data_test::pixel(n, r, c)) / 255.0f;
        ASSERT_EQ(px[(n * 28 + r) * 28 + c], expected) << n << " " << r << " " << c;
      }
    }
    EXPECT_EQ(set.targets()[n].item<int64_t>(), n % 10);
  }
}

TEST(MNIST, ReadsPlainTrainingFiles) {
  TempDir dir;
  data_test::write_split(dir, "train", 5);
  MNIST set(dir.path());
  EXPECT_TRUE(set.is_train());
  expect_split(set, 5);
  EXPECT_FLOAT_EQ(set.images().max().item<float>(), 1.0f);  // byte 255 appears (n 0, pixel 73)
}

TEST(MNIST, ReadsTestSplitAndTrailingSlash) {
  TempDir dir;
  data_test::write_split(dir, "t10k", 3);
  data_test::write_split(dir, "train", 4);
  MNIST set(dir.path() + "/", MNIST::Mode::kTest);
  EXPECT_FALSE(set.is_train());
  expect_split(set, 3);
}

TEST(MNIST, GetReturnsViewsOfOneExample) {
  TempDir dir;
  data_test::write_split(dir, "train", 4);
  MNIST set(dir.path());
  data::Example<> e = set.get(2);
  EXPECT_EQ(e.data.sizes(), IntArrayRef({1, 28, 28}));
  EXPECT_EQ(e.target.dim(), 0);
  EXPECT_EQ(e.target.item<int64_t>(), 2);
  EXPECT_TRUE(equal(e.data, set.images()[2]));
  EXPECT_EQ(e.data.data_ptr(), set.images()[2].data_ptr());  // no copy
  EXPECT_THAT(error_of([&] { set.get(4); }), HasSubstr("index 4 is out of range for 4 examples"));
}

TEST(MNIST, EmptySplit) {
  TempDir dir;
  data_test::write_split(dir, "train", 0);
  MNIST set(dir.path());
  EXPECT_EQ(set.size(), std::optional<size_t>(0));
  EXPECT_EQ(set.images().sizes(), IntArrayRef({0, 1, 28, 28}));
}

#ifdef EMBER_TEST_HAS_ZLIB
TEST(MNIST, ReadsGzipFiles) {
  TempDir dir;
  data_test::write_split(dir, "train", 6, /*gz=*/true);
  MNIST set(dir.path());
  expect_split(set, 6);
}

TEST(MNIST, PlainAndGzipMayBeMixed) {
  TempDir dir;
  data_test::write_gz(dir.file("t10k-images-idx3-ubyte.gz"), data_test::idx_images(3));
  data_test::write_file(dir.file("t10k-labels-idx1-ubyte"), data_test::idx_labels(3));
  expect_split(MNIST(dir.path(), MNIST::Mode::kTest), 3);
}

TEST(MNIST, TruncatedGzipFile) {
  TempDir dir;
  auto images = data_test::idx_images(2);
  images.resize(images.size() - 100);  // a complete gzip stream of too few bytes
  data_test::write_gz(dir.file("train-images-idx3-ubyte.gz"), images);
  data_test::write_gz(dir.file("train-labels-idx1-ubyte.gz"), data_test::idx_labels(2));
  EXPECT_THAT(error_of([&] { MNIST set(dir.path()); }),
              AllOf(HasSubstr("train-images-idx3-ubyte.gz is truncated"),
                    HasSubstr("expected 1568 bytes of pixels")));
}

TEST(MNIST, CorruptGzipStream) {
  TempDir dir;
  data_test::write_split(dir, "train", 2, /*gz=*/true);
  // A valid gzip header followed by garbage deflate data.
  std::vector<unsigned char> bad = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
  for (int i = 0; i < 64; ++i) bad.push_back(0xff);
  data_test::write_file(dir.file("train-images-idx3-ubyte.gz"), bad);
  EXPECT_THAT(error_of([&] { MNIST set(dir.path()); }), HasSubstr("train-images-idx3-ubyte.gz"));
}
#else
TEST(MNIST, GzipWithoutZlibIsAClearError) {
  TempDir dir;
  data_test::write_file(dir.file("train-images-idx3-ubyte.gz"), {0x1f, 0x8b, 8, 0});
  EXPECT_THAT(error_of([&] { MNIST set(dir.path()); }),
              AllOf(HasSubstr("train-images-idx3-ubyte.gz"), HasSubstr("without zlib")));
}
#endif

// ---- errors ----

TEST(MNIST, MissingFileNamesThePathsTried) {
  TempDir dir;
  const std::string msg = error_of([&] { MNIST set(dir.path()); });
  EXPECT_THAT(msg,
              AllOf(HasSubstr("training images"), HasSubstr(dir.file("train-images-idx3-ubyte")),
                    HasSubstr(dir.file("train-images-idx3-ubyte.gz"))));
  data_test::write_file(dir.file("t10k-images-idx3-ubyte"), data_test::idx_images(1));
  EXPECT_THAT(error_of([&] { MNIST set(dir.path(), MNIST::Mode::kTest); }),
              AllOf(HasSubstr("test labels"), HasSubstr(dir.file("t10k-labels-idx1-ubyte.gz"))));
}

TEST(MNIST, WrongMagicNumber) {
  TempDir dir;
  data_test::write_file(dir.file("train-images-idx3-ubyte"), data_test::idx_labels(3));
  data_test::write_file(dir.file("train-labels-idx1-ubyte"), data_test::idx_labels(3));
  EXPECT_THAT(error_of([&] { MNIST set(dir.path()); }),
              AllOf(HasSubstr("train-images-idx3-ubyte has magic number 2049, expected 2051")));
  data_test::write_file(dir.file("train-images-idx3-ubyte"), data_test::idx_images(3));
  data_test::write_file(dir.file("train-labels-idx1-ubyte"), data_test::idx_images(3));
  EXPECT_THAT(error_of([&] { MNIST set(dir.path()); }),
              HasSubstr("train-labels-idx1-ubyte has magic number 2051, expected 2049"));
}

TEST(MNIST, GzipDataUnderAPlainNameIsExplained) {
  TempDir dir;
  data_test::write_file(dir.file("train-images-idx3-ubyte"),
                        {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3, 4, 5, 6});
  EXPECT_THAT(error_of([&] { MNIST set(dir.path()); }), HasSubstr("name it with .gz"));
}

TEST(MNIST, TruncatedHeaderPixelsAndLabels) {
  TempDir dir;
  const std::string images = dir.file("train-images-idx3-ubyte");
  const std::string labels = dir.file("train-labels-idx1-ubyte");
  data_test::write_file(labels, data_test::idx_labels(3));
  auto bytes = data_test::idx_images(3);
  data_test::write_file(images, std::vector<unsigned char>(bytes.begin(), bytes.begin() + 10));
  EXPECT_THAT(error_of([&] { MNIST set(dir.path()); }),
              HasSubstr("is truncated: its header needs 16 bytes, the file has 10"));
  bytes.pop_back();
  data_test::write_file(images, bytes);
  EXPECT_THAT(error_of([&] { MNIST set(dir.path()); }),
              HasSubstr("expected 2352 bytes of pixels after the header, found 2351"));
  data_test::write_file(images, data_test::idx_images(3));
  auto label_bytes = data_test::idx_labels(3);
  label_bytes.pop_back();
  data_test::write_file(labels, label_bytes);
  EXPECT_THAT(error_of([&] { MNIST set(dir.path()); }),
              AllOf(HasSubstr("train-labels-idx1-ubyte is truncated"),
                    HasSubstr("expected 3 bytes of labels")));
}

// A header that claims 2^31 images (or labels) in a file that holds one is a truncated file,
// named as such, not an attempt to allocate 6.7 TB (memory grows only with what is read).
TEST(MNIST, HeaderClaimingBillionsOfImagesInAFileOfOne) {
  TempDir dir;
  auto images = data_test::idx_images(1);
  images[4] = 0x80;  // count 0x80000001: 2^31 + 1 images
  data_test::write_file(dir.file("train-images-idx3-ubyte"), images);
  data_test::write_file(dir.file("train-labels-idx1-ubyte"), data_test::idx_labels(1));
  EXPECT_THAT(
      error_of([&] { MNIST set(dir.path()); }),
      AllOf(HasSubstr("train-images-idx3-ubyte is truncated"),
            HasSubstr("expected 1683627180816 bytes of pixels after the header, found 784")));
  auto labels = data_test::idx_labels(1);
  labels[4] = 0x80;
  data_test::write_file(dir.file("train-images-idx3-ubyte"), data_test::idx_images(1));
  data_test::write_file(dir.file("train-labels-idx1-ubyte"), labels);
  EXPECT_THAT(error_of([&] { MNIST set(dir.path()); }),
              AllOf(HasSubstr("train-labels-idx1-ubyte is truncated"),
                    HasSubstr("expected 2147483649 bytes of labels after the header, found 1")));
}

TEST(MNIST, ImageAndLabelCountsMustMatch) {
  TempDir dir;
  data_test::write_file(dir.file("train-images-idx3-ubyte"), data_test::idx_images(3));
  data_test::write_file(dir.file("train-labels-idx1-ubyte"), data_test::idx_labels(4));
  EXPECT_THAT(error_of([&] { MNIST set(dir.path()); }), HasSubstr("3 images but 4 labels"));
}

TEST(MNIST, ImagesMustBe28By28) {
  TempDir dir;
  data_test::write_file(dir.file("train-images-idx3-ubyte"), data_test::idx_images(2, 32, 32));
  data_test::write_file(dir.file("train-labels-idx1-ubyte"), data_test::idx_labels(2));
  EXPECT_THAT(error_of([&] { MNIST set(dir.path()); }),
              HasSubstr("holds 32 x 32 images, expected 28 x 28"));
}

// ---- the real Fashion-MNIST files (Debian's dataset-fashion-mnist), skipped without them ----

const char* kFashionMnist = "/usr/share/datasets/fashion-mnist";

TEST(MNIST, RealFashionMnist) {
  if (!std::filesystem::exists(kFashionMnist)) GTEST_SKIP() << kFashionMnist << " not installed";
#ifndef EMBER_TEST_HAS_ZLIB
  if (!std::filesystem::exists(std::string(kFashionMnist) + "/train-images-idx3-ubyte")) {
    GTEST_SKIP() << "only .gz files there, and ember was built without zlib";
  }
#endif
  const auto start = std::chrono::steady_clock::now();
  MNIST train(kFashionMnist);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::cout << "MNIST training set read in " << ms << " ms\n";
  MNIST test(kFashionMnist, MNIST::Mode::kTest);
  ASSERT_EQ(train.size(), std::optional<size_t>(60000));
  ASSERT_EQ(test.size(), std::optional<size_t>(10000));
  EXPECT_EQ(train.images().sizes(), IntArrayRef({60000, 1, 28, 28}));
  // Labels 0..9, balanced: 6000 training and 1000 test images per class.
  for (const MNIST* set : {&train, &test}) {
    std::vector<int64_t> per_class(10, 0);
    const int64_t* y = set->targets().data_ptr<int64_t>();
    for (int64_t i = 0; i < set->targets().numel(); ++i) {
      ASSERT_TRUE(y[i] >= 0 && y[i] <= 9) << i;
      ++per_class[static_cast<size_t>(y[i])];
    }
    EXPECT_EQ(per_class, std::vector<int64_t>(10, set == &train ? 6000 : 1000));
  }
  // The statistics every Fashion-MNIST normalization uses, and the pixel range [0, 1].
  const float* x = train.images().data_ptr<float>();
  const int64_t n = train.images().numel();
  double sum = 0, sum_sq = 0;
  float lo = 1, hi = 0;
  for (int64_t i = 0; i < n; ++i) {
    sum += x[i];
    sum_sq += double(x[i]) * x[i];
    lo = std::min(lo, x[i]);
    hi = std::max(hi, x[i]);
  }
  const double mean = sum / n;
  EXPECT_NEAR(mean, 0.2860, 1e-4);
  EXPECT_NEAR(std::sqrt(sum_sq / n - mean * mean), 0.3530, 1e-4);
  EXPECT_EQ(lo, 0.0f);
  EXPECT_EQ(hi, 1.0f);
}

}  // namespace
