// Eigen views for the GEMMs of cpu/gemm.cpp and cpu/conv.cpp: strided operands mapped in place
// as row- or column-major matrices (a transposed view costs nothing), and the choice among the
// four layout combinations. Included by baseline-ISA files only (issue 12: no Eigen or inline
// templates shared with an ISA-specific kernel such as cpu/sgemm_avx512.cpp).
#pragma once

#include <Eigen/Core>

namespace ember {
namespace cpu {

template <class T>
using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T>
using ColMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
template <class M>
using ConstMap = Eigen::Map<const M, Eigen::Unaligned, Eigen::OuterStride<>>;
template <class T>
using OutMap = Eigen::Map<RowMajor<T>, Eigen::Unaligned, Eigen::OuterStride<>>;

template <class M>
struct Layout {
  using type = M;
};

// Calls body(Layout<MA>{}, Layout<MB>{}) with MA and MB RowMajor<T> or ColMajor<T> as the
// operands a and b are row- or column-major: four Eigen instantiations, one per combination.
template <class T, class Body>
void with_layouts(bool a_row_major, bool b_row_major, const Body& body) {
  using Row = Layout<RowMajor<T>>;
  using Col = Layout<ColMajor<T>>;
  if (a_row_major) {
    b_row_major ? body(Row{}, Row{}) : body(Row{}, Col{});
  } else {
    b_row_major ? body(Col{}, Row{}) : body(Col{}, Col{});
  }
}

}  // namespace cpu
}  // namespace ember
