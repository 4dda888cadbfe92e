// Convolution geometry and the im2col / col2im copies behind the CPU conv2d kernels
// (cpu/conv.cpp): one sample's group of input planes becomes a [Cg * KH * KW, OH * OW] matrix
// of columns, so that a convolution is one GEMM with the weight. Private to cpu/.
#pragma once

#include <algorithm>
#include <cstdint>

#include <ember/core/dispatch.h>
#include <ember/cpu/conv_simd.h>

namespace ember {
namespace cpu {

struct ConvGeometry {
  int64_t n, c, h, w;  // input (grad_input) sizes
  int64_t o, oh, ow;   // output (grad_out) sizes
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
  int64_t groups, cg, og;  // groups, input and output channels per group
  int64_t k;               // cg * kh * kw: the GEMM depth of the forward
  int64_t l;               // oh * ow: the columns
  bool pointwise;          // 1x1, stride 1, no padding: the input planes are the columns

  // input [N, C, H, W], out [N, O, OH, OW], weight [O, C / groups, KH, KW]
  ConvGeometry(IntArrayRef input, IntArrayRef out, IntArrayRef weight, const ConvArgs& a)
      : n(input[0]),
        c(input[1]),
        h(input[2]),
        w(input[3]),
        o(out[1]),
        oh(out[2]),
        ow(out[3]),
        kh(weight[2]),
        kw(weight[3]),
        sh(a.stride[0]),
        sw(a.stride[1]),
        ph(a.padding[0]),
        pw(a.padding[1]),
        dh(a.dilation[0]),
        dw(a.dilation[1]),
        groups(a.groups),
        cg(input[1] / a.groups),
        og(out[1] / a.groups),
        k(cg * kh * kw),
        l(oh * ow),
        pointwise(kh == 1 && kw == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0 && oh == h &&
                  ow == w) {}

