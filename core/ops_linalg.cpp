// Linear-algebra front-ends: matmul (PyTorch's 1-D to N-D rules), mm, bmm, addmm, linear.
// Everything ends in one GemmKernel call (addmm or baddbmm) on BLAS-compatible operands.
#include <algorithm>
#include <atomic>
#include <memory>

#include <ember/core/recording.h>
#include <ember/core/checks.h>
#include <ember/core/dispatch.h>
#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>
#include <ember/core/tensor.h>

namespace ember {
namespace {

void check_operands(const char* name, const Tensor& a, const Tensor& b) {
  check_defined(name, a, b);
  check_same_device(name, a, b);
  EMBER_CHECK(a.dtype() == b.dtype(), name, ": expected both operands to have the same dtype, got ",
              a.dtype(), " and ", b.dtype());
  EMBER_CHECK(a.dtype() != kBool && a.dtype() != kFloat16 && a.dtype() != kBFloat16, name,
              ": expected a float32, float64 or integer dtype, got ", a.dtype());
}

// Integer products (LibTorch computes them on the CPU; no BLAS does): a broadcast multiply and
// a sum over k, in the operands' dtype. a [.., m, k] @ b [.., k, n].
Tensor integer_matmul(const Tensor& a, const Tensor& b) {
  // LibTorch's CUDA has no integer GEMM ("addmm_cuda" not implemented for 'Long'): nor has ours.
  EMBER_CHECK(a.device().is_cpu(), "matmul: integer matrix products are CPU-only, as LibTorch's (",
              a.dtype(), " tensors on ", a.device(), "); convert to a floating dtype first");
  return (a.unsqueeze(-1) * b.unsqueeze(-3)).sum(-2).to(a.dtype());
}

void check_inner(const char* name, const Tensor& a, const Tensor& b, int64_t ka, int64_t kb) {
  EMBER_CHECK(ka == kb, name, ": shapes ", a.sizes(), " and ", b.sizes(), " cannot be multiplied (",
              ka, " != ", kb, ")");
}

// GemmKernels take matrices (the last two dims) with a unit stride in one dim and a leading
// stride covering the other, as BLAS does; transposed views qualify as they are. A size-1
// dim's stride is meaningless, so vectors get strides that allow one reading only (a
// contiguous [r, 1] has strides (1, 1), which a kernel could take for a column-major
// matrix with leading dim 1 < r). Other layouts (expanded, stepped) are copied.
// Operands here never have zero-size dims.
Tensor gemm_operand(const Tensor& t) {
  const int64_t nd = t.dim();
  const int64_t r = t.sizes()[nd - 2], c = t.sizes()[nd - 1];
  const int64_t sr = t.strides()[nd - 2], sc = t.strides()[nd - 1];
  int64_t want_r = sr, want_c = sc;
  bool ok;
  if (r == 1 && c == 1) {
    want_r = want_c = 1;
    ok = true;
  } else if (r == 1) {  // elements at j * sc: row-major (ld c) if sc == 1, else column-major
    want_r = sc == 1 ? c : 1;
    ok = sc >= 1;
  } else if (c == 1) {  // elements at i * sr: column-major (ld r) if sr == 1, else row-major
    want_c = sr == 1 ? r : 1;
    ok = sr >= 1;
  } else {
    ok = (sc == 1 && sr >= c) || (sr == 1 && sc >= r);
  }
  if (!ok) {
    Tensor copy = empty_on(t.sizes(), t.dtype(), t.device());
    copy.copy_(t);
    return gemm_operand(copy);  // contiguous: at most a restride of a vector remains
  }
  if (want_r == sr && want_c == sc) return t;
  DimVector strides(t.strides());
  strides[nd - 2] = want_r;
  strides[nd - 1] = want_c;
  return restride(t, t.sizes(), strides);
}

// The number of rows when all dims but the last fold into one (no -1: k may be 0).
int64_t rows_of(const Tensor& t) {
  int64_t rows = 1;
  for (int64_t d = 0; d + 1 < t.dim(); ++d) rows *= t.sizes()[d];
  return rows;
}

// out [m, n] = a [m, k] @ b [k, n]; shapes already checked.
Tensor mm_checked(const Tensor& a, const Tensor& b) {
  if (!is_floating_point(a.dtype())) return integer_matmul(a, b);
  const int64_t m = a.sizes()[0], k = a.sizes()[1], n = b.sizes()[1];
  const int64_t shape[2] = {m, n};
  Tensor out = empty_on(IntArrayRef(shape, 2), a.dtype(), a.device());
  if (out.numel() == 0) return out;
  const DeviceType dev = a.device().type();
  if (k == 0) {  // an empty sum: zeros, without asking the kernel about k = 0
    kernel<Op::fill>(dev)(out, 0);
    return out;
  }
  kernel<Op::addmm>(dev)(out, gemm_operand(a), gemm_operand(b), 0.0, 1.0);
  return out;
}

// out [B, m, n] = a [B, m, k] @ b [B, k, n]; shapes already checked. Batch strides may be 0.
Tensor bmm_checked(const Tensor& a, const Tensor& b) {
  if (!is_floating_point(a.dtype())) return integer_matmul(a, b);
  const int64_t B = a.sizes()[0], m = a.sizes()[1], k = a.sizes()[2], n = b.sizes()[2];
  const int64_t shape[3] = {B, m, n};
  Tensor out = empty_on(IntArrayRef(shape, 3), a.dtype(), a.device());
  if (out.numel() == 0) return out;
  const DeviceType dev = a.device().type();
  if (k == 0) {
    kernel<Op::fill>(dev)(out, 0);
    return out;
  }
  kernel<Op::baddbmm>(dev)(out, gemm_operand(a), gemm_operand(b), 0.0, 1.0);
  return out;
}

Tensor mm_impl(const char* name, const Tensor& a, const Tensor& b) {
  check_operands(name, a, b);
  EMBER_CHECK(a.dim() == 2 && b.dim() == 2, name, ": expected 2-D tensors, got ", a.sizes(),
              " and ", b.sizes());
  check_inner(name, a, b, a.sizes()[1], b.sizes()[0]);
  return mm_checked(a, b);
}

// matmul's batch dims (all but the last two; a 1-D operand has none) must broadcast.
void check_batch_broadcast(const Tensor& a, const Tensor& b) {
  const int64_t na = std::max<int64_t>(a.dim() - 2, 0), nb = std::max<int64_t>(b.dim() - 2, 0);
  for (int64_t i = 1; i <= std::min(na, nb); ++i) {
    const int64_t sa = a.sizes()[na - i], sb = b.sizes()[nb - i];
    EMBER_CHECK(sa == sb || sa == 1 || sb == 1, "matmul: shapes ", a.sizes(), " and ", b.sizes(),
                " cannot be multiplied (batch dims cannot be broadcast: ", sa, " vs ", sb, ")");
  }
}

}  // namespace

// Written with public ops only (mm, bmm, views): recorded, it builds the graph of
// those primitives, as PyTorch's composite matmul does.
Tensor matmul(const Tensor& a, const Tensor& b) {
  check_operands("matmul", a, b);
  const int64_t da = a.dim(), db = b.dim();
  EMBER_CHECK(da >= 1 && db >= 1, "matmul: both arguments need at least 1 dim, got ", a.sizes(),
              " and ", b.sizes());
  check_inner("matmul", a, b, a.sizes()[da - 1], db == 1 ? b.sizes()[0] : b.sizes()[db - 2]);
  check_batch_broadcast(a, b);
  if (da <= 2 && db <= 2) {
    Tensor a2 = da == 1 ? a.unsqueeze(0) : a;  // [1, k]
    Tensor b2 = db == 1 ? b.unsqueeze(1) : b;  // [k, 1]
    Tensor out = a2.mm(b2);
    if (da == 2 && db == 2) return out;
    DimVector shape;
    if (da == 2) shape.push_back(a.size(0));
    if (db == 2) shape.push_back(b.size(1));
    return out.reshape(shape);  // dot: 0-dim
  }
  if (da >= 3 && db <= 2) {                             // a's batch folds into its rows: one mm
    const int64_t flat2[2] = {rows_of(a), a.size(-1)};  // no -1: k may be 0
    Tensor b2 = db == 1 ? b.unsqueeze(1) : b;
    Tensor out = a.reshape(IntArrayRef(flat2, 2)).mm(b2);
    DimVector shape(a.sizes());
    shape.resize(da - 1);
    if (db == 2) shape.push_back(b.size(1));
    return out.reshape(shape);
  }
  Tensor a3 = da == 1 ? a.unsqueeze(0) : a;
  Tensor b3 = db == 1 ? b.unsqueeze(1) : b;
  const int64_t na = a3.dim(), nb = b3.dim();
  const int64_t m = a3.size(-2), k = a3.size(-1), n = b3.size(-1);
  const int64_t nbatch = std::max(na, nb) - 2;
  DimVector batch(nbatch, 1);
  int64_t B = 1;
  for (int64_t i = 0; i < nbatch; ++i) {
    const int64_t ia = i - (nbatch - (na - 2)), ib = i - (nbatch - (nb - 2));
    const int64_t sa = ia >= 0 ? a3.size(ia) : 1, sb = ib >= 0 ? b3.size(ib) : 1;
    batch[i] = sa == 1 ? sb : sa;  // broadcast checked above
    B *= batch[i];
  }
  DimVector ea(batch), eb(batch);
  ea.push_back(m);
  ea.push_back(k);
  eb.push_back(k);
  eb.push_back(n);
  const int64_t sa3[3] = {B, m, k}, sb3[3] = {B, k, n};
  Tensor out =
      a3.expand(ea).reshape(IntArrayRef(sa3, 3)).bmm(b3.expand(eb).reshape(IntArrayRef(sb3, 3)));
  DimVector shape(batch);
  if (da > 1) shape.push_back(m);
  if (db > 1) shape.push_back(n);
  return out.reshape(shape);
}

Tensor mm(const Tensor& a, const Tensor& b) {
  if (autograd::should_record(a, b)) return detail::recorded::mm(a, b);
  return mm_impl("mm", a, b);
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  if (autograd::should_record(a, b)) return detail::recorded::bmm(a, b);
  check_operands("bmm", a, b);
  EMBER_CHECK(a.dim() == 3 && b.dim() == 3, "bmm: expected 3-D tensors, got ", a.sizes(), " and ",
              b.sizes());
  EMBER_CHECK(a.sizes()[0] == b.sizes()[0], "bmm: batch sizes of ", a.sizes(), " and ", b.sizes(),
              " differ (", a.sizes()[0], " != ", b.sizes()[0], ")");
  check_inner("bmm", a, b, a.sizes()[2], b.sizes()[1]);
  return bmm_checked(a, b);
}

// out = beta * self + alpha * (mat1 @ mat2). beta == 0 ignores self's values (NaNs too).
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
             const Scalar& alpha) {
  if (autograd::should_record(self, mat1, mat2)) {
    return detail::recorded::addmm(self, mat1, mat2, beta, alpha);
  }
  check_operands("addmm", mat1, mat2);
  check_same_device("addmm", self, mat1);
  EMBER_CHECK(self.dtype() == mat1.dtype(), "addmm: expected self to have dtype ", mat1.dtype(),
              " (as mat1), got ", self.dtype());
  EMBER_CHECK(mat1.dim() == 2 && mat2.dim() == 2, "addmm: expected 2-D matrices, got ",
              mat1.sizes(), " and ", mat2.sizes());
  const int64_t m = mat1.sizes()[0], k = mat1.sizes()[1], n = mat2.sizes()[1];
  check_inner("addmm", mat1, mat2, k, mat2.sizes()[0]);
  const int64_t shape[2] = {m, n};
  const IntArrayRef out_shape(shape, 2);
  const int64_t ds = self.dim();
  bool fits = ds <= 2;
  for (int64_t i = 0; fits && i < ds; ++i) {
    const int64_t s = self.sizes()[ds - 1 - i];
    fits = s == 1 || s == shape[1 - i];
  }
  EMBER_CHECK(fits, "addmm: self of shape ", self.sizes(), " cannot be broadcast to ", out_shape);
  if (!is_floating_point(mat1.dtype())) {  // integers: no BLAS, a composite
    Tensor prod = integer_matmul(mat1, mat2);
    if (!alpha.equal(1)) prod = prod * alpha;
    if (beta.toDouble() == 0.0) return prod;
    return prod + (beta.equal(1) ? self : self * beta);
  }
  Tensor out = empty_on(out_shape, mat1.dtype(), mat1.device());
  if (out.numel() == 0) return out;
  const DeviceType dev = mat1.device().type();
  // linear's case, a bias row added once: one kernel that fuses it where the backend can.
  if (k > 0 && beta.equal(1) && ds >= 1 && self.sizes()[ds - 1] == n && self.numel() == n &&
      self.strides()[ds - 1] == 1) {
    kernel<Op::addmm_bias>(dev)(out, gemm_operand(mat1), gemm_operand(mat2),
                                ds == 1 ? self : self.view({n}), alpha);
    return out;
  }
  const bool beta_zero = beta.toDouble() == 0.0;
  if (!beta_zero) out.copy_(self.expand(out_shape));
  if (k == 0) {  // nothing to add: beta * self
    if (beta_zero) {
      kernel<Op::fill>(dev)(out, 0);
    } else if (beta.toDouble() != 1.0) {
      kernel<Op::mul_scalar>(dev)(out, out, beta);
    }
    return out;
  }
  kernel<Op::addmm>(dev)(out, gemm_operand(mat1), gemm_operand(mat2),
                         beta_zero ? Scalar(0.0) : beta, alpha);
  return out;
}

