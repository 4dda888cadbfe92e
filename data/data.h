// ember::data: datasets (MNIST IDX), transforms, samplers and the data loader, as
// LibTorch's torch::data. Included by <ember/ember.h>.
#pragma once

#include <ember/data/dataloader.h>
#include <ember/data/dataset.h>
#include <ember/data/datasets/mnist.h>
#include <ember/data/example.h>
#include <ember/data/samplers.h>
#include <ember/data/transforms.h>
