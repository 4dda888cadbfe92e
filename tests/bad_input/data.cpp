// Bad-input suite, data: the MNIST reader on missing, empty, garbage and lying files (written to
// a scratch folder), data loaders with impossible options, samplers and transforms misused.
// Each case asserts ember::Error and the file, option or shape its message names.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "../data_idx.h"
#include "bad_input.h"

using namespace ember;
using bad_input::expect_error;
using bad_input::Scratch;
using data::datasets::MNIST;

namespace {

const char* kImages = "train-images-idx3-ubyte";
const char* kLabels = "train-labels-idx1-ubyte";

std::string bytes_of(const std::vector<unsigned char>& v) {
  return std::string(v.begin(), v.end());
}

TEST(BadData, MnistRootDoesNotExist) {
  Scratch dir;
  const std::string root = dir.file("no_such_folder");
  expect_error([&] { MNIST set(root); }, {"MNIST", "training images", root});
}

TEST(BadData, MnistEmptyImagesFile) {
  Scratch dir;
  const std::string images = dir.write(kImages, "");
  dir.write(kLabels, bytes_of(data_test::idx_labels(1)));
  expect_error([&] { MNIST set(dir.path()); }, {images, "truncated", "the file has 0"});
}

TEST(BadData, MnistTextFileAsImages) {
  Scratch dir;
  const std::string images = dir.write(kImages, "hello, this is not an IDX file\n");
  dir.write(kLabels, bytes_of(data_test::idx_labels(1)));
  expect_error([&] { MNIST set(dir.path()); }, {images, "magic number 1751477356", "2051"});
}

TEST(BadData, MnistImagesPathIsAFolder) {
  Scratch dir;
  std::filesystem::create_directory(dir.file(kImages));
  dir.write(kLabels, bytes_of(data_test::idx_labels(1)));
  expect_error([&] { MNIST set(dir.path()); }, {"MNIST", kImages});
}

TEST(BadData, MnistZeroByZeroImages) {
  Scratch dir;
  const std::string images = dir.write(kImages, bytes_of(data_test::idx_images(1, 0, 0)));
  dir.write(kLabels, bytes_of(data_test::idx_labels(1)));
  expect_error([&] { MNIST set(dir.path()); }, {images, "0 x 0", "28 x 28"});
}

TEST(BadData, MnistHugeRowsInTheHeader) {
  Scratch dir;
  const std::string images =
      dir.write(kImages, bytes_of(data_test::idx_images(0, 0x80000000u, 28)));
  dir.write(kLabels, bytes_of(data_test::idx_labels(0)));
  expect_error([&] { MNIST set(dir.path()); }, {images, "2147483648 x 28"});
}

TEST(BadData, MnistAllOnesCountInAFileOfOne) {
  // 2^32 - 1 images claimed, one present: truncated, and no 3 TB allocation
  Scratch dir;
  auto bytes = data_test::idx_images(1);
  bytes[4] = bytes[5] = bytes[6] = bytes[7] = 0xff;
  const std::string images = dir.write(kImages, bytes_of(bytes));
  dir.write(kLabels, bytes_of(data_test::idx_labels(1)));
  expect_error([&] { MNIST set(dir.path()); },
               {images, "is truncated", "3367254359280 bytes of pixels", "found 784"});
}

TEST(BadData, MnistLabelsHeaderOnly) {
  Scratch dir;
  dir.write(kImages, bytes_of(data_test::idx_images(2)));
  auto labels = data_test::idx_labels(2);
  labels.resize(8);
  const std::string path = dir.write(kLabels, bytes_of(labels));
  expect_error([&] { MNIST set(dir.path()); }, {path, "truncated", "expected 2 bytes of labels"});
}

TEST(BadData, MnistLabelsGarbage) {
  Scratch dir;
  dir.write(kImages, bytes_of(data_test::idx_images(1)));
  const std::string path = dir.write(kLabels, std::string("\x00\x00\x08\x03\x00", 5));
  expect_error([&] { MNIST set(dir.path()); }, {path, "magic number 2051", "2049"});
}

TEST(BadData, MnistTestSplitMissingLabels) {
  Scratch dir;
  dir.write("t10k-images-idx3-ubyte", bytes_of(data_test::idx_images(1)));
  expect_error([&] { MNIST set(dir.path(), MNIST::Mode::kTest); },
               {"test labels", "t10k-labels-idx1-ubyte"});
}

TEST(BadData, MnistGetOutOfRange) {
  Scratch dir;
  dir.write(kImages, bytes_of(data_test::idx_images(2)));
  dir.write(kLabels, bytes_of(data_test::idx_labels(2)));
  MNIST set(dir.path());
  expect_error([&] { set.get(2); }, {"MNIST::get", "index 2", "2"});
}

// A dataset of `n` examples [2] (float32), targets their index.
struct Numbers : data::datasets::Dataset<Numbers> {
  explicit Numbers(size_t n, int delay_ms = 0) : n(n), delay_ms(delay_ms) {}
  data::Example<> get(size_t i) override {
    if (delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    return {full({2}, static_cast<double>(i)), tensor(static_cast<int64_t>(i))};
  }
  std::optional<size_t> size() const override { return n; }
  size_t n;
  int delay_ms;
};

TEST(BadData, LoaderBatchSizeZero) {
  expect_error(
      [] {
        data::make_data_loader(Numbers(4).map(data::transforms::Stack<>()),
                               data::DataLoaderOptions().batch_size(0));
      },
      {"DataLoader", "batch_size"});
}

TEST(BadData, LoaderZeroMaxJobsWithWorkers) {
  expect_error(
      [] {
        data::make_data_loader(Numbers(4).map(data::transforms::Stack<>()),
                               data::DataLoaderOptions(2).workers(2).max_jobs(0));
      },
      {"DataLoader", "max_jobs", "2 workers"});
}

TEST(BadData, LoaderHundredThousandWorkers) {
  // refused up front: not 100000 dataset copies and threads, nor a std::system_error
  expect_error(
      [] {
        data::make_data_loader(Numbers(4).map(data::transforms::Stack<>()),
                               data::DataLoaderOptions(2).workers(100000));
      },
      {"DataLoader", "100000", "workers"});
}

TEST(BadData, LoaderTimeout) {
  auto loader = data::make_data_loader(
      Numbers(4, /*delay_ms=*/300).map(data::transforms::Stack<>()),
      data::DataLoaderOptions(2).workers(1).timeout(std::chrono::milliseconds(20)));
  expect_error([&] { loader->begin(); }, {"DataLoader", "did not arrive within"});
}

TEST(BadData, StackOfMismatchedExamples) {
  std::vector<data::Example<>> batch{{zeros({2}), tensor(int64_t(0))},
                                     {zeros({3}), tensor(int64_t(1))}};
  expect_error([&] { data::transforms::Stack<>().apply_batch(batch); }, {"stack", "[2]", "[3]"});
}

TEST(BadData, StackOfNothing) {
  expect_error([] { data::transforms::Stack<>().apply_batch({}); }, {"Stack", "empty"});
}

TEST(BadData, NormalizeZeroStddev) {
  expect_error([] { data::transforms::Normalize<>({0.5}, {0.0}); }, {"Normalize", "stddev"});
}

TEST(BadData, NormalizeChannelMismatch) {
  data::transforms::Normalize<> norm({0.1, 0.2, 0.3}, {1.0, 1.0, 1.0});
  expect_error([&] { norm(zeros({1, 4, 4})); }, {"Normalize", "3", "[1, 4, 4]"});
}

TEST(BadData, RandomSamplerNegativeSize) {
  expect_error([] { data::samplers::RandomSampler(-3); }, {"RandomSampler", "-3"});
}

TEST(BadData, SequentialSamplerZeroBatch) {
  data::samplers::SequentialSampler sampler(4);
  expect_error([&] { sampler.next(0); }, {"SequentialSampler", "batch_size"});
}

}  // namespace