  int64_t hw() const { return h * w; }
  // The zero-padded input plane im2col reads from: every tap lands inside it.
  int64_t hp() const { return h + 2 * ph; }
  int64_t wp() const { return w + 2 * pw; }
  // Scratch one thread needs: the columns and one padded plane, each with kSlack to spare
  // (col2im reads up to (kw - 1) dw + kSlack past the columns: into the plane).
  int64_t scratch_size() const { return k * l + hp() * wp() + 2 * kSlack; }
  // Row copies of width-1 strides move whole kSlack-element blocks: they may read and write
  // up to kSlack - 1 elements past a row (the next row, or the buffers' slack).
  static constexpr int64_t kSlack = 8;
};

// dst[0, n) = src[0, n) in whole blocks of kSlack elements (fixed-size copies the compiler
// turns into vector moves), so up to kSlack - 1 elements past n are read and written too.
template <class T>
inline void copy_blocks(T* dst, const T* src, int64_t n) {
  constexpr int64_t B = ConvGeometry::kSlack;
  for (int64_t x = 0; x < n; x += B) {
    T block[B];
    for (int64_t t = 0; t < B; ++t) block[t] = src[x + t];
    for (int64_t t = 0; t < B; ++t) dst[x + t] = block[t];
  }
}

// Rows [0, rows) of width n from src (row stride ss) to dst (row stride ds), in order, in whole
// kSlack blocks: reads and writes up to kSlack - 1 elements past each row (the next row, which
// is written after it, or slack). Short rows (a few blocks, the common case) get a loop of
// fixed-size copies: the per-row overhead of a general loop would cost more than the row.
template <int NB, class T>
inline void copy_rows_fixed(T* dst, int64_t ds, const T* src, int64_t ss, int64_t rows) {
  constexpr int64_t B = NB * ConvGeometry::kSlack;
  for (int64_t r = 0; r < rows; ++r, dst += ds, src += ss) {
    T block[B];
    for (int64_t t = 0; t < B; ++t) block[t] = src[t];
    for (int64_t t = 0; t < B; ++t) dst[t] = block[t];
  }
}
template <class T>
inline void copy_rows_spill(T* dst, int64_t ds, const T* src, int64_t ss, int64_t rows, int64_t n) {
  switch ((n + ConvGeometry::kSlack - 1) / ConvGeometry::kSlack) {
    case 1:
      return copy_rows_fixed<1>(dst, ds, src, ss, rows);
    case 2:
      return copy_rows_fixed<2>(dst, ds, src, ss, rows);
    case 3:
      return copy_rows_fixed<3>(dst, ds, src, ss, rows);
    case 4:
      return copy_rows_fixed<4>(dst, ds, src, ss, rows);
    default:
      for (int64_t r = 0; r < rows; ++r) copy_blocks(dst + r * ds, src + r * ss, n);
  }
}
// The same for rows that are not all ours to overrun: block copies only while a block's reads
// and writes stay inside the rows' span (up to the end of the last row), exact copies after.
template <class T>
inline void copy_rows(T* dst, int64_t ds, const T* src, int64_t ss, int64_t rows, int64_t n) {
  if (rows <= 0) return;
  const int64_t blocks =
      (n + ConvGeometry::kSlack - 1) / ConvGeometry::kSlack * ConvGeometry::kSlack;
  // row r may go by blocks when r * stride + blocks <= (rows - 1) * stride + n, both strides
  int64_t fast = rows;
  for (const int64_t stride : {ss, ds}) {
    const int64_t room = (rows - 1) * stride + n - blocks;  // r * stride <= room
    fast = std::min(fast, room < 0 ? 0 : (stride > 0 ? room / stride + 1 : rows));
  }
  copy_rows_spill(dst, ds, src, ss, fast, n);
  for (int64_t r = fast; r < rows; ++r) {
    T* d = dst + r * ds;
    const T* s = src + r * ss;
    for (int64_t x = 0; x < n; ++x) d[x] = s[x];
  }
}

// plane [hp, wp] (+ kSlack) = in [H, W] surrounded by ph rows and pw columns of zeros. The
// rows' block copies spill into the padding, which is written after them.
template <class T>
void pad_plane(T* plane, const T* in, const ConvGeometry& g) {
  const int64_t wp = g.wp();
  copy_rows(plane + g.ph * wp + g.pw, wp, in, g.w, g.h, g.w);
  std::fill(plane, plane + g.ph * wp + g.pw, T(0));  // top rows, first left padding
  for (int64_t y = 0; y + 1 < g.h; ++y) {  // right padding of row y, left padding of y + 1
    T* gap = plane + (g.ph + y) * wp + g.pw + g.w;
    for (int64_t x = 0; x < 2 * g.pw; ++x) gap[x] = T(0);
  }
  std::fill(plane + (g.ph + g.h) * wp - g.pw, plane + g.hp() * wp, T(0));  // last right, bottom
}

// col [cg * kh * kw, oh * ow] (+ kSlack) from in [cg, H, W]: taps outside the input are 0.
// Each channel is first copied into the padded plane `plane` (hp * wp + kSlack), so the row
// copies need no bounds; rows are written in order, so a block copy's spill past a row is
// rewritten by the next one.
template <class T>
void im2col(T* col, T* plane, const T* in, const ConvGeometry& g) {
  const int64_t wp = g.wp();
  for (int64_t c = 0; c < g.cg; ++c) {
    pad_plane(plane, in + c * g.hw(), g);
    for (int64_t i = 0; i < g.kh; ++i) {
      for (int64_t j = 0; j < g.kw; ++j, col += g.l) {
        const T* src = plane + i * g.dh * wp + j * g.dw;
        if (g.sw == 1) {
          copy_rows_spill(col, g.ow, src, g.sh * wp, g.oh, g.ow);
          continue;
        }
        for (int64_t y = 0; y < g.oh; ++y) {
          const T* s = src + y * g.sh * wp;
          T* d = col + y * g.ow;
          for (int64_t x = 0; x < g.ow; ++x) d[x] = s[x * g.sw];
        }
      }
    }
  }
}

constexpr int64_t kMaxTaps = 8, kMaxVectors = 8;

// col2im's rows of one (channel, kernel row) at width stride 1: padded row y (of `plane`, which
// starts at the kernel row's offset) += the kw column rows of ci, tap j's masked to the lanes
// it covers. NV vectors per padded row (or nv, when NV is only a bound). The row's last vector
// reaches past the row: those lanes get only masked-off (0) terms, so they are stored back as
// they were.
template <class T, int NV>
void col2im_rows(T* plane, const T* ci, const MaskV<T> (*masks)[kMaxVectors], const ConvGeometry& g,
                 int64_t nv = NV) {
  constexpr int64_t VL = kVecLanes<T>;
  const int64_t wp = g.wp();
  for (int64_t y = 0; y < g.oh; ++y) {
    T* prow = plane + y * g.sh * wp;
    V<T> acc[NV] = {};
    for (int v = 0; v < NV; ++v) {
      if (v < nv) acc[v] = load(prow + v * VL);
    }
    for (int64_t j = 0; j < g.kw; ++j) {
      const T* s = ci + j * g.l + y * g.ow - j * g.dw;
      for (int v = 0; v < NV; ++v) {
        if (v < nv) acc[v] += as_float<T>(as_mask<T>(load(s + v * VL)) & masks[j][v]);
      }
    }
    for (int v = 0; v < NV; ++v) {
      if (v < nv) store(prow + v * VL, acc[v]);
    }
  }
}

// in [cg, H, W] = the columns of col [cg * kh * kw, oh * ow] summed at their taps (the
// transpose of im2col), through the padded plane `plane` (hp * wp + kSlack); input positions
// no tap reaches get 0.
template <class T>
void col2im(T* in, T* plane, const T* col, const ConvGeometry& g) {
  const int64_t wp = g.wp();
  // Width stride 1: each padded row gets its kw taps' column rows added in registers, a vector
  // of the row at a time; tap j's row covers lanes [j dw, j dw + OW) of it (masks[j][v]), the
  // rest of what its load reads is masked off. Column rows are read from j dw before their
  // start, so the first tap of the first row must not reach before col: l >= dw.
  constexpr int64_t VL = kVecLanes<T>;
  const int64_t nv = (wp + VL - 1) / VL;
  const bool masked = g.sw == 1 && g.l >= g.dw && g.kw <= kMaxTaps && nv <= kMaxVectors;
  MaskV<T> masks[kMaxTaps][kMaxVectors] = {};
  if (masked) {
    for (int64_t j = 0; j < g.kw; ++j) {
      for (int64_t v = 0; v < nv; ++v)
        masks[j][v] =
            lanes_below<T>(v * VL - j * g.dw, g.ow) & ~lanes_below<T>(v * VL - j * g.dw, 0);
    }
  }
  for (int64_t c = 0; c < g.cg; ++c) {
    // Vector stores, up to a vector past the plane (its slack): cheaper than a memset call.
    for (int64_t x = 0; x < g.hp() * wp; x += VL) store(plane + x, V<T>{});
    const T* cc = col + c * g.kh * g.kw * g.l;
    for (int64_t i = 0; i < g.kh; ++i) {
      const T* ci = cc + i * g.kw * g.l;
      T* pi = plane + i * g.dh * wp;
      if (masked) {
        switch (nv) {
          case 1:
            col2im_rows<T, 1>(pi, ci, masks, g);
            break;
          case 2:
            col2im_rows<T, 2>(pi, ci, masks, g);
            break;
          case 3:
            col2im_rows<T, 3>(pi, ci, masks, g);
            break;
          case 4:
            col2im_rows<T, 4>(pi, ci, masks, g);
            break;
          default:
            col2im_rows<T, kMaxVectors>(pi, ci, masks, g, nv);
            break;
        }
        continue;
      }
      for (int64_t y = 0; y < g.oh; ++y) {
        T* prow = pi + y * g.sh * wp;
        for (int64_t j = 0; j < g.kw; ++j) {
          T* d = prow + j * g.dw;
          const T* s = ci + j * g.l + y * g.ow;
          for (int64_t x = 0; x < g.ow; ++x) d[x * g.sw] += s[x];
        }
      }
    }
    copy_rows(in + c * g.hw(), g.w, plane + g.ph * wp + g.pw, wp, g.h, g.w);
  }
}

}  // namespace cpu
}  // namespace ember
