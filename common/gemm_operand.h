// A GEMM operand as both backends' GEMMs read it (cpu/gemm.cpp, cuda/gemm.cpp): the last two
// dims of a 2-d or 3-d tensor, which of them has the unit stride, the leading stride and the
// batch stride. core's gemm_operand() guarantees a unit stride in one dim and a leading stride
// covering the other (vectors arrive with strides that allow one reading only). Host code.
#pragma once

#include <algorithm>
#include <cstdint>

#include <ember/core/tensor.h>

namespace ember {
namespace common {

struct GemmOperand {
  int64_t rows, cols, ld, batch_stride;
  bool row_major;
};

inline GemmOperand describe_operand(const Tensor& t) {
  const int64_t nd = t.dim();
  GemmOperand op;
  op.rows = t.sizes()[nd - 2];
  op.cols = t.sizes()[nd - 1];
  const int64_t sr = t.strides()[nd - 2], sc = t.strides()[nd - 1];
  op.row_major = sc == 1 && (sr >= op.cols || op.rows == 1);
  // ld covers the contiguous extent even when that dim has one element (cuBLAS requires it).
  op.ld = op.row_major ? std::max<int64_t>(sr, op.cols) : std::max<int64_t>(sc, op.rows);
  op.batch_stride = nd == 3 ? t.strides()[0] : 0;
  return op;
}

}  // namespace common
}  // namespace ember
