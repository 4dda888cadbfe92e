// operator<< prints tensors as PyTorch does: the expected text is PyTorch's own repr() of the
// same tensors, stored in tests/data/printing.txt by tools/make_test_data.py.
#include <ember/ember.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "reference.h"

using namespace ember;

namespace {

// name -> PyTorch's text
std::map<std::string, std::string> load_cases() {
  std::ifstream in(std::string(EMBER_TEST_DATA_DIR) + "/printing.txt");
  EXPECT_TRUE(in.good()) << "tests/data/printing.txt is missing";
  std::map<std::string, std::string> cases;
  std::string line, name;
  while (std::getline(in, line)) {
    if (line.rfind("#", 0) == 0) continue;
    if (line.rfind("=== ", 0) == 0) {
      name = line.substr(4);
      cases[name];
      continue;
    }
    std::string& text = cases[name];
    if (!text.empty()) text += "\n";
    text += line;
  }
  return cases;
}

// The same tensors, built with ember (see PRINT_CASES in tools/make_test_data.py).
Tensor build(const std::string& name) {
  const float inf = INFINITY;
  if (name == "float_1d") return tensor({1.0f, 2.5f, -3.0f});
  if (name == "float_integral") return tensor({1.0f, 2.0f, 3.0f});
  if (name == "float_2d") return tensor({0.5f, -1.25f, 100.0f, 3.0f}).view({2, 2});
  if (name == "float_3d") return arange(12, kFloat32).view({2, 2, 3});
  if (name == "float_sci") return tensor({1e-5f, 1.0f, 1e5f});
  if (name == "float_nonfinite") return tensor({NAN, inf, -inf, 1.0f});
  if (name == "float_0d") return full({}, 3.5);
  if (name == "float_empty") return zeros({0});
  if (name == "float_empty_2x0") return zeros({2, 0});
  if (name == "float64_1d") return tensor({1.5, -2.25}, kFloat64);
  if (name == "int64_2x3") return arange(6).view({2, 3});
  if (name == "int64_long") return arange(1001);
  if (name == "int32_1d") return tensor({int32_t(1), int32_t(-2), int32_t(30)}, kInt32);
  if (name == "uint8_1d") return tensor({uint8_t(0), uint8_t(7), uint8_t(255)});
  if (name == "bool_1d") return tensor({true, false, true});
  if (name == "transposed") return arange(6, kFloat32).view({2, 3}).t();
  ADD_FAILURE() << "no builder for print case " << name;
  return Tensor();
}

std::string rtrim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
    s.replace(p, from.size(), to);
  return s;
}

class Printing : public ::testing::TestWithParam<std::string> {};

TEST_P(Printing, MatchesPyTorchRepr) {
  static const std::map<std::string, std::string> cases = load_cases();
  auto it = cases.find(GetParam());
  ASSERT_NE(it, cases.end()) << "case missing from tests/data/printing.txt";
  std::ostringstream os;
  os << build(GetParam());
  std::string got = rtrim(os.str()), want = rtrim(it->second);
  // ember names its dtypes as PyTorch does, without PyTorch's module prefix ("dtype=float64"
  // or "dtype=ember.float64" for PyTorch's "dtype=torch.float64")
  if (got != want && got != replace_all(want, "torch.", "ember.")) {
    EXPECT_EQ(got, replace_all(want, "torch.", ""));
  }
}

INSTANTIATE_TEST_SUITE_P(
    PyTorchRepr, Printing,
    ::testing::Values("float_1d", "float_integral", "float_2d", "float_3d", "float_sci",
                      "float_nonfinite", "float_0d", "float_empty", "float_empty_2x0", "float64_1d",
                      "int64_2x3", "int64_long", "int32_1d", "uint8_1d", "bool_1d", "transposed"),
    [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(PrintingMisc, DataFileCoversEveryCase) { EXPECT_EQ(load_cases().size(), 16u); }

TEST(PrintingMisc, PrintingDoesNotChangeTheTensor) {
  Tensor t = arange(6, kFloat32).view({2, 3}).t();
  std::ostringstream os;
  os << t;
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_TRUE(ref::matches(t, kFloat32, {3, 2}, {0, 3, 1, 4, 2, 5}));
}

TEST(PrintingMisc, DtypeAndDeviceNames) {
  std::ostringstream os;
  os << kFloat64 << " " << kInt32 << " " << kBool << " " << kUInt8 << " " << Device(kCPU);
  EXPECT_EQ(os.str(), "float64 int32 bool uint8 cpu");
  EXPECT_EQ(Device("cuda:1").str(), "cuda:1");
  EXPECT_EQ(Device("cuda:1").index(), 1);
  EXPECT_TRUE(Device("cuda").is_cuda());
}

}  // namespace
