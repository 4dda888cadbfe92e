// The LibTorch comparison shared by test_nn_norm.cpp and test_nn_conv_modules.cpp: the cases
// of tests/cases/cnn_cases.inc compiled for ember, their reference outputs and input gradients
// (tests/data/cnn_reference.txt, written by tools/cnn_reference.cpp from the same source), and
// a runner that checks every output and gradient on a device.
#pragma once

#include <ember/ember.h>
#include <ember/nn/functional_conv.h>
#include <ember/nn/modules/batchnorm.h>
#include <ember/nn/modules/conv.h>
#include <ember/nn/modules/groupnorm.h>
#include <ember/nn/modules/instancenorm.h>
#include <ember/nn/modules/padding.h>
#include <ember/nn/modules/pooling.h>
#include <ember/nn/modules/upsampling.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace cnnref {

namespace NS = ember;
using ember::Tensor;

struct CnnCase {
  std::string name;
  std::vector<std::vector<int64_t>> shapes;
  std::function<std::vector<Tensor>(const std::vector<Tensor>&)> fn;
};
constexpr auto no_value = std::nullopt;

#include "cases/cnn_cases.inc"

// sin(0.37 i + phase) over `shape` (float64): the generator's inputs.
inline Tensor wave(const std::vector<int64_t>& shape, double phase) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = std::sin(0.37 * i + phase);
  return ember::tensor(v, ember::kFloat64).reshape(shape);
}

struct Entry {
  char kind;  // 'o' output, 'g' input gradient, 'n' input without a gradient
  std::vector<int64_t> sizes;
  std::vector<double> values;
};

inline const std::map<std::string, std::vector<Entry>>& references() {
  static const std::map<std::string, std::vector<Entry>> refs = [] {
    std::map<std::string, std::vector<Entry>> m;
    std::ifstream in(std::string(EMBER_TEST_DATA_DIR) + "/cnn_reference.txt");
    std::string line;
    while (std::getline(in, line)) {
      std::stringstream fields(line);
      std::string name, field;
      std::getline(fields, name, ';');
      while (std::getline(fields, field, ';')) {
        Entry e;
        e.kind = field[0];
        const size_t colon = field.find(':');
        std::stringstream sizes(field.substr(2, colon - 2)), values(field.substr(colon + 1));
        std::string s;
        while (std::getline(sizes, s, ',')) e.sizes.push_back(std::stoll(s));
        double v;
        while (values >> v) e.values.push_back(v);
        m[name].push_back(e);
      }
    }
    return m;
  }();
  return refs;
}

inline void expect_matches(const Tensor& got, const Entry& want, const std::string& what,
                           double tol) {
  ASSERT_TRUE(got.defined()) << what << " is undefined";
  ASSERT_EQ(std::vector<int64_t>(got.sizes().begin(), got.sizes().end()), want.sizes) << what;
  const Tensor flat = got.detach().to(ember::kCPU).to(ember::kFloat64).contiguous().reshape({-1});
  ASSERT_EQ(flat.numel(), static_cast<int64_t>(want.values.size())) << what;
  const double* p = flat.data_ptr<double>();
  for (size_t i = 0; i < want.values.size(); ++i) {
    ASSERT_NEAR(p[i], want.values[i], tol * (1 + std::abs(want.values[i])))
        << what << " at flat index " << i;
  }
}

// Runs every case on `device` (inputs moved there) and compares with LibTorch's CPU results.
inline void check_cases(const std::vector<CnnCase>& cases, ember::Device device,
                        double tol = 1e-10) {
  const auto& refs = references();
  for (const CnnCase& c : cases) {
    SCOPED_TRACE(c.name);
    ASSERT_TRUE(refs.count(c.name))
        << "tests/data/cnn_reference.txt has no '" << c.name << "' (rerun tools/cnn_reference.cpp)";
    const std::vector<Entry>& ref = refs.at(c.name);
    std::vector<Tensor> in;
    for (size_t i = 0; i < c.shapes.size(); ++i) {
      in.push_back(wave(c.shapes[i], 0.5 + static_cast<double>(i)).to(device).requires_grad_(true));
    }
    const std::vector<Tensor> out = c.fn(in);
    Tensor loss = ember::zeros({}, ember::TensorOptions().dtype(ember::kFloat64).device(device));
    size_t k = 0;
    for (const Tensor& o : out) {
      ASSERT_LT(k, ref.size());
      ASSERT_EQ(ref[k].kind, 'o');
      const std::string label = "output " + std::to_string(k);
      expect_matches(o, ref[k++], label, tol);
      if (!o.is_floating_point() || !o.requires_grad()) continue;
      const Tensor coef =
          (ember::arange(o.numel(), ember::kFloat64) * 0.1 + 1.5).reshape(o.sizes()).to(device);
      loss = loss + (o * coef).sum();
    }
    if (loss.requires_grad()) loss.backward();
    for (size_t i = 0; i < in.size(); ++i) {
      ASSERT_LT(k, ref.size());
      if (ref[k].kind == 'n') {
        EXPECT_FALSE(in[i].grad().defined()) << "input " << i << " got a gradient";
        ++k;
        continue;
      }
      ASSERT_EQ(ref[k].kind, 'g');
      expect_matches(in[i].grad(), ref[k++], "gradient of input " + std::to_string(i), tol);
    }
    EXPECT_EQ(k, ref.size()) << "the reference has more entries than the case produced";
  }
}

}  // namespace cnnref
