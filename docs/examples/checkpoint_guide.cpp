// The code of docs/serialize.md's "Checkpoints", compiled and run by ctest
// (docs.checkpoint_guide): trains a small model one epoch, saves a Checkpoint, rebuilds model,
// optimizer, scheduler and loader as a fresh process would, loads it, and checks that the
// restored state is the saved one and that training on gives what an uninterrupted run gives.
#include <ember/ember.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace ember;

void expect(bool ok, const std::string& what) {
  if (!ok) throw std::logic_error("checkpoint guide: expected " + what);
}

// Same dtype, shape and bytes.
bool identical(const Tensor& a, const Tensor& b) {
  const Tensor x = a.cpu().contiguous(), y = b.cpu().contiguous();
  return x.dtype() == y.dtype() && x.sizes().equals(y.sizes()) &&
         std::memcmp(x.data_ptr(), y.data_ptr(), x.nbytes()) == 0;
}

bool identical(const OrderedDict<std::string, Tensor>& a, const std::map<std::string, Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (const auto& item : a) {
    if (b.count(item.key()) == 0 || !identical(item.value(), b.at(item.key()))) return false;
  }
  return true;
}

std::map<std::string, Tensor> copy_of(const OrderedDict<std::string, Tensor>& dict) {
  std::map<std::string, Tensor> m;
  for (const auto& item : dict) m.emplace(item.key(), item.value().detach().clone());
  return m;
}

struct Net : nn::Module {
  Net() : fc1(4, 16), drop(0.2), fc2(16, 2) {
    register_module("fc1", fc1);
    register_module("drop", drop);
    register_module("fc2", fc2);
  }
  Tensor forward(const Tensor& x) { return fc2(drop(relu(fc1(x)))); }
  nn::Linear fc1;
  nn::Dropout drop;
  nn::Linear fc2;
};

struct Points : data::datasets::Dataset<Points> {
  Points() {
    const Tensor state = get_rng_state();  // the same data in every run
    manual_seed(7);
    x = randn({32, 4});
    y = (x.sum(1) > 0).to(kInt64);
    set_rng_state(state);
  }
  data::Example<> get(size_t i) override {
    return {x[static_cast<int64_t>(i)], y[static_cast<int64_t>(i)]};
  }
  std::optional<size_t> size() const override { return 32; }
  Tensor x, y;
};

// What a training program builds at start-up, before it resumes.
struct Trainer {
  Trainer()
      : net(std::make_shared<Net>()),
        optimizer(net->parameters(), optim::AdamOptions(1e-2)),
        scheduler(optimizer, /*step_size=*/1, /*gamma=*/0.5),
        loader(data::make_data_loader(Points().map(data::transforms::Stack<>()),
                                      data::DataLoaderOptions(8))) {
    checkpoint.add("model", net).add("optimizer", optimizer).add("scheduler", scheduler);
    checkpoint.add(
        "sampler", [this] { return loader->state_dict(); },
        [this](const std::map<std::string, Tensor>& s) { loader->load_state_dict(s); });
    checkpoint.metadata["model"] = "Net(4, 16, 2)";
  }

  float train_epoch() {
    float last = 0;
    for (auto& batch : *loader) {
      optimizer.zero_grad();
      Tensor loss = nn::functional::cross_entropy(net->forward(batch.data), batch.target);
      loss.backward();
      optimizer.step();
      last = loss.item<float>();
      ++checkpoint.step;
    }
    scheduler.step();
    ++checkpoint.epoch;
    return last;
  }

  std::shared_ptr<Net> net;
  optim::Adam optimizer;
  optim::StepLR scheduler;
  std::unique_ptr<data::StatelessDataLoader<
      data::datasets::MapDataset<Points, data::transforms::Stack<>>, data::samplers::RandomSampler>>
      loader;
  Checkpoint checkpoint;
};

void run(const std::string& dir) {
  const std::string path = dir + "/ckpt.safetensors";

  // The uninterrupted run: 2 epochs.
  manual_seed(0);
  Trainer straight;
  straight.train_epoch();
  const float straight_loss = straight.train_epoch();

  manual_seed(0);
  Trainer first;
  first.train_epoch();
  first.checkpoint.save(path);  // model, optimizer, scheduler, sampler, RNG, epoch, step
  const auto model_saved = copy_of(first.net->state_dict());
  const auto optimizer_saved = copy_of(first.optimizer.state_dict());
  const Tensor rng_saved = get_rng_state();

  manual_seed(123);  // as a new process: other weights, other random state
  Trainer resumed;
  if (Checkpoint::exists(path)) resumed.checkpoint.load(path);  // --resume
  expect(identical(resumed.net->state_dict(), model_saved), "the saved weights");
  expect(identical(resumed.optimizer.state_dict(), optimizer_saved), "the optimizer's state");
  expect(resumed.scheduler.get_last_lr() == first.scheduler.get_last_lr(), "the scheduler's lr");
  expect(identical(get_rng_state(), rng_saved), "the generator's state");
  expect(resumed.checkpoint.epoch == 1 && resumed.checkpoint.step == 4, "epoch 1, step 4");
  expect(resumed.checkpoint.metadata.at("model") == "Net(4, 16, 2)", "the metadata");

  const float resumed_loss = resumed.train_epoch();
  expect(resumed_loss == straight_loss, "the uninterrupted run's loss");
  expect(identical(resumed.net->state_dict(), copy_of(straight.net->state_dict())),
         "the uninterrupted run's weights");
  std::cout << "resumed at epoch 1; epoch 2 loss " << resumed_loss << " (uninterrupted "
            << straight_loss << ")\n";

  // A checkpoint of another program's parts is refused before anything changes.
  Checkpoint other;
  nn::Linear lin(2, 2);
  other.add("model", lin);
  try {
    other.load(path);
    expect(false, "an error");
  } catch (const Error& e) {
    std::cout << e.what() << "\n";
  }
}

}  // namespace

int main() {
  std::string pattern = (std::filesystem::temp_directory_path() / "ember_ckpt_XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) return 1;
  int status = 0;
  try {
    run(pattern);
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    status = 1;
  }
  std::filesystem::remove_all(pattern);
  return status;
}
