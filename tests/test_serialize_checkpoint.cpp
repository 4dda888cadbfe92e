// ember::Checkpoint (round trips of every part, all-or-nothing load, missing and unexpected
// parts, atomic save, the file layout), LibTorch's save/load spellings for tensors and lists of
// tensors, and exact resume across a process restart: the test re-runs its own executable for
// "train 1 epoch, save, exit", "start fresh, load, train 1 more" and "train 2 epochs straight",
// and compares losses, parameters and optimizer state bit for bit.
#include <ember/ember.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "error_of.h"
#include "serialize_helpers.h"

namespace {

using namespace ember;
using serialize_test::expect_identical;
using serialize_test::ScratchDir;
using ::testing::HasSubstr;

// ---- a small MLP with dropout on a synthetic dataset ----

struct Mlp : nn::Module {
  Mlp() : fc1(6, 16), drop(0.3), fc2(16, 3) {
    register_module("fc1", fc1);
    register_module("drop", drop);
    register_module("fc2", fc2);
    register_buffer("seen", zeros({1}, kInt64));
  }
  Tensor forward(const Tensor& x) { return fc2(drop(relu(fc1(x)))); }
  nn::Linear fc1;
  nn::Dropout drop;
  nn::Linear fc2;
};

struct Synthetic : data::datasets::Dataset<Synthetic> {
  Synthetic() {
    const Tensor saved = get_rng_state();  // fixed data; the generator's state is kept
    manual_seed(11);
    x = randn({40, 6});
    y = randint(0, 3, {40});
    set_rng_state(saved);
  }
  data::Example<> get(size_t i) override {
    return {x[static_cast<int64_t>(i)], y[static_cast<int64_t>(i)]};
  }
  std::optional<size_t> size() const override { return 40; }
  Tensor x, y;
};

std::map<std::string, Tensor> clone_map(const OrderedDict<std::string, Tensor>& dict) {
  std::map<std::string, Tensor> m;
  for (const auto& item : dict) m.emplace(item.key(), item.value().detach().clone());
  return m;
}

void expect_same_maps(const std::map<std::string, Tensor>& actual,
                      const std::map<std::string, Tensor>& expected, const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (const auto& [key, value] : expected) {
    ASSERT_EQ(actual.count(key), 1u) << what << ": " << key;
    expect_identical(actual.at(key).cpu(), value.cpu(), what + ": " + key);
  }
}

// Everything a training run needs, built as a fresh process builds it.
struct Training {
  Training(const std::string& optimizer_kind, Device device, size_t workers = 0) : device(device) {
    model = std::make_shared<Mlp>();
    model->to(device);
    if (optimizer_kind == "sgd") {
      optimizer = std::make_unique<optim::SGD>(
          model->parameters(), optim::SGDOptions(0.05).momentum(0.9).weight_decay(1e-4));
    } else {
      optimizer = std::make_unique<optim::Adam>(model->parameters(), optim::AdamOptions(0.01));
      scheduler = std::make_unique<optim::StepLR>(*optimizer, 3, 0.5);
    }
    loader = data::make_data_loader(Synthetic().map(data::transforms::Stack<>()),
                                    data::DataLoaderOptions(8).workers(workers));
    checkpoint.add("model", model).add("optimizer", *optimizer);
    if (scheduler) checkpoint.add("scheduler", *scheduler);
    checkpoint.add(
        "sampler", [this] { return loader->state_dict(); },
        [this](const std::map<std::string, Tensor>& s) { loader->load_state_dict(s); });
  }

  // One epoch (or its first `limit` batches, as a run stopped by Ctrl-C); returns the losses
  // of its steps. The scheduler steps per batch.
  std::vector<float> epoch(size_t limit = SIZE_MAX) {
    std::vector<float> losses;
    model->train();
    for (auto& batch : *loader) {
      optimizer->zero_grad();
      const Tensor loss = nn::functional::cross_entropy(model->forward(batch.data.to(device)),
                                                        batch.target.to(device));
      loss.backward();
      optimizer->step();
      if (scheduler) scheduler->step();
      losses.push_back(loss.item<float>());
      ++checkpoint.step;
      // stopped after a step, before the loop fetches the next batch: the epoch is not over
      if (losses.size() == limit) return losses;
    }
    ++checkpoint.epoch;
    return losses;
  }

