// The code of docs/autograd.md, compiled and run by ctest (docs.autograd_guide) so that every
// example in the guide builds and does what the guide says. Sections match the guide's.
#include <ember/ember.h>

#include <cmath>
#include <iostream>
#include <stdexcept>
#include <string>

namespace {

void expect(bool ok, const char* what) {
  if (!ok) throw std::logic_error(std::string("autograd guide: expected ") + what);
}

// ---- Gradients of a scalar ----
void basics() {
  using namespace ember;
  Tensor w = randn({3}, requires_grad());  // a leaf that collects gradients
  Tensor x = tensor({1.0f, 2.0f, 3.0f});
  Tensor loss = (w * x).sum();
  loss.backward();                              // w.grad() == x
  std::cout << loss.grad_fn()->name() << "\n";  // SumBackward0

  (w * x).sum().backward();  // gradients accumulate: w.grad() == 2 * x
  w.mutable_grad().zero_();  // what optimizers' zero_grad() does
  expect(allclose(w.grad(), zeros({3})), "zeroed grad");
  expect(loss.grad_fn()->name() == "SumBackward0", "node name");
  expect(w.is_leaf() && !loss.is_leaf(), "leaf flags");
}

// ---- Grad mode ----
void grad_mode() {
  using namespace ember;
  Tensor w = randn({3}, requires_grad());
  {
    NoGradGuard no_grad;  // nothing is recorded here
    Tensor y = w * 2;
    expect(!y.requires_grad(), "no history under NoGradGuard");
    w.sub_(0.1 * w);  // in-place updates of leaves are allowed here
  }
  Tensor d = w.detach();  // same values, no history
  expect(!d.requires_grad(), "detach");
}

// ---- Higher derivatives and autograd::grad ----
void higher() {
  using namespace ember;
  Tensor x = tensor({0.5, 1.0, 2.0}, kFloat64).requires_grad_();
  Tensor y = (x * x * x).sum();
  auto g = autograd::grad({y}, {x}, {}, /*retain_graph=*/std::nullopt, /*create_graph=*/true);
  auto gg = autograd::grad({g[0].sum()}, {x});  // d/dx of 3x^2 summed: 6x
  expect(allclose(g[0], x.detach() * x.detach() * 3), "first derivative");
  expect(allclose(gg[0], x.detach() * 6), "second derivative");
}

// ---- Hooks ----
void hooks() {
  using namespace ember;
  Tensor w = randn({3}, requires_grad());
  Tensor h = w * w;
  h.retain_grad();                                           // keep a non-leaf's gradient
  h.register_hook([](const Tensor& g) { return g * 0.5; });  // rescale it on the way back
  h.sum().backward();
  expect(allclose(h.grad(), full({3}, 0.5f)), "retained, hooked gradient");
  expect(allclose(w.grad(), w.detach()), "gradient through the hook");
}

// ---- Custom functions ----
struct Clip : ember::autograd::Function<Clip> {
  static ember::Tensor forward(ember::autograd::AutogradContext* ctx, ember::Tensor x,
                               double limit) {
    ctx->save_for_backward({x});
    ctx->saved_data["limit"] = limit;
    return ember::clamp(x, -limit, limit);
  }
  static ember::autograd::tensor_list backward(ember::autograd::AutogradContext* ctx,
                                               ember::autograd::tensor_list grads) {
    ember::Tensor x = ctx->get_saved_variables()[0];
    double limit = ctx->saved_data["limit"].toDouble();
    ember::Tensor inside = ember::le(ember::abs(x), limit);
    return {ember::where(inside, grads[0], ember::zeros_like(grads[0])), ember::Tensor()};
  }
};

void custom() {
  using namespace ember;
  Tensor x = tensor({-3.0, 0.5, 2.0}, kFloat64).requires_grad_();
  Tensor y = Clip::apply(x, 1.0);
  y.sum().backward();
  expect(allclose(x.grad(), tensor({0.0, 1.0, 0.0}, kFloat64)), "custom backward");
  bool ok =
      autograd::gradcheck([](const autograd::tensor_list& v) { return Clip::apply(v[0], 1.0); },
                          {tensor({-3.0, 0.5, 2.0}, kFloat64).requires_grad_()});
  expect(ok, "gradcheck of a custom function");
}

// ---- Debugging ----
void debugging() {
  using namespace ember;
  Tensor w = randn({2, 3}, requires_grad());
  Tensor loss = (w * 2).sum();
  std::string dot = autograd::to_dot(loss);  // Graphviz text: `dot -Tpng`
  expect(dot.find("MulBackward") != std::string::npos, "dot names nodes");

  autograd::DetectAnomalyGuard anomaly;  // NaN/Inf in backward throws, naming the node
  Tensor z = tensor({0.0}, kFloat64).requires_grad_();
  try {
    sqrt(z).sum().backward();  // d sqrt(z)/dz at 0 is inf
    expect(false, "anomaly error");
  } catch (const Error& e) {
    expect(std::string(e.what()).find("SqrtBackward0") != std::string::npos, "anomaly names node");
  }
}

}  // namespace

int main() {
  basics();
  grad_mode();
  higher();
  hooks();
  custom();
  debugging();
  std::cout << "autograd guide: all examples ran\n";
  return 0;
}