// input [*, in] @ weight [out, in]^T + bias [out]; 2-D and larger inputs become one addmm.
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  check_defined("linear", input, weight);
  EMBER_CHECK(weight.dim() == 2, "linear: weight must be 2-D, got ", weight.sizes());
  EMBER_CHECK(input.dim() >= 1, "linear: input must have at least 1 dim, got ", input.sizes());
  const int64_t in_features = input.sizes()[input.dim() - 1];
  EMBER_CHECK(in_features == weight.sizes()[1], "linear: input of shape ", input.sizes(),
              " does not match weight of shape ", weight.sizes(), " (", in_features,
              " != ", weight.sizes()[1], ")");
  check_operands("linear", input, weight);
  // Public ops only, so that recorded it is PyTorch's graph: AddmmBackward0 (MmBackward0
  // without bias) over TBackward0, reshapes around it for N-D input, matmul for 1-D input.
  if (input.dim() == 1) {
    Tensor out = matmul(input, weight.t());
    return bias.defined() ? out + bias : out;
  }
  const int64_t flat[2] = {rows_of(input), in_features};
  Tensor x = input.dim() == 2 ? input : input.reshape(IntArrayRef(flat, 2));
  Tensor out = bias.defined() ? addmm(bias, x, weight.t()) : x.mm(weight.t());
  if (input.dim() == 2) return out;
  DimVector shape(input.sizes());
  shape.back() = weight.sizes()[0];
  return out.reshape(shape);
}