  // Losses, parameters and the optimizer's state, for comparing runs.
  std::map<std::string, Tensor> outcome(const std::vector<float>& losses) const {
    std::map<std::string, Tensor> out;
    out.emplace("losses", tensor(losses));
    for (const auto& [k, v] : clone_map(model->state_dict())) out.emplace("model." + k, v.cpu());
    for (const auto& [k, v] : clone_map(optimizer->state_dict())) out.emplace("opt." + k, v.cpu());
    return out;
  }

  Device device;
  std::shared_ptr<Mlp> model;
  std::unique_ptr<optim::Optimizer> optimizer;
  std::unique_ptr<optim::LRScheduler> scheduler;
  std::unique_ptr<
      data::StatelessDataLoader<data::datasets::MapDataset<Synthetic, data::transforms::Stack<>>,
                                data::samplers::RandomSampler>>
      loader;
  Checkpoint checkpoint;
};

// ---- exact resume across a process restart ----

// How a resume test runs: optimizer ("sgd": SGD with momentum, "adam": Adam with StepLR),
// device, loader threads, and the batches of epoch 2 trained before the save (0: the save is
// at the end of epoch 1).
struct ResumeSetup {
  std::string kind, device;
  size_t workers = 0, stop = 0;
};

// The child's side: EMBER_CKPT_PHASE says what to do, EMBER_CKPT_DIR where, EMBER_CKPT_SETUP
// how ("kind device workers stop"). Skipped in a normal test run.
TEST(CheckpointResumeChild, Phase) {
  const char* phase = std::getenv("EMBER_CKPT_PHASE");
  if (phase == nullptr) GTEST_SKIP() << "run by CheckpointResume.* in a child process";
  const std::string dir = std::getenv("EMBER_CKPT_DIR");
  ResumeSetup setup;
  std::istringstream(std::getenv("EMBER_CKPT_SETUP")) >> setup.kind >> setup.device >>
      setup.workers >> setup.stop;
  const std::string& kind = setup.kind;
  const Device device = setup.device == "cuda" ? kCUDA : kCPU;
  const std::string p = phase;
  if (p == "straight") {
    manual_seed(1234);
    Training run(kind, device, setup.workers);
    std::vector<float> losses = run.epoch();
    const std::vector<float> more = run.epoch();
    losses.insert(losses.end(), more.begin(), more.end());
    save(run.outcome(losses), dir + "/straight.safetensors");
  } else if (p == "first") {
    manual_seed(1234);
    Training run(kind, device, setup.workers);
    std::vector<float> losses = run.epoch();
    if (setup.stop > 0) {
      const std::vector<float> part = run.epoch(setup.stop);
      losses.insert(losses.end(), part.begin(), part.end());
    }
    run.checkpoint.metadata["note"] = "after epoch 1";
    run.checkpoint.save(dir + "/ckpt.safetensors");
    save(std::vector<Tensor>{tensor(losses)}, dir + "/first_losses.safetensors");
  } else if (p == "second") {
    manual_seed(777);  // a fresh start: other initial weights, other generator state
    Training run(kind, device, setup.workers);
    ASSERT_TRUE(Checkpoint::exists(dir + "/ckpt.safetensors"));
    run.checkpoint.load(dir + "/ckpt.safetensors");
    ASSERT_EQ(run.checkpoint.epoch, 1);
    ASSERT_EQ(run.checkpoint.step, static_cast<int64_t>(5 + setup.stop));
    ASSERT_EQ(run.checkpoint.metadata.at("note"), "after epoch 1");
    std::vector<Tensor> first;
    load(first, dir + "/first_losses.safetensors");
    ASSERT_EQ(first.size(), 1u);
    std::vector<float> losses(first[0].data_ptr<float>(),
                              first[0].data_ptr<float>() + first[0].numel());
    const std::vector<float> more = run.epoch();
    losses.insert(losses.end(), more.begin(), more.end());
    save(run.outcome(losses), dir + "/resumed.safetensors");
  } else {
    FAIL() << "unknown phase " << p;
  }
  serialize_test::write_bytes(dir + "/" + p + ".done", "ok");
}

std::string self_exe() {
  std::vector<char> buf(4096);
  const ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  return n > 0 ? std::string(buf.data(), static_cast<size_t>(n)) : std::string();
}

// Runs the child phase in a new process and checks it finished.
void run_phase(const std::string& phase, const std::string& dir, const ResumeSetup& setup) {
  const std::string command =
      "EMBER_CKPT_PHASE=" + phase + " EMBER_CKPT_DIR='" + dir + "' EMBER_CKPT_SETUP='" +
      setup.kind + " " + setup.device + " " + std::to_string(setup.workers) + " " +
      std::to_string(setup.stop) + "' '" + self_exe() +
      "' --gtest_filter=CheckpointResumeChild.Phase > '" + dir + "/" + phase + ".log' 2>&1";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << phase << " failed:\n"
      << serialize_test::read_bytes(dir + "/" + phase + ".log");
  ASSERT_TRUE(std::filesystem::exists(dir + "/" + phase + ".done"))
      << phase << " did not finish:\n"
      << serialize_test::read_bytes(dir + "/" + phase + ".log");
}

void check_exact_resume(const ResumeSetup& setup) {
  ScratchDir dir;
  const std::string d = dir.path().string();
  ASSERT_NO_FATAL_FAILURE(run_phase("straight", d, setup));
  ASSERT_NO_FATAL_FAILURE(run_phase("first", d, setup));
  ASSERT_NO_FATAL_FAILURE(run_phase("second", d, setup));
  const auto straight = load_tensors(d + "/straight.safetensors");
  const auto resumed = load_tensors(d + "/resumed.safetensors");
  EXPECT_EQ(straight.at("losses").numel(), 10);  // 2 epochs of 5 batches
  expect_same_maps(resumed, straight,
                   setup.kind + " on " + setup.device + ", " + std::to_string(setup.workers) +
                       " workers, saved after " + std::to_string(setup.stop) +
                       " batches of epoch 2");
}

TEST(CheckpointResume, SgdMomentumAcrossProcessesIsBitExact) { check_exact_resume({"sgd", "cpu"}); }

TEST(CheckpointResume, AdamStepLRAcrossProcessesIsBitExact) { check_exact_resume({"adam", "cpu"}); }

// Saved mid-epoch (as on Ctrl-C), with and without loader threads.
TEST(CheckpointResume, MidEpochAcrossProcessesIsBitExact) {
  check_exact_resume({"sgd", "cpu", 0, 2});
  check_exact_resume({"adam", "cpu", 2, 3});
}

TEST(CheckpointResume, CudaAcrossProcessesIsBitExact) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  check_exact_resume({"sgd", "cuda"});
  check_exact_resume({"adam", "cuda"});
  check_exact_resume({"adam", "cuda", 2, 3});
}

