// The disk cache of runtime-compiled kernels (cuda/kernel_cache.h) and NVRTC's compile path
// (cuda::detail::compile_module): name expressions, cache hits in this process and in a second
// one (no NVRTC call), keys that change with what the code depends on, damaged entries,
// least-recently-used eviction, concurrent writers. NVRTC needs no GPU: these run in every
// CUDA build (their names contain "Nvrtc").
#include <ember/ember.h>

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <ember/cuda/kernel_cache.h>

#include "error_of.h"

namespace {

using namespace ember;
using cuda::detail::compile_module;
using cuda::detail::CompiledModule;
using cuda::detail::nvrtc_compilations;
namespace fs = std::filesystem;

const char* kTemplate = R"(
template <class T> __global__ void scale(T* x, T a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a * SCALE;
}
)";

// A fresh cache folder per test, set through EMBER_KERNEL_CACHE (read at every use).
class KernelCacheNvrtc : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ember_kernel_cache_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    setenv("EMBER_KERNEL_CACHE", dir_.c_str(), 1);
    unsetenv("EMBER_KERNEL_CACHE_MAX_MB");
  }
  void TearDown() override {
    unsetenv("EMBER_KERNEL_CACHE");
    unsetenv("EMBER_KERNEL_CACHE_MAX_MB");
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::vector<fs::path> entries() const {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path());
    return out;
  }
  CompiledModule compile(const std::vector<std::string>& options = {"-DSCALE=2"},
                         const std::vector<std::string>& names = {"scale<float>"}) {
    return compile_module(kTemplate, options, names, "scale.cu", "sm_90");
  }
  fs::path dir_;
};

TEST_F(KernelCacheNvrtc, NameExpressionsAndASecondCompileFromTheCache) {
  const int64_t before = nvrtc_compilations();
  const CompiledModule first = compile({"-DSCALE=2"}, {"scale<float>", "scale<double>"});
  EXPECT_FALSE(first.from_cache);
  EXPECT_EQ(nvrtc_compilations(), before + 1);
  ASSERT_GE(first.cubin.size(), 4u);
  EXPECT_EQ(first.cubin.substr(0, 4), std::string("\x7f"
                                                  "ELF"));  // a cubin is an ELF file
  ASSERT_EQ(first.lowered_names.size(), 2u);
  EXPECT_EQ(first.lowered_names[0].first, "scale<float>");
  EXPECT_EQ(first.lowered_names[0].second, "_Z5scaleIfEvPT_S0_i");  // Itanium mangling
  EXPECT_EQ(first.lowered_names[1].second, "_Z5scaleIdEvPT_S0_i");
  ASSERT_EQ(entries().size(), 1u);

  const CompiledModule again = compile({"-DSCALE=2"}, {"scale<float>", "scale<double>"});
  EXPECT_TRUE(again.from_cache);
  EXPECT_EQ(nvrtc_compilations(), before + 1);  // no NVRTC call
  EXPECT_EQ(again.cubin, first.cubin);
  EXPECT_EQ(again.lowered_names, first.lowered_names);
}

// The child half of SecondProcessCompilesNothing (skipped unless that test runs it).
TEST_F(KernelCacheNvrtc, ChildProcessPart) {
  const char* parent_dir = std::getenv("EMBER_TEST_PARENT_CACHE");
  if (parent_dir == nullptr) GTEST_SKIP() << "run by SecondProcessCompilesNothing";
  setenv("EMBER_KERNEL_CACHE", parent_dir, 1);
  const CompiledModule m = compile();
  EXPECT_TRUE(m.from_cache);
  EXPECT_EQ(nvrtc_compilations(), 0);
}

TEST_F(KernelCacheNvrtc, SecondProcessCompilesNothing) {
  const auto start = std::chrono::steady_clock::now();
  const CompiledModule m = compile();
  const double compile_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(m.from_cache);
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  const std::string command = "EMBER_TEST_PARENT_CACHE='" + dir_.string() + "' '" + self +
                              "' --gtest_filter=KernelCacheNvrtc.ChildProcessPart > /dev/null";
  const auto child_start = std::chrono::steady_clock::now();
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  const double child_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - child_start)
          .count();
  const auto load_start = std::chrono::steady_clock::now();
  EXPECT_TRUE(compile().from_cache);
  const double load_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - load_start)
          .count();
  std::printf("compile %.1f ms, load from the cache %.3f ms, child process %.1f ms\n", compile_ms,
              load_ms, child_ms);
}

TEST_F(KernelCacheNvrtc, KeyFollowsOptionsNamesAndIncludedHeaders) {
  const fs::path include = dir_ / "include";
  fs::create_directories(include);
  std::ofstream(include / "factor.h") << "#define SCALE 3\n";
  const std::string source = std::string("#include \"factor.h\"\n") + kTemplate;
  auto build = [&](const std::vector<std::string>& options, const std::vector<std::string>& names) {
    return compile_module(source, options, names, "scale.cu", "sm_90");
  };
  const std::vector<std::string> inc = {"-I" + include.string()};
  EXPECT_FALSE(build(inc, {"scale<float>"}).from_cache);
  EXPECT_TRUE(build(inc, {"scale<float>"}).from_cache);
  EXPECT_FALSE(build(inc, {"scale<double>"}).from_cache);  // other name expressions
  std::vector<std::string> fast = inc;
  fast.push_back("--use_fast_math");
  EXPECT_FALSE(build(fast, {"scale<float>"}).from_cache);  // other options
  std::ofstream(include / "factor.h") << "#define SCALE 4\n";
  EXPECT_FALSE(build(inc, {"scale<float>"}).from_cache);  // the header changed
  EXPECT_FALSE(
      compile_module(source, inc, {"scale<float>"}, "scale.cu", "sm_80").from_cache);  // arch
}

