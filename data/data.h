// ember::data: datasets (MNIST IDX), transforms, samplers and the data loader, as
// LibTorch's torch::data. Included by <ember/ember.h>.
#pragma once
