// Runs gradcheck and gradgradcheck on every entry of the op table (one ctest test per
// entry and device), CPU/CUDA parity (float64 and float32) and the naive reference where an
// entry has one, and checks the table covers every op declared differentiable (core/ops.def's
// GRAD column and autograd/differentiable.def's views).
#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <string>

#include "op_table.h"

using namespace ember;
using optable::OpEntry;
using optable::tensor_list;

namespace {

// The forward op names of every node reachable from `outs`.
void collect_ops(const optable::tensor_list& outs, std::set<std::string>* ops) {
  std::vector<autograd::Node*> stack;
  std::set<autograd::Node*> seen;
  for (const Tensor& o : outs) {
    if (o.defined() && o.grad_fn()) stack.push_back(o.grad_fn().get());
  }
  while (!stack.empty()) {
    autograd::Node* n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second) continue;
    if (*n->forward_op()) ops->insert(n->forward_op());
    for (const auto& e : n->next_edges()) {
      if (e.function) stack.push_back(e.function.get());
    }
  }
}

std::set<std::string>& recorded_ops() {
  static std::set<std::string> ops;
  return ops;
}

const std::set<std::string>& declared_ops() {
  static const std::set<std::string> ops = {
#define GRAD(...) __VA_ARGS__,
#define NO_GRAD(why)
#define EMBER_OP(name, sig, grad) grad
#include <ember/core/ops.def>
#undef EMBER_OP
#undef GRAD
#undef NO_GRAD
#define EMBER_GRAD_VIEW(name) name,
#include <ember/autograd/differentiable.def>
#undef EMBER_GRAD_VIEW
  };
  return ops;
}

// Tolerances of the parity and reference checks: float64 on both sides, so only rounding
// (ulps of transcendental functions, summation order) may differ; float32 parity is looser
// (summation order and fused multiply-adds differ between the backends).
constexpr double kRtol = 1e-7, kAtol = 1e-9;
constexpr double kRtol32 = 2e-3, kAtol32 = 2e-4;

bool close(const Tensor& a, const Tensor& b, double rtol = kRtol, double atol = kAtol) {
  if (a.sizes() != b.sizes() || a.dtype() != b.dtype()) return false;
  if (!is_floating_point(a.dtype())) return equal(a, b);
  return allclose(a, b, rtol, atol, /*equal_nan=*/true);
}

// fn's outputs and the gradients of sum(out * w) for every input that requires grad (w fixed,
// not all ones, so that gradients which sum to zero still show); seeded for random ops.
tensor_list outputs_and_grads(const OpEntry& entry, const optable::tensor_list& inputs) {
  manual_seed(99);
  tensor_list outs = entry.fn(inputs), result, wrt;
  Tensor total;
  for (const Tensor& o : outs) {
    result.push_back(o.detach().cpu());
    if (!o.defined() || !is_floating_point(o.dtype()) || !o.requires_grad()) continue;
    const Tensor w = linspace(-1, 1, std::max<int64_t>(o.numel(), 1), o.options())
                         .narrow(0, 0, o.numel())
                         .reshape(o.sizes());
    const Tensor term = (o * w).sum();
    total = total.defined() ? total + term : term;
  }
  for (const Tensor& x : inputs) {
    if (x.defined() && x.requires_grad()) wrt.push_back(x);
  }
  if (total.defined() && !wrt.empty()) {
    for (const Tensor& g : autograd::grad({total}, wrt, {}, false, false, true))
      result.push_back(g.defined() ? g.cpu() : Tensor());
  }
  return result;
}

// The same inputs in float32 (float64 ones cast, requires_grad kept; indices and masks as
// they are), or the sample's own float32 inputs. A cast keeps the input's layout in its storage
// (strides and offset, the whole storage cast), so that as_strided and views see the same
// geometry.
tensor_list as_float32(const optable::Sample& sample) {
  if (sample.float32) return sample.float32();
  tensor_list out;
  for (const Tensor& x : sample.inputs) {
    if (!x.defined() || x.dtype() != kFloat64) {
      out.push_back(x);
      continue;
    }
    const int64_t storage_numel =
        static_cast<int64_t>(x.unsafeGetTensorImpl()->storage()->nbytes() / sizeof(double));
    Tensor y = x.detach()
                   .as_strided({storage_numel}, {1}, 0)
                   .to(kFloat32)
                   .as_strided(x.sizes(), x.strides(), x.storage_offset());
    if (x.requires_grad()) y.requires_grad_(true);
    out.push_back(y);
  }
  return out;
}

// Outputs and gradients of CUDA against the CPU's, within rtol and atol.
void expect_same_results(const tensor_list& got, const tensor_list& want, double rtol,
                         double atol) {
  ASSERT_EQ(want.size(), got.size());
  for (size_t k = 0; k < want.size(); ++k) {
    if (!want[k].defined() && !got[k].defined()) continue;
    ASSERT_TRUE(want[k].defined() && got[k].defined()) << "result " << k;
    EXPECT_TRUE(close(got[k], want[k], rtol, atol))
        << "result " << k << " (outputs, then gradients): CUDA " << got[k] << "\nCPU " << want[k];
  }
}

