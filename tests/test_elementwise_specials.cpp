// Special values through the vectorized math kernels: infinities, signed zeros, NaN and
// subnormals must give what the C++ library gives (Eigen's fast paths do not always).
#include <gtest/gtest.h>

#include <ember/ember.h>

#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "reference.h"

using namespace ember;

namespace {

template <class T>
void check_specials(const char* name, const std::function<Tensor(const Tensor&)>& op,
                    T (*want)(T)) {
  const T inf = std::numeric_limits<T>::infinity();
  const T specials[] = {inf,
                        -inf,
                        T(0),
                        -T(0),
                        std::numeric_limits<T>::quiet_NaN(),
                        std::numeric_limits<T>::denorm_min() * 3,
                        std::numeric_limits<T>::min() / 4,
                        T(-1),
                        T(4),
                        T(0.5),
                        T(-1e-30),
                        T(20)};
  std::vector<double> v;
  for (int i = 0; i < 257; ++i) v.push_back(double(specials[(i * 5) % 12]));  // long: vector paths
  const ScalarType dt = std::is_same<T, float>::value ? kFloat32 : kFloat64;
  Tensor x = ref::make(v, {257}, dt);
  std::vector<double> got = ref::values(op(x));
  for (size_t i = 0; i < v.size(); ++i) {
    const T in = static_cast<T>(v[i]);
    const T w = want(in);
    const T g = static_cast<T>(got[i]);
    const bool same = (std::isnan(w) && std::isnan(g)) ||
                      (w == g && std::signbit(w) == std::signbit(g)) ||
                      (std::isfinite(w) &&
                       std::abs(w - g) <= 4 * std::numeric_limits<T>::epsilon() * std::abs(w));
    EXPECT_TRUE(same) << name << "(" << in << ") = " << g << ", C++ gives " << w << " ("
                      << dtype_name(dt) << ", element " << i << ")";
  }
}

template <class T>
T rsqrt_ref(T x) {
  return T(1) / std::sqrt(x);
}

}  // namespace

TEST(ElementwiseSpecials, SqrtRsqrtLogMatchTheLibrary) {
  check_specials<float>(
      "sqrt", [](const Tensor& t) { return sqrt(t); }, [](float x) { return std::sqrt(x); });
  check_specials<double>(
      "sqrt", [](const Tensor& t) { return sqrt(t); }, [](double x) { return std::sqrt(x); });
  check_specials<float>(
      "rsqrt", [](const Tensor& t) { return rsqrt(t); }, &rsqrt_ref<float>);
  check_specials<double>(
      "rsqrt", [](const Tensor& t) { return rsqrt(t); }, &rsqrt_ref<double>);
  check_specials<float>(
      "log", [](const Tensor& t) { return log(t); }, [](float x) { return std::log(x); });
  check_specials<double>(
      "log", [](const Tensor& t) { return log(t); }, [](double x) { return std::log(x); });
}