// ---- round trips of every part ----

TEST(Checkpoint, RoundTripsEveryPart) {
  ScratchDir dir;
  const std::string path = dir.file("ckpt.safetensors");
  manual_seed(3);
  Training a("adam", kCPU);
  a.epoch();
  optim::ReduceLROnPlateauScheduler plateau(*a.optimizer, optim::ReduceLROnPlateauScheduler::min,
                                            0.5f, 0);
  plateau.step(1.0f);
  plateau.step(2.0f);
  Tensor ema = randn({3, 2});
  a.checkpoint.add("plateau", plateau)
      .add(
          "ema",
          [&] {
            return OrderedDict<std::string, Tensor>{{"w", ema}};
          },
          [&](const std::map<std::string, Tensor>& s) { ema.copy_(s.at("w")); });
  a.checkpoint.step = 123456789012345;
  a.checkpoint.metadata = {{"run", "abc"}, {"empty", ""}};
  const auto model_before = clone_map(a.model->state_dict());
  const auto opt_before = clone_map(a.optimizer->state_dict());
  const auto sched_before = clone_map(a.scheduler->state_dict());
  const auto plateau_before = clone_map(plateau.state_dict());
  const auto sampler_before = clone_map(a.loader->sampler().state_dict());
  const Tensor ema_before = ema.clone();
  const Tensor rng_before = get_rng_state();
  a.checkpoint.save(path);
  EXPECT_TRUE(Checkpoint::exists(path));

  manual_seed(4);
  randn({5});
  Training b("adam", kCPU);
  optim::ReduceLROnPlateauScheduler plateau_b(*b.optimizer);
  Tensor ema_b = zeros({3, 2});
  b.checkpoint.add("plateau", plateau_b)
      .add(
          "ema",
          [&] {
            return OrderedDict<std::string, Tensor>{{"w", ema_b}};
          },
          [&](const std::map<std::string, Tensor>& s) { ema_b.copy_(s.at("w")); });
  b.checkpoint.metadata = {{"stale", "x"}};
  b.checkpoint.load(path);
  expect_same_maps(clone_map(b.model->state_dict()), model_before, "model");
  expect_same_maps(clone_map(b.optimizer->state_dict()), opt_before, "optimizer");
  expect_same_maps(clone_map(b.scheduler->state_dict()), sched_before, "scheduler");
  expect_same_maps(clone_map(plateau_b.state_dict()), plateau_before, "plateau");
  expect_same_maps(clone_map(b.loader->sampler().state_dict()), sampler_before, "sampler");
  expect_identical(ema_b, ema_before, "ema");
  expect_identical(get_rng_state(), rng_before, "rng");
  EXPECT_EQ(b.checkpoint.epoch, 1);
  EXPECT_EQ(b.checkpoint.step, 123456789012345);
  EXPECT_EQ(b.checkpoint.metadata,
            (std::map<std::string, std::string>{{"run", "abc"}, {"empty", ""}}));
}

