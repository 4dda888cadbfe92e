// Save and load throughput of a state dict (default 1 GiB of float32 in 16 tensors) against the
// file system's own: ember::save (which fsyncs) beside `dd conv=fsync` of the same bytes, and
// ember::load_tensors beside `cat > /dev/null` of the same file right before (page cache), and
// load_tensors plus one pass over every loaded byte (large files load by mapping).
// Usage: serialize_bench [DIR] [MiB]; prints one JSON line (MB/s of each, and the ratios).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>

#include <ember/ember.h>

namespace {

double seconds_of(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void shell(const std::string& command) {
  if (std::system(command.c_str()) != 0) {
    std::fprintf(stderr, "serialize_bench: '%s' failed\n", command.c_str());
    std::exit(1);
  }
}

// XOR of the tensor's bytes as 64-bit words: reads every byte once.
uint64_t xor_words(const ember::Tensor& t) {
  const auto* words = static_cast<const uint64_t*>(t.data_ptr());
  const int64_t n = t.numel() * int64_t(t.element_size()) / 8;
  uint64_t acc = 0;
  for (int64_t i = 0; i < n; ++i) acc ^= words[i];
  return acc;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : "/tmp";
  const int64_t mib = argc > 2 ? std::atoll(argv[2]) : 1024;
  const int64_t parts = 16, per = mib * (int64_t(1) << 20) / 4 / parts;
  std::map<std::string, ember::Tensor> dict;
  for (int64_t i = 0; i < parts; ++i)
    dict["layer" + std::to_string(i) + ".weight"] = ember::randn({per});
  const std::string file = dir + "/serialize_bench.safetensors", copy = dir + "/serialize_bench.dd";
  const double bytes = double(parts * per * 4);
  const double save_s = seconds_of([&] { ember::save(dict, file); });
  const double dd_s = seconds_of(
      [&] { shell("dd if=" + file + " of=" + copy + " bs=16M conv=fsync status=none"); });
  const double cat_s = seconds_of([&] { shell("cat " + file + " > /dev/null"); });
  std::map<std::string, ember::Tensor> back;
  const double load_s = seconds_of([&] { back = ember::load_tensors(file); });
  // Large files load by mapping, so their pages are read on first touch: also time loading
  // again and reading every byte once, the work cat does.
  back.clear();
  uint64_t checksum = 0;
  const double load_read_s = seconds_of([&] {
    back = ember::load_tensors(file);
    for (const auto& [name, t] : back) checksum ^= xor_words(t);
  });
  bool same = back.size() == dict.size();
  for (const auto& [name, t] : dict) same = same && back.count(name) && ember::equal(back[name], t);
  std::remove(file.c_str());
  std::remove(copy.c_str());
  const double mb = bytes / 1e6;
  std::printf(
      "{\"MiB\":%lld,\"save_MBps\":%.0f,\"dd_fsync_MBps\":%.0f,\"save_vs_dd\":%.2f,"
      "\"load_MBps\":%.0f,\"load_and_read_MBps\":%.0f,\"cat_MBps\":%.0f,\"load_vs_cat\":%.2f,"
      "\"load_and_read_vs_cat\":%.2f,\"checksum\":%llu,\"round_trip_ok\":%s}\n",
      static_cast<long long>(mib), mb / save_s, mb / dd_s, dd_s / save_s, mb / load_s,
      mb / load_read_s, mb / cat_s, cat_s / load_s, cat_s / load_read_s,
      static_cast<unsigned long long>(checksum), same ? "true" : "false");
  return same ? 0 : 1;
}
