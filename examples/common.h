// --save/--resume, Ctrl-C and --weights/--export for the training examples (mlp, cnn): a SIGINT
// handler that sets a flag, the batch order as checkpoint state, and the model's weights alone.
#pragma once

#include <ember/ember.h>

#include <signal.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "training_report.h"

namespace examples {

// ---- Ctrl-C ----
// Set by the SIGINT handler; the training loop reads it after each step.
inline volatile std::sig_atomic_t g_interrupted = 0;

inline void on_sigint(int) { g_interrupted = 1; }

// The exit status of a run stopped by Ctrl-C, as a shell reports a process killed by SIGINT.
constexpr int kInterruptedStatus = 128 + SIGINT;

// Installs the handler. A second Ctrl-C gets the default action (the process dies at once;
// an atomic save in progress leaves the previous checkpoint as it was). SA_RESTART keeps file
// reads and writes from failing with EINTR.
inline void catch_sigint() {
  struct sigaction action {};
  action.sa_handler = on_sigint;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART | SA_RESETHAND;
  sigaction(SIGINT, &action, nullptr);
}

inline bool interrupted() { return g_interrupted != 0; }

// After a training step: whether Ctrl-C came. EMBER_EXAMPLE_SIGINT_AFTER=N makes the process
// raise SIGINT itself, through the same handler, once its N-th step is done: the smoke tests'
// Ctrl-C at a repeatable point (a signal sent from outside lands where the machine's load
// puts it, possibly after the run has ended).
inline bool step_interrupted() {
  static const long raise_after = [] {
    const char* s = std::getenv("EMBER_EXAMPLE_SIGINT_AFTER");
    return s ? std::atol(s) : 0L;
  }();
  static long steps = 0;
  if (raise_after > 0 && ++steps == raise_after) std::raise(SIGINT);
  return interrupted();
}

// ---- options ----
// The options a checkpoint records as metadata, as text.
using OptionText = std::map<std::string, std::string>;

inline std::string option_text(double value) {  // the shortest text that reads back the same
  char text[32];
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    if (std::strtod(text, nullptr) == value) break;
  }
  return text;
}

// The options mlp and cnn share (their Options structs name them alike), with the effective
// learning rate and steps per epoch.
template <class Options>
OptionText shared_options(const Options& opt, const std::string& program, const std::string& model,
                          double lr, int64_t steps_per_epoch, const std::string& device) {
  return {{"program", program},
          {"model", model},
          {"optimizer", opt.optimizer},
          {"lr", option_text(lr)},
          {"batch_size", std::to_string(opt.batch_size)},
          {"steps_per_epoch", std::to_string(steps_per_epoch)},
          {"epochs", std::to_string(opt.epochs)},
          {"seed", std::to_string(opt.seed)},
          {"normalize", opt.normalize ? "true" : "false"},
          {"device", device}};
}

// ---- the model's weights alone (--weights, --export) ----
// --weights: the model's parameters and buffers from a safetensors file or a PyTorch .pt state
// dict (torch.save(model.state_dict(), path)), told apart by their first bytes; strict, as
// load_state_dict(strict=True): a missing, unexpected or misshapen key throws and loads nothing.
inline void load_weights(ember::nn::Module& model, const std::string& path) {
  ember::load(model, path);
  std::printf("weights loaded from %s\n", path.c_str());
}

// --export: the model's state dict as one plain safetensors file. The examples' modules are
// named as the same model written in PyTorch (self.fc1, self.conv1, self.bn1, ...), so it loads
// there with model.load_state_dict(..., strict=True) as it is (tools/pytorch_roundtrip.py).
inline void export_weights(const ember::nn::Module& model, const std::string& path) {
  ember::save(model, path);
  std::printf("weights exported to %s\n", path.c_str());
}

// --epochs 0: reports the test loss and accuracy of the model as it is (loaded by --weights or
// --resume, or freshly initialized) as epoch 0, printed and written to --metrics (no training:
// its train loss is NaN, null in the JSON line, and its times 0). Returns the record.
inline EpochRecord report_evaluation(const std::pair<double, double>& test_loss_acc,
                                     MetricsFile& metrics) {
  const auto [test_loss, test_acc] = test_loss_acc;
  const EpochRecord r{0, std::nan(""), test_loss, test_acc, 0, 0};
  metrics.write(r);
  std::printf("no training (--epochs 0): test loss %.4f, test accuracy %.2f%%\n", test_loss,
              100 * test_acc);
  std::fflush(stdout);
  return r;
}