// The CUDA entry again on the CPU: the samples, made with one seed, hold the same values on
// both devices (ember's random ops draw the same numbers), so the results must agree; in
// float64, and again with the inputs cast to float32 (the entry is then the op's CPU/CUDA
// parity check in the dtype programs train in; an entry whose function does not take float32
// on the CPU must fail on CUDA too).
void check_parity(const OpEntry& entry) {
  manual_seed(1234);
  const std::vector<optable::Sample> on_cuda = entry.samples(Device(kCUDA));
  manual_seed(1234);
  const std::vector<optable::Sample> on_cpu = entry.samples(Device(kCPU));
  ASSERT_EQ(on_cuda.size(), on_cpu.size());
  for (size_t i = 0; i < on_cpu.size(); ++i) {
    {
      SCOPED_TRACE(entry.name + " / " + on_cpu[i].desc + " (CPU/CUDA parity)");
      expect_same_results(outputs_and_grads(entry, on_cuda[i].inputs),
                          outputs_and_grads(entry, on_cpu[i].inputs), kRtol, kAtol);
    }
    SCOPED_TRACE(entry.name + " / " + on_cpu[i].desc + " (CPU/CUDA parity, float32)");
    tensor_list want;
    try {
      want = outputs_and_grads(entry, as_float32(on_cpu[i]));
    } catch (const Error&) {
      EXPECT_THROW(outputs_and_grads(entry, as_float32(on_cuda[i])), Error);
      continue;
    }
    expect_same_results(outputs_and_grads(entry, as_float32(on_cuda[i])), want, kRtol32, kAtol32);
  }
}

void check_reference(const OpEntry& entry, const std::vector<optable::Sample>& samples) {
  for (const optable::Sample& s : samples) {
    SCOPED_TRACE(entry.name + " / " + s.desc + " (reference)");
    NoGradGuard no_grad;
    const tensor_list got = entry.fn(s.inputs), want = entry.ref(s.inputs);
    ASSERT_EQ(got.size(), want.size());
    for (size_t k = 0; k < got.size(); ++k)
      EXPECT_TRUE(close(got[k], want[k]))
          << "output " << k << ": " << got[k] << "\nreference " << want[k];
  }
}

void run_entry(const OpEntry& entry, Device device) {
  manual_seed(1234);
  autograd::GradcheckOptions opt;
  opt.atol = entry.atol;
  opt.rtol = entry.rtol;
  for (const optable::Sample& s : entry.samples(device)) {
    SCOPED_TRACE(entry.name + " / " + s.desc);
    collect_ops(entry.fn(s.inputs), &recorded_ops());
    try {
      EXPECT_TRUE(autograd::gradcheck(entry.fn, s.inputs, opt));
    } catch (const Error& e) {
      ADD_FAILURE() << "gradcheck: " << e.what();
    }
    if (!entry.gradgrad) continue;
    try {
      EXPECT_TRUE(autograd::gradgradcheck(entry.fn, s.inputs, opt));
    } catch (const Error& e) {
      ADD_FAILURE() << "gradgradcheck: " << e.what();
    }
  }
  if (device.is_cuda()) {
    check_parity(entry);
  } else if (entry.ref) {
    manual_seed(1234);
    check_reference(entry, entry.samples(device));
  }
}

class EntryTest : public ::testing::Test {
 public:
  EntryTest(const OpEntry* entry, Device device) : entry_(entry), device_(device) {}
  void TestBody() override {
    if (device_.is_cuda() && !cuda::is_available()) GTEST_SKIP() << "no CUDA device";
    run_entry(*entry_, device_);
  }

 private:
  const OpEntry* entry_;
  Device device_;
};

std::string test_name(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return out;
}

}  // namespace

// Runs after the entries (ctest runs each test in its own process, so it runs them all).
TEST(Coverage, EveryDifferentiableOpHasAnEntry) {
  for (const OpEntry& e : optable::registry()) {
    manual_seed(1);
    for (const optable::Sample& s : e.samples(Device(kCPU)))
      collect_ops(e.fn(s.inputs), &recorded_ops());
  }
  for (const std::string& op : declared_ops()) {
    EXPECT_TRUE(recorded_ops().count(op))
        << "'" << op << "' is declared differentiable but no gradcheck table entry records it";
  }
  for (const std::string& op : recorded_ops()) {
    EXPECT_TRUE(declared_ops().count(op))
        << "a node names forward op '" << op
        << "', which no GRAD column of core/ops.def nor autograd/differentiable.def lists";
  }
}

// The float32 pass of check_parity (CUDA) compares nothing for a sample whose function the CPU
// refuses in float32: such a refusal must be a dtype error (it names a dtype), not some other
// failure that would hide a broken float32 path. Prints how many samples take that path.
TEST(Coverage, Float32RefusalsAreDtypeErrors) {
  size_t samples = 0, refused = 0;
  std::set<std::string> entries;
  for (const OpEntry& e : optable::registry()) {
    manual_seed(1234);
    for (const optable::Sample& s : e.samples(Device(kCPU))) {
      ++samples;
      try {
        (void)outputs_and_grads(e, as_float32(s));
      } catch (const Error& err) {
        ++refused;
        entries.insert(e.name);
        const std::string what = err.what();
        EXPECT_TRUE(
            what.find("Float") != std::string::npos || what.find("Double") != std::string::npos ||
            what.find("float") != std::string::npos || what.find("dtype") != std::string::npos)
            << e.name << " / " << s.desc << " refuses float32 with: " << what;
      }
    }
  }
  std::string names;
  for (const std::string& n : entries) names += " " + n;
  std::printf("float32 pass: %zu of %zu samples refused by the CPU (%zu entries:%s)\n", refused,
              samples, entries.size(), names.c_str());
}

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (const char* dev : {"cpu", "cuda"}) {
    for (const OpEntry& e : optable::registry()) {
      const Device device(dev);
      ::testing::RegisterTest(
          dev[1] == 'p' ? "OpTableCpu" : "OpTableCuda", test_name(e.name).c_str(), nullptr, nullptr,
          __FILE__, __LINE__,
          [&e, device]() -> ::testing::Test* { return new EntryTest(&e, device); });
    }
  }
  return RUN_ALL_TESTS();
}
