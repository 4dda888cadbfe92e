// Runs gradcheck and gradgradcheck on every entry of the op table (one ctest test per
// entry and device), and checks the table covers every op autograd/differentiable.def
// declares differentiable.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "op_table.h"

using namespace ember;
using optable::OpEntry;

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
#define EMBER_GRAD(kernel, name) name,
#define EMBER_GRAD_VIEW(name) name,
#define EMBER_NO_GRAD(kernel, why)
#include <ember/autograd/differentiable.def>
#undef EMBER_GRAD
#undef EMBER_GRAD_VIEW
#undef EMBER_NO_GRAD
  };
  return ops;
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

// Every primitive of core/ops.def says whether it is differentiable.
TEST(Coverage, EveryKernelIsClassified) {
  std::set<std::string> classified = {
#define EMBER_GRAD(kernel, name) #kernel,
#define EMBER_GRAD_VIEW(name)
#define EMBER_NO_GRAD(kernel, why) #kernel,
#include <ember/autograd/differentiable.def>
#undef EMBER_GRAD
#undef EMBER_GRAD_VIEW
#undef EMBER_NO_GRAD
  };
#define EMBER_OP(name, sig) \
  EXPECT_TRUE(classified.count(#name)) << #name << " is missing from autograd/differentiable.def";
#include <ember/core/ops.def>
#undef EMBER_OP
}

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
        << "a node names forward op '" << op << "', which autograd/differentiable.def lacks";
  }
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