TEST_F(KernelCacheNvrtc, HeadersGivenAsStrings) {
  const std::string source = std::string("#include \"factor.h\"\n") + kTemplate;
  auto build = [&](const std::string& factor) {
    return compile_module(source, {}, {"scale<float>"}, "scale.cu", "sm_90",
                          {{"factor.h", "#define SCALE " + factor + "\n"}});
  };
  const CompiledModule three = build("3");
  EXPECT_FALSE(three.from_cache);
  EXPECT_TRUE(build("3").from_cache);
  const CompiledModule four = build("4");  // the header's contents are in the key
  EXPECT_FALSE(four.from_cache);
  EXPECT_NE(four.cubin, three.cubin);
  // Without the header the include fails, naming it.
  EXPECT_NE(error_of([&] { compile_module(source, {}, {}, "scale.cu", "sm_90"); }).find("factor.h"),
            std::string::npos);
}

TEST_F(KernelCacheNvrtc, DamagedEntryIsCompiledAgain) {
  const CompiledModule m = compile();
  ASSERT_EQ(entries().size(), 1u);
  const fs::path entry = entries()[0];
  for (int damage = 0; damage < 3; ++damage) {
    std::string bytes;
    {
      std::ifstream in(entry, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    if (damage == 0) bytes[bytes.size() / 2] ^= 0x5a;     // a flipped byte
    if (damage == 1) bytes.resize(bytes.size() / 3);      // truncated
    if (damage == 2) bytes = "not a kernel cache entry";  // garbage
    std::ofstream(entry, std::ios::binary | std::ios::trunc) << bytes;
    const CompiledModule again = compile();
    EXPECT_FALSE(again.from_cache) << "damage " << damage;
    EXPECT_EQ(again.cubin, m.cubin);
    EXPECT_TRUE(compile().from_cache) << "damage " << damage;  // rewritten whole
  }
}

TEST_F(KernelCacheNvrtc, LeastRecentlyUsedEntriesLeaveFirst) {
  using cuda::detail::kernel_cache_load;
  using cuda::detail::kernel_cache_store;
  setenv("EMBER_KERNEL_CACHE_MAX_MB", "1", 1);
  const std::string blob(400 << 10, 'x');  // three of them exceed 1 MiB
  std::string got;
  kernel_cache_store("a", blob);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  kernel_cache_store("b", blob);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(kernel_cache_load("a", &got));  // a is now the most recently used
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  kernel_cache_store("c", blob);
  EXPECT_TRUE(kernel_cache_load("a", &got));
  EXPECT_FALSE(kernel_cache_load("b", &got));  // the least recently used left
  EXPECT_TRUE(kernel_cache_load("c", &got));
  EXPECT_EQ(got, blob);
}

TEST_F(KernelCacheNvrtc, ConcurrentWritersLeaveWholeEntries) {
  using cuda::detail::kernel_cache_load;
  using cuda::detail::kernel_cache_store;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < 20; ++i) {
        kernel_cache_store("shared", std::string(10000 + i, static_cast<char>('a' + i % 3)));
        kernel_cache_store("own" + std::to_string(t),
                           std::string(5000, static_cast<char>('0' + t)));
        std::string got;
        if (kernel_cache_load("shared", &got)) {
          EXPECT_TRUE(got.size() >= 10000 && got.size() < 10020) << got.size();
          EXPECT_EQ(got.find_first_not_of(got[0]), std::string::npos);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  std::string got;
  EXPECT_TRUE(kernel_cache_load("shared", &got));
  for (int t = 0; t < 8; ++t) {
    ASSERT_TRUE(kernel_cache_load("own" + std::to_string(t), &got));
    EXPECT_EQ(got, std::string(5000, static_cast<char>('0' + t)));
  }
  for (const fs::path& p : entries()) EXPECT_EQ(p.extension(), ".kernel") << p;  // no temporaries
}

TEST_F(KernelCacheNvrtc, UnusableCacheFolderStillCompiles) {
  setenv("EMBER_KERNEL_CACHE", "/proc/no/such/folder", 1);
  EXPECT_FALSE(compile().from_cache);
  EXPECT_FALSE(compile().from_cache);
  setenv("EMBER_KERNEL_CACHE", "0", 1);  // off
  EXPECT_FALSE(compile().from_cache);
}

TEST_F(KernelCacheNvrtc, CompileErrorCarriesTheWholeLogWithLineNumbers) {
  const std::string m = error_of([] {
    compile_module("extern \"C\" __global__ void k(float* x) {\n  x[0] = undefined_name;\n}\n", {},
                   {}, "broken.cu", "sm_90");
  });
  EXPECT_NE(m.find("broken.cu(2)"), std::string::npos) << m;
  EXPECT_NE(m.find("undefined_name"), std::string::npos) << m;
  EXPECT_NE(m.find("sm_90"), std::string::npos) << m;
  EXPECT_TRUE(!fs::exists(dir_) || entries().empty());  // nothing cached for a failure
}

}  // namespace