// --save, --resume, --weights and --export, as mlp and cnn take them (their Options name them
// alike). --weights and --resume exclude each other: a checkpoint holds the model already.
template <class Options>
void add_save_load_options(CLI::App& app, Options& opt) {
  app.add_option("--save", opt.save,
                 "save a checkpoint to this file after every epoch and on Ctrl-C (then exit 130)");
  CLI::Option* resume =
      app.add_option("--resume", opt.resume,
                     "continue training from this checkpoint (the same path as --save is fine)");
  app.add_option("--weights", opt.weights,
                 "start from the model's weights in this safetensors or PyTorch .pt state dict "
                 "(with --epochs 0: evaluate them)")
      ->excludes(resume);
  app.add_option("--export", opt.export_file,
                 "after training, write the model's weights to this safetensors file "
                 "(PyTorch's state-dict names)");
}

// ---- the checkpoint ----
// The run's checkpoint (--save, --resume): the model, the optimizer, the global generator, the
// epoch in progress and the options (as metadata). Its epoch is the number of complete epochs,
// its step the number of steps done in the next one. The epoch in progress (part "progress")
// is the examples' sampler, a random permutation per epoch (batch k is perm[k*bs, (k+1)*bs)),
// and the running sum of the step losses, so that an epoch resumed mid-way takes the same
// batches in the same order and reports the same mean train loss.
class RunCheckpoint {
 public:
  RunCheckpoint(ember::nn::Module& model, ember::optim::Optimizer& optimizer, ember::Device device,
                OptionText options, std::string save_path)
      : options_(std::move(options)), save_path_(std::move(save_path)) {
    checkpoint_.add("model", model).add("optimizer", optimizer);
    checkpoint_.add(
        "progress",
        [this] {
          return ember::optim::StateDict{{"perm", perm_}, {"loss_sum", loss_sum_}};
        },
        [this, device](const std::map<std::string, ember::Tensor>& state) {
          const auto p = state.find("perm"), l = state.find("loss_sum");
          EMBER_CHECK(p != state.end() && l != state.end() && state.size() == 2,
                      "expected the entries 'perm' and 'loss_sum'");
          EMBER_CHECK(p->second.dim() == 1 && p->second.scalar_type() == ember::kInt64,
                      "'perm' is not a 1-D int64 tensor");
          EMBER_CHECK(l->second.dim() == 0, "'loss_sum' is not a scalar");
          perm_ = p->second.to(device);
          loss_sum_ = l->second.to(device);
        });
    checkpoint_.metadata = options_;
  }
  RunCheckpoint(const RunCheckpoint&) = delete;  // the checkpoint holds `this`
  RunCheckpoint& operator=(const RunCheckpoint&) = delete;

  // --resume: checks that the options `must_match` are the saved ones (before loading: a model
  // or optimizer of another shape would fail with a less helpful message), loads everything
  // (all or nothing), and checks that a checkpoint saved mid-epoch continues with the same
  // batches: the same batch size and steps per epoch, an order over `train_size` samples.
  void resume(const std::string& path, const std::vector<std::string>& must_match,
              int64_t train_size, bool lr_given, int epochs_wanted) {
    const OptionText saved = saved_options(path);
    for (const auto& key : must_match) check_same(path, saved, key, "resume with the same " + key);
    checkpoint_.load(path);
    checkpoint_.metadata = options_;  // this run's, for its saves
    const long long epochs = checkpoint_.epoch, step = checkpoint_.step;
    if (step > 0) {
      const std::string fix = "saved in the middle of epoch " + std::to_string(epochs + 1) +
                              ": resume with the same --batch-size and --max-steps";
      check_same(path, saved, "batch_size", fix);
      check_same(path, saved, "steps_per_epoch", fix);
      if (perm_.numel() != train_size)
        throw std::runtime_error("--resume " + path + ": its batch order covers " +
                                 std::to_string(perm_.numel()) + " samples, not " +
                                 std::to_string(train_size));
    }
    if (lr_given && saved.count("lr") && saved.at("lr") != options_.at("lr"))
      std::fprintf(stderr, "--lr %s is not used: the optimizer's saved state has lr %s\n",
                   options_.at("lr").c_str(), saved.at("lr").c_str());
    if (step > 0)
      std::printf("resumed from %s at epoch %lld, step %lld\n", path.c_str(), epochs + 1, step);
    else
      std::printf("resumed from %s at the end of epoch %lld\n", path.c_str(), epochs);
    if (epochs >= epochs_wanted)
      std::printf("nothing left to train for --epochs %d\n", epochs_wanted);
    first_epoch_ = static_cast<int>(epochs) + 1;
    first_step_ = step;
  }