TEST(Checkpoint, FileLayout) {
  ScratchDir dir;
  const std::string path = dir.file("ckpt.safetensors");
  nn::Linear net(2, 3);
  optim::SGD sgd(net->parameters(), optim::SGDOptions(0.1).momentum(0.5));
  Checkpoint ckpt;
  ckpt.add("net", net).add("opt", sgd);
  ckpt.epoch = 7;
  ckpt.step = 70;
  ckpt.metadata["lr"] = "0.1";
  ckpt.save(path);
  TensorMetadata meta;
  const auto tensors = load_tensors(path, &meta);
  EXPECT_EQ(meta, (TensorMetadata{{"ember.checkpoint", "1"},
                                  {"ember.parts", "net,opt"},
                                  {"epoch", "7"},
                                  {"step", "70"},
                                  {"user.lr", "0.1"}}));
  EXPECT_EQ(tensors.count("net.weight"), 1u);
  EXPECT_EQ(tensors.count("net.bias"), 1u);
  EXPECT_EQ(tensors.count("opt.param_groups.0.lr"), 1u);
  expect_identical(tensors.at("rng.state"), get_rng_state(), "rng.state");
  expect_identical(tensors.at("net.weight"), net->weight, "weight");

  // without the generator
  ckpt.rng(false).save(path);
  EXPECT_EQ(load_tensors(path).count("rng.state"), 0u);
}

TEST(Checkpoint, ModulesBySharedPtrHolderAndReference) {
  ScratchDir dir;
  const std::string path = dir.file("c.safetensors");
  auto mlp = std::make_shared<Mlp>();
  nn::Linear lin(3, 2);
  nn::Sequential seq(nn::Linear(2, 2));
  Checkpoint ckpt;
  ckpt.add("a", mlp).add("b", lin).add("c", *seq).add("d", static_cast<nn::Module&>(*mlp->fc1));
  ckpt.save(path);
  const auto before = clone_map(lin->state_dict());
  {
    NoGradGuard g;
    lin->weight.fill_(0.0);
  }
  ckpt.load(path);
  expect_same_maps(clone_map(lin->state_dict()), before, "holder");
}

// ---- all or nothing ----

