// What the training examples show while they run and write when they end: a progress bar on
// a terminal (plain lines otherwise), per-epoch metrics as JSON lines, and loss/accuracy curves
// drawn by gnuplot (installed from Debian) into a PNG.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace examples {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// One line redrawn in place with '\r' on a terminal; nothing until the epoch's end line when
// stdout is a file or a pipe.
class ProgressBar {
 public:
  ProgressBar() : tty_(isatty(STDOUT_FILENO) != 0) {}
  bool is_terminal() const { return tty_; }

  // Whether it is time to redraw (at most 10 times a second): callers read the loss from the
  // device only then, so the bar costs no synchronization on most steps.
  bool due() const { return tty_ && seconds_since(last_draw_) > 0.1; }

  void draw(int epoch, int epochs, int64_t step, int64_t steps, double loss, double samples_per_s,
            double eta_s) {
    constexpr int kWidth = 30;
    const int filled = steps > 0 ? static_cast<int>(kWidth * step / steps) : 0;
    std::printf("\repoch %d/%d [%s%s] %lld/%lld loss %.4f %7.0f samples/s ETA %5.1f s ", epoch,
                epochs, std::string(filled, '=').c_str(), std::string(kWidth - filled, ' ').c_str(),
                static_cast<long long>(step), static_cast<long long>(steps), loss, samples_per_s,
                eta_s);
    std::fflush(stdout);
    last_draw_ = Clock::now();
  }

  // Ends the epoch's line (replacing the bar on a terminal).
  void finish(const std::string& line) {
    if (tty_) std::printf("\r\033[K");
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  }

 private:
  bool tty_;
  Clock::time_point last_draw_{};
};

struct EpochRecord {
  int epoch;
  double train_loss, test_loss, test_acc, epoch_s, samples_per_s;
  nlohmann::json to_json() const {
    return {{"epoch", epoch},         {"train_loss", train_loss},
            {"test_loss", test_loss}, {"test_acc", test_acc},
            {"epoch_s", epoch_s},     {"train_samples_per_s", samples_per_s}};
  }
};

// Appends one JSON object per line (opened on construction so that a bad path fails early).
class MetricsFile {
 public:
  explicit MetricsFile(const std::string& path) {
    if (path.empty()) return;
    out_.open(path);
    if (!out_) throw std::runtime_error("cannot write the metrics file " + path);
  }
  void write(const EpochRecord& r) {
    if (out_.is_open()) out_ << r.to_json().dump() << std::endl;
  }

 private:
  std::ofstream out_;
};

// Draws the train/test loss and the test accuracy per epoch with gnuplot into a PNG.
inline void plot_curves(const std::vector<EpochRecord>& records, const std::string& png,
                        const std::string& title) {
  std::ostringstream script;
  script << "set terminal pngcairo size 1000,420\nset output '" << png << "'\n"
         << "set multiplot layout 1,2 title '" << title << "'\n"
         << "set xlabel 'epoch'\nset grid\nset key top right\n"
         << "set ylabel 'loss'\nplot '-' with linespoints title 'train loss', "
            "'-' with linespoints title 'test loss'\n";
  for (const auto& r : records) script << r.epoch << " " << r.train_loss << "\n";
  script << "e\n";
  for (const auto& r : records) script << r.epoch << " " << r.test_loss << "\n";
  script << "e\nset ylabel 'test accuracy (%)'\nset key bottom right\n"
         << "plot '-' with linespoints title 'test accuracy'\n";
  for (const auto& r : records) script << r.epoch << " " << 100.0 * r.test_acc << "\n";
  script << "e\nunset multiplot\n";
  FILE* gp = popen("gnuplot 2>&1", "w");
  if (!gp) throw std::runtime_error("cannot start gnuplot (install Debian's gnuplot-nox)");
  const std::string text = script.str();
  std::fwrite(text.data(), 1, text.size(), gp);
  const int status = pclose(gp);
  if (status != 0)
    throw std::runtime_error("gnuplot failed (exit status " + std::to_string(status) +
                             "); is Debian's gnuplot-nox installed?");
}

}  // namespace examples
