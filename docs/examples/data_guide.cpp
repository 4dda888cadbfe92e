// The code of docs/data.md, compiled and run by ctest (docs.data_guide) so that every example
// in the guide builds and does what the guide says. Sections match the guide's. The MNIST
// section runs only where /usr/share/datasets/fashion-mnist is installed.
#include <ember/ember.h>

#include <cstdio>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

void expect(bool ok, const char* what) {
  if (!ok) throw std::logic_error(std::string("data guide: expected ") + what);
}

// ---- A dataset of your own ----
// Example i: the point (i, 2 i) with target i % 3.
struct Points : ember::data::datasets::Dataset<Points> {
  explicit Points(size_t n) : n(n) {}
  ember::data::Example<> get(size_t i) override {
    const float x = static_cast<float>(i);
    return {ember::tensor({x, 2 * x}),
            ember::scalar_tensor(static_cast<int64_t>(i % 3), ember::kInt64)};
  }
  std::optional<size_t> size() const override { return n; }
  size_t n;
};

void custom_dataset() {
  using namespace ember;
  namespace T = ember::data::transforms;
  auto dataset = Points(10)
                     .map(T::Lambda<>([](Tensor x) { return x / 10; }))  // each example's data
                     .map(T::Stack<>());                                 // batch -> one Example
  auto loader =
      data::make_data_loader(std::move(dataset), data::DataLoaderOptions().batch_size(4).seed(0));
  int64_t seen = 0;
  for (auto& batch : *loader) {  // one epoch: batches of 4, 4 and 2 in a random order
    expect(batch.data.size(1) == 2 && batch.target.dtype() == kInt64, "stacked batches");
    seen += batch.data.size(0);
  }
  expect(seen == 10, "every example once");
}

// ---- Transforms ----
void transforms() {
  using namespace ember;
  namespace T = ember::data::transforms;
  T::Normalize<> norm(0.5, 0.25);  // (x - 0.5) / 0.25
  data::Example<> e = norm.apply({tensor({0.0f, 1.0f}), tensor({int64_t{1}})});
  expect(equal(e.data, tensor({-2.0f, 2.0f})), "normalized data");

  T::Normalize<> per_channel({0.1, 0.2, 0.3}, {0.5, 0.5, 0.5});  // data [3, H, W]
  expect(per_channel(zeros({3, 2, 2})).sizes() == IntArrayRef({3, 2, 2}), "per channel");
}

// ---- Samplers and the loader's options ----
void loader_options() {
  using namespace ember;
  namespace T = ember::data::transforms;
  // Sequential order, a worker thread preparing batches ahead, no short last batch.
  auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
      Points(10).map(T::Stack<>()),
      data::DataLoaderOptions().batch_size(4).workers(2).drop_last(true));
  std::vector<int64_t> firsts;
  for (int epoch = 0; epoch < 2; ++epoch) {  // every loop over the loader is a new epoch
    for (auto& batch : *loader) firsts.push_back(batch.data[0][0].item<int64_t>());
  }
  expect(firsts == std::vector<int64_t>({0, 4, 0, 4}), "two epochs of two batches");

  // Worker exceptions come out of the loop.
  struct Broken : data::datasets::Dataset<Broken> {
    data::Example<> get(size_t) override { throw Error("Broken: no data"); }
    std::optional<size_t> size() const override { return 3; }
  };
  auto broken =
      data::make_data_loader(Broken().map(T::Stack<>()), data::DataLoaderOptions().workers(1));
  bool caught = false;
  try {
    for (auto& batch : *broken) (void)batch;
  } catch (const Error& err) {
    caught = std::string(err.what()) == "Broken: no data";
  }
  expect(caught, "the worker's exception");
}

// ---- MNIST ----
void mnist() {
  using namespace ember;
  namespace T = ember::data::transforms;
  const std::string root = "/usr/share/datasets/fashion-mnist";
  if (std::FILE* f = std::fopen((root + "/t10k-labels-idx1-ubyte.gz").c_str(), "rb")) {
    std::fclose(f);
  } else {
    std::cout << "data guide: " << root << " not installed, MNIST section skipped\n";
    return;
  }
  std::optional<data::datasets::MNIST> files;
  try {
    files.emplace(root, data::datasets::MNIST::Mode::kTest);
  } catch (const Error& e) {  // the .gz files need an ember built with zlib
    if (std::string(e.what()).find("without zlib") == std::string::npos) throw;
    std::cout << "data guide: ember was built without zlib, MNIST section skipped\n";
    return;
  }
  auto test = std::move(*files).map(T::Normalize<>(0.2860, 0.3530)).map(T::Stack<>());
  auto loader = data::make_data_loader(std::move(test),
                                       data::DataLoaderOptions().batch_size(1000).workers(2));
  int64_t n = 0;
  for (auto& batch : *loader) {
    expect(batch.data.sizes() == IntArrayRef({1000, 1, 28, 28}), "MNIST batch shape");
    n += batch.target.size(0);
  }
  expect(n == 10000, "10000 test images");
}

}  // namespace

int main() {
  custom_dataset();
  transforms();
  loader_options();
  mnist();
  std::cout << "data guide: ok\n";
  return 0;
}