TEST(Checkpoint, FailedLoadPutsEarlierPartsBack) {
  ScratchDir dir;
  const std::string path = dir.file("ckpt.safetensors");
  manual_seed(1);
  Training a("sgd", kCPU);
  a.epoch();
  a.checkpoint.save(path);
  // The same file with the optimizer's momentum buffer of the wrong shape.
  TensorMetadata meta;
  auto tensors = load_tensors(path, &meta);
  ASSERT_EQ(tensors.count("optimizer.state.0.momentum_buffer"), 1u);
  tensors["optimizer.state.0.momentum_buffer"] = zeros({2, 2});
  const std::string bad = dir.file("bad.safetensors");
  save(tensors, bad, meta);

  manual_seed(2);
  Training b("sgd", kCPU);
  b.epoch();
  b.checkpoint.metadata["keep"] = "me";
  const auto model_before = clone_map(b.model->state_dict());
  const auto opt_before = clone_map(b.optimizer->state_dict());
  const auto sampler_before = clone_map(b.loader->sampler().state_dict());
  const Tensor rng_before = get_rng_state();
  const std::string message = error_of([&] { b.checkpoint.load(bad); });
  EXPECT_THAT(message, HasSubstr("Checkpoint::load: " + bad + ": part 'optimizer'"));
  EXPECT_THAT(message, HasSubstr("momentum_buffer"));
  // the model was loaded before the optimizer failed: it is back as it was
  expect_same_maps(clone_map(b.model->state_dict()), model_before, "model");
  expect_same_maps(clone_map(b.optimizer->state_dict()), opt_before, "optimizer");
  expect_same_maps(clone_map(b.loader->sampler().state_dict()), sampler_before, "sampler");
  expect_identical(get_rng_state(), rng_before, "rng");
  EXPECT_EQ(b.checkpoint.epoch, 1);
  EXPECT_EQ(b.checkpoint.step, 5);
  EXPECT_EQ(b.checkpoint.metadata.at("keep"), "me");
}

TEST(Checkpoint, FailingCustomPartRollsBackEverything) {
  ScratchDir dir;
  const std::string path = dir.file("ckpt.safetensors");
  nn::Linear net(2, 2);
  int calls = 0;
  Checkpoint ckpt;
  ckpt.add("net", net)
      .add(
          "custom",
          [] {
            return OrderedDict<std::string, Tensor>{{"v", ones({1})}};
          },
          [&](const std::map<std::string, Tensor>&) {
            if (++calls == 1) throw Error("custom: refused");
          });
  ckpt.save(path);
  const auto before = clone_map(net->state_dict());
  {
    NoGradGuard g;
    net->weight.add_(1.0);
  }
  const auto changed = clone_map(net->state_dict());
  EXPECT_THAT(error_of([&] { ckpt.load(path); }), HasSubstr("part 'custom': custom: refused"));
  expect_same_maps(clone_map(net->state_dict()), changed, "net");
  ckpt.load(path);  // second call of the setter succeeds
  expect_same_maps(clone_map(net->state_dict()), before, "net");
}

TEST(Checkpoint, MissingAndUnexpectedParts) {
  ScratchDir dir;
  const std::string path = dir.file("ckpt.safetensors");
  nn::Linear a(2, 2), b(2, 2);
  Checkpoint saved;
  saved.add("a", a).add("b", b);
  saved.save(path);

  Checkpoint fewer;
  fewer.add("a", a);
  EXPECT_THAT(error_of([&] { fewer.load(path); }),
              HasSubstr("Checkpoint::load: " + path + ": unexpected part(s) 'b'"));
  Checkpoint more;
  more.add("a", a).add("b", b).add("c", b);
  EXPECT_THAT(error_of([&] { more.load(path); }), HasSubstr("missing part(s) 'c'"));
  Checkpoint other;
  other.add("x", a);
  const std::string both = error_of([&] { other.load(path); });
  EXPECT_THAT(both, HasSubstr("missing part(s) 'x'"));
  EXPECT_THAT(both, HasSubstr("unexpected part(s) 'a', 'b'"));

  // a file without the generator's state, loaded by a checkpoint that wants it
  Checkpoint no_rng;
  no_rng.add("a", a).add("b", b).rng(false).save(path);
  EXPECT_THAT(error_of([&] { saved.load(path); }), HasSubstr("missing part(s) 'rng'"));

  // not a checkpoint
  save(a, dir.file("plain.safetensors"));
  EXPECT_FALSE(Checkpoint::exists(dir.file("plain.safetensors")));
  EXPECT_FALSE(Checkpoint::exists(dir.file("nothing.safetensors")));
  EXPECT_FALSE(Checkpoint::exists(dir.path().string()));
  EXPECT_THAT(error_of([&] { saved.load(dir.file("plain.safetensors")); }),
              HasSubstr("not an ember checkpoint"));
  EXPECT_THAT(error_of([&] { saved.load(dir.file("nothing.safetensors")); }),
              HasSubstr("cannot open"));
}

