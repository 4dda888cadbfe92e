// Custom autograd functions, as in LibTorch: struct MyFn : Function<MyFn> with static
// forward(AutogradContext*, args...) and backward(AutogradContext*, tensor_list), called
// as MyFn::apply(args...). The context saves tensors (version-checked) and other values.
#pragma once

#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include <ember/autograd/node.h>
#include <ember/core/grad_mode.h>

namespace ember::autograd {

// A value kept in ctx->saved_data: none, bool, int, double, string, int list or Tensor.
class IValue {
 public:
  IValue() = default;
  IValue(bool v) : v_(v) {}                             // NOLINT
  IValue(int v) : v_(static_cast<int64_t>(v)) {}        // NOLINT
  IValue(int64_t v) : v_(v) {}                          // NOLINT
  IValue(double v) : v_(v) {}                           // NOLINT
  IValue(std::string v) : v_(std::move(v)) {}           // NOLINT
  IValue(const char* v) : v_(std::string(v)) {}         // NOLINT
  IValue(std::vector<int64_t> v) : v_(std::move(v)) {}  // NOLINT
  IValue(IntArrayRef v) : v_(v.vec()) {}                // NOLINT
  IValue(Tensor v) : v_(std::move(v)) {}                // NOLINT

  bool isNone() const { return v_.index() == 0; }
  bool isBool() const { return std::holds_alternative<bool>(v_); }
  bool isInt() const { return std::holds_alternative<int64_t>(v_); }
  bool isDouble() const { return std::holds_alternative<double>(v_); }
  bool isString() const { return std::holds_alternative<std::string>(v_); }
  bool isIntList() const { return std::holds_alternative<std::vector<int64_t>>(v_); }
  bool isTensor() const { return std::holds_alternative<Tensor>(v_); }

  bool toBool() const;
  int64_t toInt() const;
  double toDouble() const;  // ints convert
  const std::string& toStringRef() const;
  std::vector<int64_t> toIntVector() const;
  Tensor toTensor() const;

 private:
  const char* kind() const;
  std::variant<std::monostate, bool, int64_t, double, std::string, std::vector<int64_t>, Tensor> v_;
};

class CustomFunctionNode;

struct AutogradContext {
  // Values for backward, by name: ctx->saved_data["scale"] = 2.0; ...toDouble().
  std::unordered_map<std::string, IValue> saved_data;

  // Tensors for backward (inputs or outputs of forward); version-checked when read.
  void save_for_backward(tensor_list to_save);
  tensor_list get_saved_variables() const;
  // Inputs that forward modified in place (and returns): they take the node's history.
  void mark_dirty(const tensor_list& inputs);
  // Outputs that get no gradient (indices, masks).
  void mark_non_differentiable(const tensor_list& outputs);
  // With false, backward receives undefined tensors for outputs that got no gradient.
  void set_materialize_grads(bool value) { materialize_grads_ = value; }
  // Whether input i of forward (counting every argument) needs a gradient.
  bool needs_input_grad(size_t index) const;

 private:
  friend class CustomFunctionNode;
  tensor_list to_save_;
  std::vector<SavedVariable> saved_;
  std::vector<std::shared_ptr<TensorImpl>> dirty_;
  std::vector<std::shared_ptr<TensorImpl>> non_differentiable_;
  bool materialize_grads_ = true;
  CustomFunctionNode* node_ = nullptr;
};

// The node a custom function records; the typed part (calling T::backward) is CppNode<T>.
class CustomFunctionNode : public Node {
 public:
  explicit CustomFunctionNode(const std::type_info& type);
  std::string name() const override { return name_; }
  const char* forward_op() const override { return name_.c_str(); }
  tensor_list apply(tensor_list&& grads) override;
  void release_variables() override;

  AutogradContext ctx;

  // Sets up edges for the forward arguments (is_tensor[i]: argument i is a Tensor).
  void begin(const tensor_list& tensor_args, std::vector<bool> is_tensor);
  // Gives the outputs their history, then turns ctx's to-save list into saved variables.
  void finish(const tensor_list& tensor_args, tensor_list& outputs, bool record);

 protected:
  virtual tensor_list call_backward(tensor_list grads) = 0;

 private:
  friend struct AutogradContext;
  bool materialize_grads() const override { return ctx.materialize_grads_; }
  std::string name_;
  std::vector<bool> is_tensor_arg_;
};

template <class T>
class CppNode final : public CustomFunctionNode {
 public:
  CppNode() : CustomFunctionNode(typeid(T)) {}

 protected:
  tensor_list call_backward(tensor_list grads) override {
    return T::backward(&ctx, std::move(grads));
  }
};

namespace detail {
template <class A>
void collect_arg(const A& a, tensor_list& tensors, std::vector<bool>& is_tensor) {
  if constexpr (std::is_same_v<std::decay_t<A>, Tensor>) {
    tensors.push_back(a);
    is_tensor.push_back(true);
  } else {
    is_tensor.push_back(false);
  }
}
inline tensor_list as_list(const Tensor& t) { return {t}; }
inline tensor_list as_list(const tensor_list& t) { return t; }
template <class Out>
Out from_list(tensor_list&& l) {
  if constexpr (std::is_same_v<Out, Tensor>) {
    return std::move(l[0]);
  } else {
    return std::move(l);
  }
}
}  // namespace detail

template <class T>
struct Function {
  template <typename X = T, typename... Args>
  static auto apply(Args&&... args) {
    auto node = std::make_shared<CppNode<X>>();
    tensor_list tensors;
    std::vector<bool> is_tensor;
    (detail::collect_arg(args, tensors, is_tensor), ...);
    const bool record = should_record_list(tensors);
    node->begin(tensors, std::move(is_tensor));
    using Out = std::decay_t<decltype(X::forward(&node->ctx, std::forward<Args>(args)...))>;
    static_assert(std::is_same_v<Out, Tensor> || std::is_same_v<Out, tensor_list>,
                  "forward must return a Tensor or a tensor_list");
    tensor_list outs;
    {
      AutoGradMode off(false);
      outs = detail::as_list(X::forward(&node->ctx, std::forward<Args>(args)...));
    }
    node->finish(tensors, outs, record);
    return detail::from_list<Out>(std::move(outs));
  }
};

}  // namespace ember::autograd
