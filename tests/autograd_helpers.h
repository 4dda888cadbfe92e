// Helpers shared by the autograd tests: tensor closeness with a readable failure, the
// message of the ember::Error a call throws, substring search.
#pragma once

#include <gtest/gtest.h>

#include <ember/ember.h>

#include <string>

namespace agtest {

inline ::testing::AssertionResult close(const ember::Tensor& a, const ember::Tensor& b,
                                        double tol = 1e-6) {
  if (!a.defined() || !b.defined()) return ::testing::AssertionFailure() << "undefined tensor";
  if (!a.sizes().equals(b.sizes())) {
    return ::testing::AssertionFailure() << "shapes " << a.sizes() << " vs " << b.sizes();
  }
  if (ember::allclose(a.detach().to(ember::kFloat64), b.detach().to(ember::kFloat64), tol, tol)) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << a << " vs " << b;
}

// The message of the ember::Error f() throws, or "(no error)".
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const ember::Error& e) {
    return e.what();
  }
  return "(no error)";
}

inline bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace agtest