TEST(Checkpoint, BadNamesAreRefused) {
  nn::Linear a(2, 2);
  Checkpoint ckpt;
  EXPECT_THAT(error_of([&] { ckpt.add("", a); }), HasSubstr("must not be empty"));
  EXPECT_THAT(error_of([&] { ckpt.add("a.b", a); }), HasSubstr("cannot hold '.'"));
  EXPECT_THAT(error_of([&] { ckpt.add("rng", a); }), HasSubstr("reserved"));
  ckpt.add("a", a);
  EXPECT_THAT(error_of([&] { ckpt.add("a", a); }), HasSubstr("registered already"));
  std::shared_ptr<Mlp> null;
  EXPECT_THAT(error_of([&] { ckpt.add("n", null); }), HasSubstr("null"));
}

// ---- atomic save ----

TEST(Checkpoint, FailedSaveLeavesTheOldFile) {
  ScratchDir dir;
  const std::string path = dir.file("ckpt.safetensors");
  nn::Linear a(2, 2);
  Checkpoint ckpt;
  ckpt.add("a", a);
  ckpt.save(path);
  const std::string old = serialize_test::read_bytes(path);

  EXPECT_THAT(error_of([&] { ckpt.save(dir.file("no/such/dir/ckpt.safetensors")); }),
              HasSubstr("Checkpoint::save"));
  // a part whose state cannot be written (an undefined tensor): nothing is replaced
  Checkpoint broken;
  broken.add("a", a).add(
      "bad",
      [] {
        return OrderedDict<std::string, Tensor>{{"t", Tensor()}};
      },
      [](const std::map<std::string, Tensor>&) {});
  EXPECT_THAT(error_of([&] { broken.save(path); }), HasSubstr("'bad.t' is undefined"));
  EXPECT_EQ(serialize_test::read_bytes(path), old);
  if (::geteuid() != 0) {  // root writes into read-only folders
    ::chmod(dir.path().c_str(), 0500);
    ckpt.epoch = 9;
    EXPECT_THAT(error_of([&] { ckpt.save(path); }), HasSubstr("cannot create"));
    ::chmod(dir.path().c_str(), 0700);
    EXPECT_EQ(serialize_test::read_bytes(path), old);
  }
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"ckpt.safetensors"});
}

// ---- LibTorch's spellings for tensors and lists of tensors ----

TEST(SerializeTensor, SaveAndLoadATensor) {
  ScratchDir dir;
  const std::string path = dir.file("t.safetensors");
  const Tensor t = randn({3, 4}).t();  // non-contiguous
  save(t, path);
  Tensor loaded = zeros({1});
  load(loaded, path);
  expect_identical(loaded, t.contiguous(), "tensor");
  EXPECT_TRUE(loaded.is_contiguous());
  EXPECT_EQ(load_tensors(path).count("tensor"), 1u);

  // a PyTorch .pt file of one tensor
  Tensor from_pt;
  load(from_pt, std::string(EMBER_TEST_DATA_DIR) + "/pt/tensor.pt");
  expect_identical(from_pt, arange(6, TensorOptions().dtype(kFloat32)).reshape({2, 3}), "pt");
  // a file of two tensors is not a tensor; the variable is kept
  save(std::map<std::string, Tensor>{{"a", ones({1})}, {"b", ones({1})}}, path);
  EXPECT_THAT(error_of([&] { load(loaded, path); }),
              HasSubstr("expected a file of one tensor, found 2"));
  expect_identical(loaded, t.contiguous(), "kept");
}

