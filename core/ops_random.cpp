// More random ops, as LibTorch's: bernoulli, random_, exponential_, geometric_, log_normal_,
// cauchy_ (composites of rand/randn) and multinomial (a kernel); generator.h has the scheme.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include <ember/core/checks.h>
#include <ember/core/dispatch.h>
#include <ember/core/functions.h>
#include <ember/core/generator.h>
#include <ember/core/grad_mode.h>

namespace ember {

namespace {

// Uniform [0, 1) of self's sizes on self's device: float64 when wide, else float32.
Tensor uniform_like(const Tensor& self, bool wide) {
  return rand(self.sizes(),
              TensorOptions().dtype(wide ? kFloat64 : kFloat32).device(self.device()));
}

// The in-place ops write fresh values through copy_ (which casts, bumps the version, refuses a
// leaf that requires grad and records no gradient to the old values, as LibTorch's).
Tensor& write(Tensor& self, const Tensor& values) {
  self.copy_(values);
  return self;
}

void check_float(const Tensor& self, const char* op) {
  EMBER_CHECK(self.is_floating_point(), op, ": expected a floating-point tensor, got dtype ",
              self.dtype());
}

void check_p(double p, const char* op) {
  EMBER_CHECK(p >= 0 && p <= 1, op, ": expects p to be in [0, 1], but got p=", p);
}

// A tensor of probabilities for bernoulli: floating, every element in [0, 1] (NaN refused).
void check_probabilities(const Tensor& p, const char* op) {
  EMBER_CHECK(p.is_floating_point(), op,
              ": expected a floating-point tensor of probabilities, got ", p.dtype());
  if (p.numel() == 0) return;
  NoGradGuard no_grad;
  EMBER_CHECK(p.ge(0).logical_and(p.le(1)).all().item<bool>(), op,
              ": expected every probability in [0, 1], got values outside it in a tensor of shape ",
              p.sizes());
}

// Integers [from, to_inc] into self through the random_from_to kernel (64 bits per element).
Tensor& random_inclusive(Tensor& self, int64_t from, int64_t to_inc) {
  if (self.numel() == 0) return self;
  Tensor values = empty_on(self.sizes(), self.dtype(), self.device());
  PhiloxSeed s = next_philox(random_counters(values.numel(), 2));
  kernel<Op::random_from_to>(self.device().type())(values, s.seed, s.offset, from, to_inc);
  return write(self, values);
}

// from and to - 1 must fit self's dtype (floats: their finite range), as LibTorch checks.
void check_in_range(const Tensor& self, int64_t from, int64_t to_inc) {
  double lo = 0, hi = 1;
  switch (self.dtype()) {
    case kFloat32:
      lo = -static_cast<double>(std::numeric_limits<float>::max());
      hi = static_cast<double>(std::numeric_limits<float>::max());
      break;
    case kFloat64:
      lo = -std::numeric_limits<double>::max();
      hi = std::numeric_limits<double>::max();
      break;
    case kInt32:
      lo = std::numeric_limits<int32_t>::min();
      hi = std::numeric_limits<int32_t>::max();
      break;
    case kInt64:
      return;
    case kUInt8:
      lo = 0;
      hi = 255;
      break;
    case kBool:
      break;
    default:
      EMBER_THROW("random_: dtype ", self.dtype(), " is not supported");
  }
  EMBER_CHECK(from >= lo && from <= hi, "random_: from is out of bounds for ", self.dtype(),
              " (from=", from, ")");
  EMBER_CHECK(to_inc >= lo && to_inc <= hi, "random_: to - 1 is out of bounds for ", self.dtype(),
              " (to - 1=", to_inc, ")");
}

// The largest value random_ draws without `to`: 2^digits for floats, the dtype's max else.
int64_t default_to_inc(ScalarType dtype) {
  switch (dtype) {
    case kFloat32:
      return int64_t(1) << 24;
    case kFloat64:
      return int64_t(1) << 53;
    case kInt32:
      return std::numeric_limits<int32_t>::max();
    case kUInt8:
      return 255;
    case kBool:
      return 1;
    case kInt64:
      return std::numeric_limits<int64_t>::max();
    default:
      EMBER_THROW("random_: dtype ", dtype, " is not supported");
  }
}

}  // namespace

// ---- bernoulli: 1 where a uniform draw is below the probability ----

Tensor bernoulli(const Tensor& self) {
  check_probabilities(self, "bernoulli");
  NoGradGuard no_grad;
  const Tensor u = uniform_like(self, self.dtype() == kFloat64);
  return u.lt(self.detach()).to(self.dtype());
}

Tensor bernoulli(const Tensor& self, double p) {
  check_p(p, "bernoulli");
  NoGradGuard no_grad;
  return uniform_like(self, self.dtype() == kFloat64).lt(p).to(self.dtype());
}

Tensor bernoulli(const Tensor& self, const Tensor& p) {
  Tensor out = empty_like(self);
  out.bernoulli_(p);
  return out;
}

Tensor Tensor::bernoulli() const { return ember::bernoulli(*this); }
Tensor Tensor::bernoulli(double p) const { return ember::bernoulli(*this, p); }

Tensor& Tensor::bernoulli_(double p) const {
  check_p(p, "bernoulli_");
  Tensor values;
  {
    NoGradGuard no_grad;
    values = uniform_like(*this, dtype() == kFloat64).lt(p);
  }
  return write(self_(), values);
}

Tensor& Tensor::bernoulli_(const Tensor& p) const {
  check_probabilities(p, "bernoulli_");
  Tensor values;
  {
    NoGradGuard no_grad;
    const Tensor prob = p.detach().to(device()).expand(sizes());
    values = uniform_like(*this, p.dtype() == kFloat64).lt(prob);
  }
  return write(self_(), values);
}

// ---- random_: integers, uniform over [from, to) ----

Tensor& Tensor::random_() const { return random_(0, std::nullopt); }

Tensor& Tensor::random_(int64_t to) const { return random_(0, std::optional<int64_t>(to)); }

Tensor& Tensor::random_(int64_t from, std::optional<int64_t> to) const {
  int64_t to_inc;
  if (to.has_value()) {
    EMBER_CHECK(from < *to, "random_ expects 'from' to be less than 'to', but got from=", from,
                " >= to=", *to);
    to_inc = *to - 1;
  } else {
    to_inc = default_to_inc(dtype());
    EMBER_CHECK(from <= to_inc, "random_ expects 'from' to be less than or equal to 'to_inc' of ",
                dtype(), ", but got from=", from, " > to_inc=", to_inc);
  }
  check_in_range(*this, from, to_inc);
  return random_inclusive(self_(), from, to_inc);
}

// ---- continuous distributions from uniform or normal draws ----

// -log(1 - u) / lambd (LibTorch's CPU formula); float64 maths for float64, float32 otherwise.
Tensor& Tensor::exponential_(double lambd) const {
  check_float(*this, "exponential_");
  EMBER_CHECK(lambd > 0.0, "exponential_ expects lambda > 0.0, but found lambda=", lambd);
  Tensor values;
  {
    NoGradGuard no_grad;
    values = uniform_like(*this, dtype() == kFloat64).neg().log1p().mul(-1.0 / lambd);
  }
  return write(self_(), values);
}

// floor(log(1 - u) / log(1 - p)) + 1 in float64 for every dtype: trials until the first success.
Tensor& Tensor::geometric_(double p) const {
  EMBER_CHECK(dtype() != kBool, "geometric_: dtype bool is not supported");
  EMBER_CHECK(p > 0 && p < 1, "geometric_ expects p to be in (0, 1), but got p=", p);
  Tensor values;
  {
    NoGradGuard no_grad;
    // The quotient is >= 0, so the int64 cast floors it; 2^62 keeps it in range.
    const Tensor y = uniform_like(*this, true).neg().log1p().div(std::log1p(-p));
    values = y.clamp_max(std::ldexp(1.0, 62)).to(kInt64).add(1);
  }
  return write(self_(), values);
}

// exp(mean + std * z), z standard normal.
Tensor& Tensor::log_normal_(double mean, double std) const {
  check_float(*this, "log_normal_");
  EMBER_CHECK(std > 0.0, "log_normal_ expects std > 0.0, but found std=", std);
  Tensor values;
  {
    NoGradGuard no_grad;
    values =
        randn(sizes(), TensorOptions().dtype(dtype()).device(device())).mul(std).add(mean).exp();
  }
  return write(self_(), values);
}

// median + sigma * tan(pi (u - 1/2)), in float64 for every dtype (tan is steep near the ends).
Tensor& Tensor::cauchy_(double median, double sigma) const {
  check_float(*this, "cauchy_");
  EMBER_CHECK(sigma > 0.0, "cauchy_ expects sigma > 0.0, but found sigma=", sigma);
  Tensor values;
  {
    NoGradGuard no_grad;
    const Tensor theta = uniform_like(*this, true).sub(0.5).mul(M_PI);
    values = theta.sin().div(theta.cos()).mul(sigma).add(median);
  }
  return write(self_(), values);
}

// ---- multinomial ----

Tensor multinomial(const Tensor& self, int64_t num_samples, bool replacement) {
  EMBER_CHECK(self.dim() == 1 || self.dim() == 2,
              "multinomial: prob_dist must be 1 or 2 dim, got a tensor of shape ", self.sizes());
  EMBER_CHECK(self.is_floating_point(),
              "multinomial only supports floating-point dtypes for input, got: ", self.dtype());
  EMBER_CHECK(num_samples > 0,
              "multinomial: cannot sample n_sample <= 0 samples (n_sample=", num_samples, ")");
  const int64_t categories = self.size(-1);
  EMBER_CHECK(replacement || num_samples <= categories,
              "multinomial: cannot sample n_sample > prob_dist.size(-1) samples without "
              "replacement (n_sample=",
              num_samples, ", size(-1)=", categories, ")");
  EMBER_CHECK(categories <= (int64_t(1) << 24),
              "multinomial: number of categories cannot exceed 2^24, got ", categories);
  const int64_t rows = self.dim() == 2 ? self.size(0) : 1;
  Tensor out = empty_on({rows, num_samples}, kInt64, self.device());
  if (rows > 0) {
    NoGradGuard no_grad;
    Tensor probs = self.detach().reshape({rows, categories});
    if (probs.dtype() != kFloat32 && probs.dtype() != kFloat64) probs = probs.to(kFloat32);
    probs = probs.contiguous();
    const bool finite = categories > 0 && probs.min().item<double>() >= 0 &&
                        probs.max().item<double>() < std::numeric_limits<double>::infinity() &&
                        !probs.ne(probs).any().item<bool>();
    EMBER_CHECK(categories == 0 || finite,
                "multinomial: probability tensor contains either `inf`, `nan` or element < 0");
    EMBER_CHECK(categories > 0 && probs.sum({1}).min().item<double>() > 0,
                "multinomial: invalid multinomial distribution (sum of probabilities <= 0)");
    PhiloxSeed s = next_philox(random_counters(out.numel(), 2));
    kernel<Op::multinomial>(self.device().type())(out, probs, s.seed, s.offset, replacement);
  }
  return self.dim() == 1 ? out.view({num_samples}) : out;
}

Tensor Tensor::multinomial(int64_t num_samples, bool replacement) const {
  return ember::multinomial(*this, num_samples, replacement);
}

}  // namespace ember
