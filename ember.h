// The umbrella header: everything public in ember.
// Users write `#include <ember/ember.h>` and link ember::ember.
#pragma once

#include <ember/autograd/autograd.h>
#include <ember/core/array_ref.h>
#include <ember/core/context.h>
#include <ember/core/device.h>
#include <ember/core/dtype.h>
#include <ember/core/error.h>
#include <ember/core/functions.h>
#include <ember/core/scalar.h>
#include <ember/core/tensor.h>
#include <ember/core/tensor_options.h>
#include <ember/cuda/api.h>
#include <ember/cuda/module.h>
#include <ember/data/data.h>
#include <ember/nn/nn.h>
#include <ember/optim/optim.h>
#include <ember/serialize/serialize.h>
