// ember::nn: modules, layers, functional ops, losses and init, as LibTorch's C++ frontend.
// Included by <ember/ember.h>.
#pragma once

#include <ember/nn/activation_ops.h>
#include <ember/nn/containers.h>
#include <ember/nn/enums.h>
#include <ember/nn/functional.h>
#include <ember/nn/functional_conv.h>
#include <ember/nn/holder.h>
#include <ember/nn/init.h>
#include <ember/nn/layer_ops.h>
#include <ember/nn/module.h>
#include <ember/nn/modules/activation.h>
#include <ember/nn/modules/batchnorm.h>
#include <ember/nn/modules/conv.h>
#include <ember/nn/modules/dropout.h>
#include <ember/nn/modules/dropout2d.h>
#include <ember/nn/modules/embedding.h>
#include <ember/nn/modules/groupnorm.h>
#include <ember/nn/modules/instancenorm.h>
#include <ember/nn/modules/linear.h>
#include <ember/nn/modules/normalization.h>
#include <ember/nn/modules/padding.h>
#include <ember/nn/modules/pooling.h>
#include <ember/nn/modules/upsampling.h>
#include <ember/nn/options.h>
#include <ember/nn/options_conv.h>
#include <ember/nn/options_norm.h>
#include <ember/nn/ordered_dict.h>
#include <ember/nn/clip_grad.h>
#include <ember/nn/functional_loss.h>
#include <ember/nn/loss.h>