  int first_epoch() const { return first_epoch_; }

  // Starts epoch `epoch` (1-based) and returns the step to start at: 0 with a new permutation
  // of the `n` samples and a zero loss sum; on the first epoch of a run resumed mid-epoch, the
  // saved step, permutation and loss sum.
  int64_t begin_epoch(int epoch, int64_t n, const ember::TensorOptions& loss_options) {
    if (epoch == first_epoch_ && first_step_ > 0) return first_step_;
    perm_ = ember::randperm(n, ember::TensorOptions(ember::kInt64).device(loss_options.device()));
    loss_sum_ = ember::zeros({}, loss_options);
    return 0;
  }
  const ember::Tensor& perm() const { return perm_; }
  ember::Tensor& loss_sum() { return loss_sum_; }

  // After epoch `epoch` (evaluated and reported): saves when --save is given.
  void end_epoch(int epoch) {
    if (!save_path_.empty()) save(epoch, 0);
  }

  // Ends a run stopped by Ctrl-C after a step (or an epoch): saves when --save is given, says
  // so in one line (replacing the progress bar), and returns the exit status, 130.
  int stop(ProgressBar& bar, int64_t epochs_done, int64_t steps) {
    char where[96];
    if (steps == 0)
      std::snprintf(where, sizeof where, "the end of epoch %lld",
                    static_cast<long long>(epochs_done));
    else
      std::snprintf(where, sizeof where, "epoch %lld, step %lld",
                    static_cast<long long>(epochs_done + 1), static_cast<long long>(steps));
    if (save_path_.empty()) {
      bar.finish(std::string("interrupted at ") + where + " (no --save: nothing saved)");
    } else {
      save(epochs_done, steps);
      bar.finish(std::string("interrupted at ") + where + ": checkpoint saved to " + save_path_ +
                 " (continue with --resume " + save_path_ + ")");
    }
    return kInterruptedStatus;
  }

 private:
  void save(int64_t epochs_done, int64_t steps) {
    checkpoint_.epoch = epochs_done;
    checkpoint_.step = steps;
    checkpoint_.save(save_path_);
  }

  // The "user." metadata of the file's header (its tensors are read and dropped).
  OptionText saved_options(const std::string& path) const {
    if (!ember::Checkpoint::exists(path))
      throw std::runtime_error("--resume " + path + ": no such file, or not an ember checkpoint");
    ember::TensorMetadata meta;
    ember::load_tensors(path, &meta);
    OptionText saved;
    for (const auto& [key, value] : meta) {
      if (key.compare(0, 5, "user.") == 0) saved[key.substr(5)] = value;
    }
    const std::string& program = options_.at("program");
    const auto it = saved.find("program");
    if (it == saved.end() || it->second != program)
      throw std::runtime_error("--resume " + path + ": not a checkpoint of " + program +
                               (it != saved.end() ? " but of " + it->second : std::string()));
    return saved;
  }

  void check_same(const std::string& path, const OptionText& saved, const std::string& key,
                  const std::string& fix) const {
    const auto it = saved.find(key);
    const std::string was = it == saved.end() ? "(none)" : it->second;
    if (was != options_.at(key))
      throw std::runtime_error("--resume " + path + ": it was saved with " + key + " " + was +
                               ", this run has " + key + " " + options_.at(key) + "; " + fix);
  }

  ember::Checkpoint checkpoint_;
  OptionText options_;
  std::string save_path_;
  ember::Tensor perm_ = ember::zeros({0}, ember::TensorOptions(ember::kInt64));
  ember::Tensor loss_sum_ = ember::zeros({});
  int first_epoch_ = 1;
  int64_t first_step_ = 0;
};

}  // namespace examples