// ---- Tensor methods ----
Tensor Tensor::matmul(const Tensor& other) const { return ember::matmul(*this, other); }
Tensor Tensor::mm(const Tensor& other) const { return ember::mm(*this, other); }
Tensor Tensor::bmm(const Tensor& other) const { return ember::bmm(*this, other); }
Tensor Tensor::addmm(const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                     const Scalar& alpha) const {
  return ember::addmm(*this, mat1, mat2, beta, alpha);
}

// ---- float32 matmul precision ----
namespace {
// 0 = "highest", 1 = "high", 2 = "medium"; atomic so that any thread may set it while
// others run products (a product sees either the old or the new setting).
std::atomic<int> g_float32_matmul_precision{0};
constexpr const char* kPrecisionNames[] = {"highest", "high", "medium"};
}  // namespace

void set_float32_matmul_precision(const std::string& precision) {
  for (int i = 0; i < 3; ++i) {
    if (precision == kPrecisionNames[i]) {
      g_float32_matmul_precision.store(i, std::memory_order_relaxed);
      return;
    }
  }
  EMBER_THROW("set_float32_matmul_precision: expected \"highest\", \"high\" or \"medium\", got \"",
              precision, "\"");
}

std::string get_float32_matmul_precision() {
  return kPrecisionNames[g_float32_matmul_precision.load(std::memory_order_relaxed)];
}

bool float32_matmul_allows_tf32() {
  return g_float32_matmul_precision.load(std::memory_order_relaxed) != 0;
}

}  // namespace ember
