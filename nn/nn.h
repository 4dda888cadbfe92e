// ember::nn: modules, layers, functional ops, losses and init, as LibTorch's C++ frontend.
// Included by <ember/ember.h>.
#pragma once
