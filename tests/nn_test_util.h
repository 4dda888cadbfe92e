// Helpers of the nn composite tests (test_nn_functional_more, test_nn_loss_more): float64
// inputs, values read back as doubles, comparisons, expected errors and gradients at points.
#pragma once

#include <ember/ember.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace nn_test {

using ember::Tensor;
using namespace ember;

// scale * sin(0.37 i + phase) over `shape` (float64).
inline Tensor wave(std::vector<int64_t> shape, double phase, double scale) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = scale * std::sin(0.37 * i + phase);
  return tensor(v, kFloat64).reshape(shape);
}
inline std::vector<double> values(const Tensor& t) {
  const Tensor c = t.detach().to(kFloat64).contiguous().reshape({-1});
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}
inline void expect_values(const Tensor& got, const std::vector<double>& want, double tol = 1e-12) {
  const std::vector<double> g = values(got);
  ASSERT_EQ(g.size(), want.size());
  for (size_t i = 0; i < g.size(); ++i)
    EXPECT_NEAR(g[i], want[i], tol * (1 + std::abs(want[i]))) << "at " << i;
}
// Applies f to every element of t (the naive reference).
inline std::vector<double> map(const Tensor& t, const std::function<double(double)>& f) {
  std::vector<double> v = values(t);
  for (double& x : v) x = f(x);
  return v;
}
template <class Fn>
inline void expect_throw_with(Fn&& fn, const std::string& text) {
  try {
    fn();
    ADD_FAILURE() << "expected an ember::Error containing \"" << text << "\"";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr(text));
  }
}
// d/dx of sum(f(x)) at the given points.
inline Tensor grad_at(const std::vector<double>& points,
                      const std::function<Tensor(const Tensor&)>& f) {
  Tensor x = tensor(points, kFloat64).requires_grad_();
  f(x).sum().backward();
  return x.grad();
}

inline Tensor sign_of(const Tensor& t) { return where(t.gt(0), ones_like(t), -ones_like(t)); }

}  // namespace nn_test
