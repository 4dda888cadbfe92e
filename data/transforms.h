// Transforms, as LibTorch's torch::data::transforms: BatchTransform (a whole batch), Transform
// (each example), TensorTransform (each example's data only), Normalize, Lambda/TensorLambda
// and Stack (collates a batch of examples into one Example of stacked tensors).
#pragma once

#include <functional>
#include <utility>
#include <vector>

#include <ember/core/array_ref.h>
#include <ember/core/tensor.h>
#include <ember/data/example.h>

namespace ember {
namespace data {
namespace transforms {

template <class InputBatch, class OutputBatch>
class BatchTransform {
 public:
  using InputBatchType = InputBatch;
  using OutputBatchType = OutputBatch;

  virtual ~BatchTransform() = default;
  virtual OutputBatch apply_batch(InputBatch input_batch) = 0;
};

// Maps each example of a batch on its own.
template <class Input, class Output>
class Transform : public BatchTransform<std::vector<Input>, std::vector<Output>> {
 public:
  using InputType = Input;
  using OutputType = Output;

  virtual Output apply(Input input) = 0;

  std::vector<Output> apply_batch(std::vector<Input> input_batch) override {
    std::vector<Output> output_batch;
    output_batch.reserve(input_batch.size());
    for (auto& input : input_batch) output_batch.push_back(apply(std::move(input)));
    return output_batch;
  }
};

// Maps each example's data tensor and leaves its target alone.
template <class Target = Tensor>
class TensorTransform : public Transform<Example<Tensor, Target>, Example<Tensor, Target>> {
 public:
  using E = Example<Tensor, Target>;

  virtual Tensor operator()(Tensor input) = 0;

  E apply(E input) override {
    input.data = (*this)(std::move(input.data));
    return input;
  }
};

template <class Target = Tensor>
class TensorLambda : public TensorTransform<Target> {
 public:
  using FunctionType = std::function<Tensor(Tensor)>;
  explicit TensorLambda(FunctionType function) : function_(std::move(function)) {}
  Tensor operator()(Tensor input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

// A function of whole batches.
template <class Input, class Output = Input>
class BatchLambda : public BatchTransform<Input, Output> {
 public:
  using FunctionType = std::function<Output(Input)>;
  explicit BatchLambda(FunctionType function) : function_(std::move(function)) {}
  Output apply_batch(Input input_batch) override { return function_(std::move(input_batch)); }

 private:
  FunctionType function_;
};

// A function of each example: Lambda<Example<>>([](Example<> e) { ... }), as in LibTorch.
// ember's short form Lambda<>(fn), with fn a Tensor -> Tensor function, is TensorLambda<>:
// it maps each example's data (LibTorch has no default for Lambda's Input).
template <class Input = Tensor, class Output = Input>
class Lambda : public Transform<Input, Output> {
 public:
  using FunctionType = std::function<Output(Input)>;
  explicit Lambda(FunctionType function) : function_(std::move(function)) {}
  Output apply(Input input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

template <>
class Lambda<Tensor, Tensor> : public TensorLambda<Tensor> {
 public:
  using TensorLambda<Tensor>::TensorLambda;
};

// (data - mean) / stddev. One value each: scalar arithmetic, any data shape. Per-channel
// lists (as LibTorch, broadcast as [C, 1, 1]): data must be [..., C, H, W]. A list of one
// value broadcasts against a list of C.
namespace detail {
struct NormalizeImpl {
  NormalizeImpl(ArrayRef<double> mean, ArrayRef<double> stddev);
  Tensor operator()(const Tensor& input);

  std::vector<double> mean_values, stddev_values;
  Tensor mean, stddev;  // [C, 1, 1] float32, for the per-channel form
};
}  // namespace detail

template <class Target = Tensor>
struct Normalize : public TensorTransform<Target> {
  Normalize(ArrayRef<double> mean, ArrayRef<double> stddev) : impl_(mean, stddev) {}
  Tensor operator()(Tensor input) override { return impl_(input); }

 private:
  detail::NormalizeImpl impl_;
};

namespace detail {
// stack(tensors) for collation: one allocation and a memcpy per example when all are
// contiguous CPU tensors of one dtype and shape, ember::stack otherwise.
Tensor stack_examples(const std::vector<Tensor>& tensors);
}  // namespace detail

template <class T = Example<>>
struct Stack;

// A batch of examples -> one Example: data stacked into [N, ...], targets into [N, ...].
template <>
struct Stack<Example<>> : public BatchTransform<std::vector<Example<>>, Example<>> {
  Example<> apply_batch(std::vector<Example<>> examples) override {
    std::vector<Tensor> data, targets;
    data.reserve(examples.size());
    targets.reserve(examples.size());
    for (auto& example : examples) {
      data.push_back(std::move(example.data));
      targets.push_back(std::move(example.target));
    }
    return {detail::stack_examples(data), detail::stack_examples(targets)};
  }
};

// LibTorch's names for collations.
template <class T, class BatchType = std::vector<T>>
using Collation = BatchTransform<BatchType, T>;
template <class T, class BatchType = std::vector<T>>
using Collate = BatchLambda<BatchType, T>;

}  // namespace transforms
}  // namespace data
}  // namespace ember
