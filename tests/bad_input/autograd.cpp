// Bad-input suite, autograd: undefined tensors and gradients, mismatched grad_outputs, second
// backward passes, saved tensors changed in place, hooks and custom functions that return
// gradients of the wrong shape. Each case asserts ember::Error and the words of its message.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <cmath>

#include "bad_input.h"

using namespace ember;
using autograd::tensor_list;
using bad_input::expect_error;

namespace {

Tensor leaf(IntArrayRef sizes) { return randn(sizes, TensorOptions().requires_grad(true)); }

TEST(BadAutograd, BackwardOfUndefined) {
  expect_error([] { Tensor().backward(); }, {"backward", "undefined"});
}

TEST(BadAutograd, GradOfUndefined) {
  expect_error([] { (void)Tensor().grad(); }, {"grad", "undefined"});
}

TEST(BadAutograd, BackwardGradientOfOtherShape) {
  Tensor x = leaf({3});
  Tensor y = x * 2;
  expect_error([&] { y.backward(ones({1, 3})); }, {"Mismatch in shape", "[1, 3]", "[3]"});
}

TEST(BadAutograd, GradOfUndefinedOutput) {
  Tensor x = leaf({3});
  expect_error([&] { autograd::grad({Tensor()}, {x}); }, {"grad", "tensor 0 is undefined"});
}

TEST(BadAutograd, GradWithTooManyGradOutputs) {
  Tensor x = leaf({3});
  Tensor y = (x * x).sum();
  expect_error([&] { autograd::grad({y}, {x}, {ones({}), ones({})}); }, {"grad", "2", "1"});
}

TEST(BadAutograd, GradWithoutInputs) {
  Tensor x = leaf({3});
  Tensor y = x.sum();
  expect_error([&] { autograd::grad({y}, {}); }, {"grad", "no inputs"});
}

TEST(BadAutograd, BackwardInputsUndefined) {
  Tensor x = leaf({3});
  Tensor y = x.sum();
  expect_error([&] { autograd::backward({y}, {}, std::nullopt, false, {Tensor()}); },
               {"backward", "input 0"});
}

TEST(BadAutograd, SecondBackwardThroughExp) {
  Tensor x = leaf({3});
  Tensor y = x.exp().sum();
  y.backward();
  expect_error([&] { y.backward(); }, {"second time"});
}

TEST(BadAutograd, SavedOutputModifiedInPlace) {
  Tensor x = leaf({3});
  Tensor y = x.exp();  // exp saves its output
  y.add_(1);
  expect_error([&] { y.sum().backward(); }, {"modified by an inplace operation", "Exp"});
}

TEST(BadAutograd, NoGradGuardThenBackward) {
  Tensor x = leaf({3});
  Tensor y;
  {
    NoGradGuard no_grad;
    y = (x * 2).sum();
  }
  expect_error([&] { y.backward(); }, {"does not require grad"});
}

TEST(BadAutograd, HookReturnsWrongShape) {
  Tensor x = leaf({3});
  Tensor h = x * 2;
  h.register_hook([](const Tensor&) { return ones({5}); });
  expect_error([&] { h.sum().backward(); }, {"hook", "[5]", "[3]"});
}

TEST(BadAutograd, LeafHookReturnsWrongShape) {
  Tensor x = leaf({2, 2});
  x.register_hook([](const Tensor&) { return ones({3}); });
  expect_error([&] { (x * 3).sum().backward(); }, {"hook", "[3]", "[2, 2]"});
}

TEST(BadAutograd, RemoveHookUnknownHandle) {
  Tensor x = leaf({3});
  x.register_hook([](const Tensor& g) { return g; });
  expect_error([&] { x.remove_hook(12345); }, {"remove_hook", "12345"});
}

TEST(BadAutograd, RemoveHookWithoutHooks) {
  Tensor x = ones({3});
  expect_error([&] { x.remove_hook(0); }, {"remove_hook", "no hooks"});
}

TEST(BadAutograd, RetainGradWithoutRequiresGrad) {
  expect_error([] { ones({3}).retain_grad(); }, {"retain_grad", "requires_grad=false"});
}

TEST(BadAutograd, SetDataUndefined) {
  Tensor x = leaf({3});
  expect_error([&] { x.set_data(Tensor()); }, {"set_data", "defined"});
}

TEST(BadAutograd, SetDataIntegerIntoRequiresGrad) {
  Tensor x = leaf({3});
  expect_error([&] { x.set_data(zeros({3}, kInt64)); }, {"set_data", "int64"});
}

TEST(BadAutograd, GradcheckWithoutGradInputs) {
  Tensor x = randn({3}, kFloat64);
  expect_error([&] { autograd::gradcheck([](const tensor_list& v) { return v[0] * 2; }, {x}); },
               {"gradcheck", "no input requires grad"});
}

struct WrongShapeGrad : autograd::Function<WrongShapeGrad> {
  static Tensor forward(autograd::AutogradContext*, Tensor x) { return x * 2; }
  static tensor_list backward(autograd::AutogradContext*, tensor_list) { return {ones({5})}; }
};

TEST(BadAutograd, CustomFunctionGradientOfWrongShape) {
  Tensor x = leaf({3});
  expect_error([&] { WrongShapeGrad::apply(x).sum().backward(); },
               {"WrongShapeGrad", "invalid gradient", "[5]", "[3]"});
}

struct AsksForInput7 : autograd::Function<AsksForInput7> {
  static Tensor forward(autograd::AutogradContext*, Tensor x) { return x * 2; }
  static tensor_list backward(autograd::AutogradContext* ctx, tensor_list grads) {
    (void)ctx->needs_input_grad(7);
    return {grads[0] * 2};
  }
};

TEST(BadAutograd, CustomFunctionNeedsInputGradOutOfRange) {
  Tensor x = leaf({3});
  expect_error([&] { AsksForInput7::apply(x).sum().backward(); }, {"needs_input_grad", "7"});
}

struct ReadsSavedAsTensor : autograd::Function<ReadsSavedAsTensor> {
  static Tensor forward(autograd::AutogradContext* ctx, Tensor x) {
    ctx->saved_data["scale"] = 2.5;
    return x * 2.5;
  }
  static tensor_list backward(autograd::AutogradContext* ctx, tensor_list grads) {
    return {grads[0] * ctx->saved_data["scale"].toTensor()};
  }
};

TEST(BadAutograd, CustomFunctionSavedValueOfOtherKind) {
  Tensor x = leaf({3});
  expect_error([&] { ReadsSavedAsTensor::apply(x).sum().backward(); },
               {"IValue", "Tensor", "double"});
}

TEST(BadAutograd, CustomFunctionSavedInputModified) {
  struct SavesInput : autograd::Function<SavesInput> {
    static Tensor forward(autograd::AutogradContext* ctx, Tensor x) {
      ctx->save_for_backward({x});
      return x * x;
    }
    static tensor_list backward(autograd::AutogradContext* ctx, tensor_list grads) {
      return {grads[0] * 2 * ctx->get_saved_variables()[0]};
    }
  };
  Tensor x = leaf({3});
  Tensor h = x * 1;
  Tensor y = SavesInput::apply(h);
  h.mul_(3);
  expect_error([&] { y.sum().backward(); }, {"modified by an inplace operation"});
}

TEST(BadAutograd, InPlaceOnLeafRequiringGrad) {
  Tensor x = leaf({3});
  expect_error([&] { x.exp_(); }, {"exp_", "leaf"});
}

TEST(BadAutograd, BackwardTwiceThroughMatmul) {
  Tensor a = leaf({2, 3}), b = leaf({3, 2});
  Tensor y = matmul(a, b).sum();
  y.backward();
  expect_error([&] { y.backward(); }, {"second time"});
}

}  // namespace