TEST(SerializeTensor, SaveAndLoadListsOfTensors) {
  ScratchDir dir;
  const std::string path = dir.file("v.safetensors");
  const std::vector<Tensor> v = {randn({2}), arange(12, TensorOptions().dtype(kInt64)),
                                 ones({2, 2}, kFloat64), zeros({0})};
  save(v, path);
  std::vector<Tensor> loaded = {ones({9})};
  load(loaded, path);
  ASSERT_EQ(loaded.size(), v.size());
  for (size_t i = 0; i < v.size(); ++i) expect_identical(loaded[i], v[i], std::to_string(i));
  const auto named = load_tensors(path);
  EXPECT_EQ(named.count("0") + named.count("3") + named.count("10"), 2u);

  // more than ten: ordered by number, not by name
  std::vector<Tensor> many;
  for (int i = 0; i < 12; ++i) many.push_back(full({1}, static_cast<double>(i)));
  save(many, path);
  load(loaded, path);
  ASSERT_EQ(loaded.size(), 12u);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(loaded[i].item<float>(), static_cast<float>(i));

  // a braced list
  const Tensor a = ones({2}), b = zeros({3});
  save({a, b}, path);
  load(loaded, path);
  ASSERT_EQ(loaded.size(), 2u);
  expect_identical(loaded[1], b, "braced");
  // an empty list
  save(std::vector<Tensor>{}, path);
  load(loaded, path);
  EXPECT_TRUE(loaded.empty());

  // names that are not 0..n-1
  save(std::map<std::string, Tensor>{{"0", a}, {"2", b}}, path);
  loaded = {a};
  EXPECT_THAT(error_of([&] { load(loaded, path); }), HasSubstr("found tensor '2'"));
  save(std::map<std::string, Tensor>{{"0", a}, {"01", b}}, path);
  EXPECT_THAT(error_of([&] { load(loaded, path); }), HasSubstr("found tensor '01'"));
  EXPECT_EQ(loaded.size(), 1u);
  // a .pt file that is a dict, not a list
  EXPECT_THAT(error_of([&] { load(loaded, std::string(EMBER_TEST_DATA_DIR) + "/pt/views.pt"); }),
              HasSubstr("expected a list of tensors"));
}

// Every spelling picks the intended overload (these would fail to compile if ambiguous).
TEST(SerializeTensor, OverloadsResolve) {
  ScratchDir dir;
  const std::string path = dir.file("o.safetensors");
  const Tensor t = ones({2});
  save({{"w", t}}, path);  // a braced map
  EXPECT_EQ(load_tensors(path).count("w"), 1u);
  EXPECT_THAT(error_of([&] {
                save({{"w", t}, {"w", t}}, path);
              }),
              HasSubstr("tensor 'w' appears twice"));
  save({t, t}, path);  // a braced list of tensors
  EXPECT_EQ(load_tensors(path).count("1"), 1u);
  save({t}, path);  // a braced list of one: a list, as std::vector<Tensor>{t}
  EXPECT_EQ(load_tensors(path).count("0"), 1u);
  save(t, path);
  EXPECT_EQ(load_tensors(path).count("tensor"), 1u);
  auto mlp = std::make_shared<Mlp>();
  save(mlp, path);
  EXPECT_EQ(load_tensors(path).count("fc1.weight"), 1u);
  load(mlp, path);
  nn::Linear lin(2, 2);
  save(lin, path);
  load(lin, path);
  save(*lin, path);
  load(*lin, path);
  optim::SGD sgd(lin->parameters(), optim::SGDOptions(0.1));
  save(sgd, path);
  load(sgd, path);
  OrderedDict<std::string, Tensor> od = lin->state_dict();
  save(od, path);
  Tensor x;
  save(std::vector<Tensor>{t}, path);
  load(x, path);
  expect_identical(x, t, "x");
  std::vector<Tensor> xs;
  load(xs, path);
  EXPECT_EQ(xs.size(), 1u);
}

}  // namespace
