// ember::optim: optimizers, learning-rate schedulers, as LibTorch's torch::optim.
// Included by <ember/ember.h>.
#pragma once
