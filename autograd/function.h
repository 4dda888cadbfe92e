// Custom autograd functions, as in LibTorch: struct MyFn : Function<MyFn> with static
// forward(AutogradContext*, args...) and backward(AutogradContext*, tensor_list).
#pragma once
#include <ember/autograd/node.h>
