// Datasets, as LibTorch's torch::data::datasets: BatchDataset (get_batch over a list of
// indices), Dataset (get(index) per example, batched by default) and MapDataset, which
// .map(transform) returns so that transforms chain: ds.map(Normalize<>(m, s)).map(Stack<>()).
#pragma once

#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include <ember/core/array_ref.h>
#include <ember/data/example.h>

namespace ember {
namespace data {
namespace datasets {

template <class Source, class AppliedTransform>
class MapDataset;

template <class DatasetType, class TransformType>
MapDataset<DatasetType, TransformType> map(DatasetType dataset, TransformType transform);

// Self is the derived class (CRTP), so that map() can copy or move the whole dataset.
template <class Self, class Batch = std::vector<Example<>>, class BatchRequest = ArrayRef<size_t>>
class BatchDataset {
 public:
  using SelfType = Self;
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;

  virtual ~BatchDataset() = default;

  virtual Batch get_batch(BatchRequest request) = 0;
  // The number of examples, or nullopt when unknown (a loader then needs its own sampler).
  virtual std::optional<size_t> size() const = 0;

  // A dataset that applies `transform` to every batch of this one: copies this dataset
  // (a cheap copy for tensor-backed ones) or, on an rvalue, moves it.
  template <class TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) & {
    return datasets::map(static_cast<Self&>(*this), std::move(transform));
  }
  template <class TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) && {
    return datasets::map(std::move(static_cast<Self&>(*this)), std::move(transform));
  }
};

// A dataset of examples addressed by index: derive, override get() and size().
//   struct MyData : ember::data::datasets::Dataset<MyData> {
//     ember::data::Example<> get(size_t i) override;
//     std::optional<size_t> size() const override;
//   };
template <class Self, class SingleExample = Example<>>
class Dataset : public BatchDataset<Self, std::vector<SingleExample>> {
 public:
  using ExampleType = SingleExample;

  virtual ExampleType get(size_t index) = 0;

  // get() for each index, in order. Override when a batch can be read faster at once.
  std::vector<ExampleType> get_batch(ArrayRef<size_t> indices) override {
    std::vector<ExampleType> batch;
    batch.reserve(indices.size());
    for (const size_t i : indices) batch.push_back(get(i));
    return batch;
  }
};

// A dataset whose batches are the source's batches passed through a batch transform.
template <class Source, class AppliedTransform>
class MapDataset : public BatchDataset<MapDataset<Source, AppliedTransform>,
                                       typename AppliedTransform::OutputBatchType,
                                       typename Source::BatchRequestType> {
 public:
  using DatasetType = Source;
  using TransformType = AppliedTransform;
  using BatchRequestType = typename Source::BatchRequestType;
  using OutputBatchType = typename AppliedTransform::OutputBatchType;

  MapDataset(DatasetType dataset, TransformType transform)
      : dataset_(std::move(dataset)), transform_(std::move(transform)) {}

  OutputBatchType get_batch(BatchRequestType indices) override {
    return transform_.apply_batch(dataset_.get_batch(std::move(indices)));
  }
  std::optional<size_t> size() const override { return dataset_.size(); }

  const DatasetType& dataset() const { return dataset_; }
  const TransformType& transform() const { return transform_; }

 private:
  DatasetType dataset_;
  TransformType transform_;
};

template <class DatasetType, class TransformType>
MapDataset<DatasetType, TransformType> map(DatasetType dataset, TransformType transform) {
  static_assert(
      std::is_same<typename DatasetType::BatchType, typename TransformType::InputBatchType>::value,
      "map: the dataset's batch type does not match the transform's input type "
      "(Stack<> must come last: it turns a batch of examples into one Example)");
  return {std::move(dataset), std::move(transform)};
}

}  // namespace datasets

// LibTorch's exports: torch::data::Dataset<Self, Example> and torch::data::BatchDataset.
using datasets::BatchDataset;
using datasets::Dataset;

}  // namespace data
}  // namespace ember
