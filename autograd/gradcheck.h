// gradcheck / gradgradcheck: analytic gradients against float64 central differences.
#pragma once
#include <ember/autograd/node.h>
