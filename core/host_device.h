// EMBER_HOST_DEVICE: marks a function that both the host compilers and nvcc's device side
// compile (the Philox generator here, the shared kernel math in common/). Empty for g++.
#pragma once

#if defined(__CUDACC__)
#define EMBER_HOST_DEVICE __host__ __device__
#else
#define EMBER_HOST_DEVICE
#endif
