// The code of docs/tensors.md, compiled and run by ctest (docs.tensors_guide) so that every
// example in the guide builds and does what the guide says. Sections match the guide's.
#include <ember/ember.h>

#include <cmath>
#include <iostream>
#include <stdexcept>
#include <string>

namespace {

void expect(bool ok, const char* what) {
  if (!ok) throw std::logic_error(std::string("tensors guide: expected ") + what);
}

// ---- Creating tensors ----
void creating() {
  using namespace ember;
  Tensor a = zeros({2, 3});               // float32 on the CPU
  Tensor b = ones({2, 3}, kFloat64);      // a bare dtype works as options
  Tensor c = full({2, 2}, 7);             // int64: the dtype follows the value
  Tensor d = arange(0, 10, 2);            // [0, 2, 4, 6, 8], int64
  Tensor e = linspace(0.0, 1.0, 5);       // [0, 0.25, 0.5, 0.75, 1]
  Tensor f = eye(3);                      // 3x3 identity
  Tensor g = tensor({1.5f, 2.5f, 3.5f});  // from values; float32 from float
  Tensor h = zeros_like(b);               // same shape, dtype and device as b
  auto opts = TensorOptions().dtype(kFloat32).device(kCPU);
  Tensor i = empty({4}, opts);  // uninitialized

  manual_seed(42);                 // makes every random op repeatable
  Tensor r = rand({2, 2});         // uniform in [0, 1)
  Tensor n = randn({1000});        // standard normal
  Tensor k = randint(0, 10, {5});  // int64 in [0, 10)
  Tensor p = randperm(6);          // a permutation of 0..5

  float buffer[6] = {1, 2, 3, 4, 5, 6};
  Tensor w = from_blob(buffer, {2, 3});  // wraps memory without copying
  buffer[0] = 10;                        // ... so w sees the change

  expect(a.sizes() == IntArrayRef({2, 3}) && a.dtype() == kFloat32, "zeros shape/dtype");
  expect(b.dtype() == kFloat64 && c.dtype() == kInt64, "dtypes of ones/full");
  expect(d.numel() == 5 && d[4].item<int64_t>() == 8, "arange");
  expect(e[1].item<float>() == 0.25f && f.sum().item<float>() == 3, "linspace, eye");
  expect(g.dtype() == kFloat32 && h.dtype() == kFloat64 && i.numel() == 4, "tensor, *_like");
  expect(r.max().item<float>() < 1 && n.numel() == 1000, "rand, randn");
  expect(k.min().item<int64_t>() >= 0 && p.sum().item<int64_t>() == 15, "randint, randperm");
  expect(w[0][0].item<float>() == 10, "from_blob shares memory");
}

// ---- Random sampling ----
void sampling() {
  using namespace ember;
  manual_seed(0);
  Tensor coin = bernoulli(full({4}, 0.3));          // 0/1 of the input's dtype, 1 with p = 0.3
  Tensor mask = empty({2, 3}).bernoulli_(0.8);      // in place, any dtype; or bernoulli_(p_tensor)
  Tensor dice = empty({10}, kInt64).random_(1, 7);  // integers in [1, 7)
  Tensor big = empty({3}).random_();                // float32: integers in [0, 2^24]
  Tensor wait = empty({5}).exponential_(2.0);       // rate 2 (mean 0.5)
  Tensor trials = empty({5}).geometric_(0.25);      // 1, 2, ...: trials until the first success
  Tensor ln = empty({5}).log_normal_(0.0, 1.0);     // exp of a normal (mean 0, std 1)
  Tensor c = empty({5}).cauchy_(0.0, 1.0);          // median 0, scale 1
  Tensor idx = multinomial(tensor({0.2, 0.0, 0.8}), 6, /*replacement=*/true);  // never 1
  Tensor order = multinomial(tensor({1.0, 2.0, 3.0}), 3);  // without replacement: distinct

  expect(coin.dtype() == kFloat32 && mask.sizes() == IntArrayRef({2, 3}), "bernoulli");
  expect(dice.min().item<int64_t>() >= 1 && dice.max().item<int64_t>() <= 6, "random_(1, 7)");
  expect(big.max().item<float>() <= 16777216.0f, "random_()");
  expect(wait.min().item<float>() >= 0 && trials.min().item<float>() >= 1, "exponential_");
  expect(ln.min().item<float>() > 0 && c.numel() == 5, "log_normal_, cauchy_");
  expect(idx.dtype() == kInt64 && idx.eq(1).sum().item<int64_t>() == 0, "multinomial");
  expect(order.min().item<int64_t>() == 0 && order.max().item<int64_t>() == 2 &&
             order.sum().item<int64_t>() == 3,
         "multinomial without replacement: distinct");
}

// ---- Shapes, views and copies ----
void views() {
  using namespace ember;
  Tensor x = arange(12, kFloat32);                // [0, 1, ..., 11]
  Tensor m = x.view({3, 4});                      // a view: same storage, new shape
  Tensor t = m.t();                               // [4, 3], transposed strides, no copy
  Tensor row = m[1];                              // [4, 5, 6, 7]
  Tensor col = m.select(1, 2);                    // [2, 6, 10]
  Tensor part = m.slice(1, 0, 4, 2);              // columns 0 and 2
  Tensor flat = t.reshape({12});                  // t is not contiguous: reshape copies here
  auto pieces = x.chunk(3);                       // three views of 4 elements
  Tensor big = m.unsqueeze(0).expand({2, 3, 4});  // stride-0 broadcast view

  row.fill_(0);  // writes through the view into x
  expect(x[5].item<float>() == 0, "views share storage");
  expect(!t.is_contiguous() && t.contiguous().is_contiguous(), "contiguous()");
  expect(col.sizes() == IntArrayRef({3}) && part.size(1) == 2, "select, slice");
  expect(flat.numel() == 12 && pieces.size() == 3 && big.size(0) == 2, "reshape, chunk, expand");

  Tensor y = x.clone();  // an independent copy
  y.fill_(1);
  expect(x[0].item<float>() == 0, "clone copies");
  Tensor z = x.to(kInt64);  // converting copy
  expect(z.dtype() == kInt64, "to(dtype)");
}

// ---- More shape ops ----
void more_shape_ops() {
  using namespace ember;
  Tensor a = arange(6).reshape({2, 3});            // [[0, 1, 2], [3, 4, 5]]
  Tensor f = a.flip({-1});                         // [[2, 1, 0], [5, 4, 3]]
  Tensor r = a.roll(1);                            // no dims: rolls the flattened tensor
  Tensor lower = ones({3, 3}).tril();              // triu(1): above the diagonal
  Tensor d = diag(tensor({1, 2, 3}));              // 1-D -> matrix; 2-D -> a copy of the diagonal
  Tensor dg = arange(9).view({3, 3}).diagonal(1);  // a view: [1, 5]
  Tensor rep = tensor({1, 2}).repeat({2, 2});      // [[1, 2, 1, 2], [1, 2, 1, 2]]
  Tensor ri = arange(2).repeat_interleave(tensor({1, 3}));      // [0, 1, 1, 1]
  auto grid = meshgrid({arange(2), arange(3)}, "ij");           // two [2, 3] expanded views
  Tensor moved = zeros({2, 3, 4}).movedim(0, -1);               // [3, 4, 2], a view
  Tensor u = arange(12).reshape({2, 6}).unflatten(1, {3, -1});  // [2, 3, 2], a view
  auto parts = arange(6).split({1, 2, 3});       // sizes must add up to the dim, or it throws
  Tensor h = hstack({arange(2), arange(3)});     // [0, 1, 0, 1, 2]
  Tensor v = vstack({arange(3), arange(3, 6)});  // [2, 3]

  Tensor s = zeros({1, 3, 1});
  s.squeeze_();  // s is now [3]

  expect(f[0][0].item<int64_t>() == 2 && r[0][0].item<int64_t>() == 5, "flip, roll");
  expect(lower.sum().item<float>() == 6 && d.sum().item<int64_t>() == 6, "tril, diag");
  expect(dg.sizes() == IntArrayRef({2}) && dg[1].item<int64_t>() == 5, "diagonal");
  expect(rep.sizes() == IntArrayRef({2, 4}) && ri.sum().item<int64_t>() == 3, "repeat*");
  expect(grid[0].sizes() == IntArrayRef({2, 3}) && grid[1][1][2].item<int64_t>() == 2, "meshgrid");
  expect(moved.sizes() == IntArrayRef({3, 4, 2}) && u.size(2) == 2, "movedim, unflatten");
  expect(parts.size() == 3 && h.numel() == 5 && v.size(0) == 2, "split, stacks");
  expect(s.sizes() == IntArrayRef({3}), "squeeze_");
  bool threw = false;
  try {
    arange(6).split({2, 2});
  } catch (const Error&) {
    threw = true;
  }
  expect(threw, "split sizes that do not add up throw");
}

// ---- Math and broadcasting ----
void math() {
  using namespace ember;
  Tensor a = arange(6, kFloat32).view({2, 3});
  Tensor b = tensor({10.0f, 20.0f, 30.0f});
  Tensor c = a + b;            // [2, 3] + [3] broadcasts to [2, 3]
  Tensor d = (a * 2 - 1) / 4;  // tensor-scalar arithmetic
  Tensor e = exp(a).log();     // free functions and methods alike
  Tensor f = a.pow(2).sqrt();
  Tensor phi = (a / std::sqrt(2.0)).erf() * 0.5 + 0.5;  // the normal CDF
  Tensor mask = a > 2;                                  // bool tensor
  Tensor g = where(mask, a, zeros_like(a));
  Tensor h = a.masked_fill(mask, -1);
  Tensor i = clamp(a, 1, 4);
  Tensor k = arange(3) + 0.5;  // int64 tensor + float scalar -> float32
  a += 1;                      // in place
  a.mul_(2);

  expect(c[1][2].item<float>() == 35, "broadcast add");
  expect(d[0][0].item<float>() == -0.25f, "scalar math");
  expect(allclose(e, arange(6, kFloat32).view({2, 3}), 1e-5, 1e-6), "exp/log");
  expect(f[1][1].item<float>() == 4, "pow, sqrt");
  expect(std::abs(phi[0][1].item<float>() - 0.841345f) < 1e-5f, "erf");
  expect(g.sum().item<float>() == 12 && h.min().item<float>() == -1, "where, masked_fill");
  expect(i.max().item<float>() == 4 && k.dtype() == kFloat32, "clamp, promotion");
  expect(a[0][0].item<float>() == 2, "in-place ops");

  Tensor w = randn({4, 3}), v = randn({3, 5});
  Tensor p = matmul(w, v);                       // [4, 5]
  Tensor batched = matmul(randn({7, 4, 3}), v);  // [7, 4, 5]: v broadcasts over the batch
  Tensor lin = linear(randn({8, 3}), randn({2, 3}), zeros({2}));  // x W^T + b: [8, 2]
  expect(p.sizes() == IntArrayRef({4, 5}) && batched.size(0) == 7 && lin.size(1) == 2,
         "matmul, linear");
}

// ---- Reductions ----
void reductions() {
  using namespace ember;
  Tensor a = arange(6, kFloat32).view({2, 3});  // [[0, 1, 2], [3, 4, 5]]
  Tensor total = a.sum();                       // 0-dim tensor: 15
  Tensor rows = a.sum({1});                     // [3, 12]
  Tensor cols = a.mean({0}, /*keepdim=*/true);  // [[1.5, 2.5, 3.5]]
  auto [values, indices] = a.max(1);            // values [2, 5], indices [2, 2]
  Tensor best = a.argmax();                     // 5: index into the flattened tensor
  Tensor spread = a.std();                      // unbiased by default, as in PyTorch
  Tensor probs = softmax(a, 1);                 // each row sums to 1
  Tensor logp = log_softmax(a, 1);              // stable for large inputs

  expect(total.item<float>() == 15 && total.dim() == 0, "sum");
  expect(rows[1].item<float>() == 12 && cols.sizes() == IntArrayRef({1, 3}), "sum/mean dims");
  expect(values[1].item<float>() == 5 && indices[0].item<int64_t>() == 2, "max(dim)");
  expect(best.item<int64_t>() == 5 && spread.item<float>() > 1.87f, "argmax, std");
  expect(allclose(probs.sum({1}), ones({2})) && allclose(logp.exp(), probs), "softmax");
  expect((a > 4).any().item<bool>() && !(a > 5).any().item<bool>(), "any");
}

// ---- Indexing and joining ----
void indexing() {
  using namespace ember;
  Tensor a = arange(6, kFloat32).view({3, 2});
  Tensor idx = tensor({int64_t(2), int64_t(0)});
  Tensor picked = a.index_select(0, idx);                     // rows 2 and 0
  Tensor both = cat({a, a}, 0);                               // [6, 2]
  Tensor stacked = stack({a, a});                             // [2, 3, 2]
  Tensor hot = one_hot(tensor({int64_t(0), int64_t(2)}), 3);  // [[1, 0, 0], [0, 0, 1]]
  expect(picked[0][1].item<float>() == 5 && both.size(0) == 6, "index_select, cat");
  expect(stacked.dim() == 3 && hot.sum().item<int64_t>() == 2, "stack, one_hot");
}

// ---- Errors ----
void errors() {
  using namespace ember;
  try {
    matmul(zeros({2, 3}), zeros({4, 5}));
    expect(false, "an error");
  } catch (const Error& e) {
    // "matmul: shapes [2, 3] and [4, 5] cannot be multiplied (3 != 4)"-style text
    std::cout << "caught: " << e.what() << "\n";
  }
  bool threw = false;
  try {
    zeros({2, 3}) + zeros({4});
  } catch (const std::runtime_error&) {  // ember::Error is a std::runtime_error
    threw = true;
  }
  expect(threw, "broadcast error");
}

}  // namespace

int main() {
  creating();
  sampling();
  views();
  more_shape_ops();
  math();
  reductions();
  indexing();
  errors();
  std::cout << ember::arange(6, ember::kFloat32).view({2, 3}) << "\n";
  std::cout << "tensors guide: all examples passed\n";
  return 0;
}
