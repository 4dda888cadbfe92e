// The MNIST dataset (and Fashion-MNIST, same format), as LibTorch's torch::data::datasets::MNIST:
// reads the IDX files of one split, plain or gzip-compressed (.gz), into two tensors.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include <ember/core/tensor.h>
#include <ember/data/dataset.h>
#include <ember/data/example.h>

namespace ember {
namespace data {
namespace datasets {

// Reads <root>/train-images-idx3-ubyte and train-labels-idx1-ubyte (kTrain) or
// t10k-images-idx3-ubyte and t10k-labels-idx1-ubyte (kTest), each also as <name>.gz.
// images(): float32 [N, 1, 28, 28] in [0, 1] (pixel / 255); targets(): int64 [N].
// Throws ember::Error naming the file for a missing file, a wrong magic number, truncated
// data, mismatched image and label counts or images that are not 28 x 28.
class MNIST : public Dataset<MNIST> {
 public:
  enum class Mode { kTrain, kTest };

  explicit MNIST(const std::string& root, Mode mode = Mode::kTrain);

  // {images()[index], targets()[index]}: views, no copy.
  Example<> get(size_t index) override;
  std::optional<size_t> size() const override;
  bool is_train() const noexcept { return train_; }
  const Tensor& images() const { return images_; }
  const Tensor& targets() const { return targets_; }

 private:
  Tensor images_, targets_;
  bool train_;
};

}  // namespace datasets
}  // namespace data
}  // namespace ember
