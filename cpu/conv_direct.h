// The direct conv2d kernels behind cpu/conv.cpp, for few taps per output (a first layer's
// 1-channel 3x3: a GEMM of depth 9 spends more on packing than on products) or few outputs per
// group (depthwise): output columns accumulate in vector registers over the taps, read from
// zero-padded input planes (cpu/im2col.h's pad_plane). Width stride 1 only. Private to cpu/.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include <ember/cpu/conv_simd.h>
#include <ember/cpu/im2col.h>

namespace ember {
namespace cpu {
namespace direct {

// Output channels accumulated together, sharing each input load; with two vectors of output
// columns each, 8 independent accumulators cover the FMA latency.
constexpr int64_t kOutBlock = 4;

inline bool use_direct(const ConvGeometry& g) {
  return g.sw == 1 && !g.pointwise && (g.k <= 16 || g.og < 4);
}

// Scratch per thread: the group's cg padded planes [cg, hp, wp] (+ slack, which the last block
// of a row may read), then backward-weight's kOutBlock grad_out planes, rows padded to whole
// vectors.
template <class T>
int64_t padded_row(const ConvGeometry& g) {
  return (g.ow + kVecLanes<T> - 1) / kVecLanes<T> * kVecLanes<T>;
}
template <class T>
int64_t scratch_size(const ConvGeometry& g) {
  return g.cg * g.hp() * g.wp() + 2 * kVecLanes<T> + kOutBlock * g.oh * padded_row<T>(g);
}
template <class T>
void pad_planes(T* planes, const T* in, const ConvGeometry& g) {
  for (int64_t c = 0; c < g.cg; ++c) pad_plane(planes + c * g.hp() * g.wp(), in + c * g.hw(), g);
}

// Where tap t = (c, i, j) of output (0, 0) sits in the padded planes.
inline std::vector<int64_t> tap_offsets(const ConvGeometry& g) {
  std::vector<int64_t> off;
  off.reserve(static_cast<size_t>(g.k));
  for (int64_t c = 0; c < g.cg; ++c)
    for (int64_t i = 0; i < g.kh; ++i)
      for (int64_t j = 0; j < g.kw; ++j)
        off.push_back(c * g.hp() * g.wp() + i * g.dh * g.wp() + j * g.dw);
  return off;
}

// out [NB, OH, OW] (planes l apart) = NB output channels of one sample's group: each block of
// two vectors of output columns sums its taps in registers. Lanes past OW compute garbage (they
// read the next padded row or the slack) that is never stored.
template <class T, int NB>
void forward_block(T* out, const T* planes, const T* w, const T* bias, const int64_t* off,
                   const ConvGeometry& g) {
  constexpr int64_t VL = kVecLanes<T>;
  for (int64_t y = 0; y < g.oh; ++y) {
    const T* row = planes + y * g.sh * g.wp();
    for (int64_t x0 = 0; x0 < g.ow; x0 += 2 * VL) {
      V<T> acc[NB][2];
      for (int q = 0; q < NB; ++q) acc[q][0] = acc[q][1] = V<T>{} + (bias ? bias[q] : T(0));
      for (int64_t t = 0; t < g.k; ++t) {
        const T* s = row + off[t] + x0;
        const V<T> s0 = load(s), s1 = load(s + VL);
        for (int q = 0; q < NB; ++q) {
          const T wv = w[q * g.k + t];
          acc[q][0] += wv * s0;
          acc[q][1] += wv * s1;
        }
      }
      // A whole-block store may spill past the row into the plane's next rows, which are
      // written later; only a spill past the plane goes through a copy.
      const int64_t at = y * g.ow + x0;
      for (int q = 0; q < NB; ++q) {
        T* d = out + q * g.l + at;
        if (at + 2 * VL <= g.l) {
          store(d, acc[q][0]);
          store(d + VL, acc[q][1]);
        } else {
          T tmp[2 * VL];
          store(tmp, acc[q][0]);
          store(tmp + VL, acc[q][1]);
          std::memcpy(d, tmp, sizeof(T) * (g.l - at));
        }
      }
    }
  }
}

// grad_w [NO output channels (rows k apart), TB taps] += sum over one sample's plane of
// grad_out * the tap's input, an NO x TB block of accumulator vectors: each block of columns
// loads TB input and NO grad_out vectors for NO * TB FMAs. gyp holds the NO grad_out planes
// with rows padded by zeros to whole vectors (row stride owr, planes oh * owr apart); the last
// block of a row zeroes its input lanes past the row too, so that an inf or NaN read there
// cannot leak in (0 * inf).
template <class T, int NO, int TB>
void weight_block(T* gw, const T* gyp, int64_t owr, const T* planes, const int64_t* off,
                  const ConvGeometry& g) {
  constexpr int64_t VL = kVecLanes<T>;
  V<T> acc[NO][TB];
  for (int o = 0; o < NO; ++o)
    for (int t = 0; t < TB; ++t) acc[o][t] = V<T>{};
  const int64_t last = owr - VL, plane = g.oh * owr;
  const MaskV<T> mask = lanes_below<T>(last, g.ow);
  for (int64_t y = 0; y < g.oh; ++y) {
    const T* row = planes + y * g.sh * g.wp();
    const T* gr = gyp + y * owr;
    for (int64_t x0 = 0; x0 <= last; x0 += VL) {
      V<T> xt[TB];
      for (int t = 0; t < TB; ++t) xt[t] = load(row + off[t] + x0);
      if (x0 == last) {
        for (int t = 0; t < TB; ++t) xt[t] = as_float<T>(as_mask<T>(xt[t]) & mask);
      }
      for (int o = 0; o < NO; ++o) {
        const V<T> gv = load(gr + o * plane + x0);
        for (int t = 0; t < TB; ++t) acc[o][t] += gv * xt[t];
      }
    }
  }
  for (int o = 0; o < NO; ++o) {
    for (int t = 0; t < TB; ++t) {
      T sum = 0;
      for (int64_t u = 0; u < VL; ++u) sum += acc[o][t][u];
      gw[o * g.k + t] += sum;
    }
  }
}

// The forward of one sample's group out [og, OH, OW] from in [cg, H, W], w [og, K], bias [og]
// or null: the planes padded into `planes` (scratch_size), then kOutBlock channels at a time.
template <class T>
void forward(T* out, const T* in, const T* w, const T* bias, const int64_t* off, T* planes,
             const ConvGeometry& g) {
  pad_planes(planes, in, g);
  for (int64_t o0 = 0; o0 < g.og; o0 += kOutBlock) {
    T* d = out + o0 * g.l;
    const T* wo = w + o0 * g.k;
    const T* bo = bias ? bias + o0 : nullptr;
    switch (std::min(kOutBlock, g.og - o0)) {
      case 4:
        forward_block<T, 4>(d, planes, wo, bo, off, g);
        break;
      case 3:
        forward_block<T, 3>(d, planes, wo, bo, off, g);
        break;
      case 2:
        forward_block<T, 2>(d, planes, wo, bo, off, g);
        break;
      default:
        forward_block<T, 1>(d, planes, wo, bo, off, g);
        break;
    }
  }
}

// grad_w [NO, K] of NO output channels += their taps summed over one sample's planes gy
// [NO, OH, OW], the taps in even chunks of at most 3. gyp: scratch for the padded copy of gy.
template <class T, int NO>
void weight_channels(T* gw, const T* gy, T* gyp, const T* planes, const int64_t* off,
                     const ConvGeometry& g) {
  // Rows are copied a vector at a time, the last one masked (reading past the row into the
  // next, where that is still inside gy): no library call per row.
  constexpr int64_t VL = kVecLanes<T>;
  const int64_t owr = padded_row<T>(g), last = owr - VL, rows = NO * g.oh;
  const MaskV<T> mask = lanes_below<T>(last, g.ow);
  for (int64_t r = 0; r < rows; ++r) {
    T* d = gyp + r * owr;
    const T* s = gy + r * g.ow;
    if (r * g.ow + owr <= rows * g.ow) {
      for (int64_t x0 = 0; x0 < last; x0 += VL) store(d + x0, load(s + x0));
      store(d + last, as_mask<T>(load(s + last)) & mask);
    } else {
      for (int64_t x = 0; x < owr; ++x) d[x] = x < g.ow ? s[x] : T(0);
    }
  }
  const int64_t chunks = (g.k + 2) / 3, size = (g.k + chunks - 1) / chunks;
  for (int64_t t0 = 0; t0 < g.k; t0 += size) {
    switch (std::min(size, g.k - t0)) {
      case 3:
        weight_block<T, NO, 3>(gw + t0, gyp, owr, planes, off + t0, g);
        break;
      case 2:
        weight_block<T, NO, 2>(gw + t0, gyp, owr, planes, off + t0, g);
        break;
      default:
        weight_block<T, NO, 1>(gw + t0, gyp, owr, planes, off + t0, g);
        break;
    }
  }
}

// grad_w [og, K] of one sample's group += the sums of gy [og, OH, OW] against its input in
// [cg, H, W], through `scratch` (scratch_size).
template <class T>
void backward_weight(T* gw, const T* gy, const T* in, const int64_t* off, T* scratch,
                     const ConvGeometry& g) {
  pad_planes(scratch, in, g);
  T* gyp = scratch + g.cg * g.hp() * g.wp() + 2 * kVecLanes<T>;
  int64_t o = 0;
  for (; o + kOutBlock <= g.og; o += kOutBlock) {
    weight_channels<T, kOutBlock>(gw + o * g.k, gy + o * g.l, gyp, scratch, off, g);
  }
  for (; o < g.og; ++o) weight_channels<T, 1>(gw + o * g.k, gy + o * g.l, gyp, scratch, off, g);
}

}  // namespace direct
}  // namespace cpu
}  // namespace ember
