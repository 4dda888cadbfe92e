// ember::optim: optimizers, learning-rate schedulers, as LibTorch's torch::optim.
// Included by <ember/ember.h>.
#pragma once

#include <ember/optim/adagrad.h>
#include <ember/optim/adam.h>
#include <ember/optim/adamw.h>
#include <ember/optim/lbfgs.h>
#include <ember/optim/optimizer.h>
#include <ember/optim/rmsprop.h>
#include <ember/optim/schedulers.h>
#include <ember/optim/sgd.h>
#include <ember/optim/step_graph.h>
