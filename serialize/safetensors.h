// The safetensors file format (https://github.com/huggingface/safetensors): the writer and the
// validating reader behind ember::save and ember::load_tensors. Private to the library (not
// installed); serialize/serialize.h is the public API.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/serialize/serialize.h>

namespace ember::safetensors {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

// Writes `tensors` (unique names, any device and strides) to a temporary file beside `path`,
// flushes it to disk and renames it over `path`. `op` starts error messages ("save").
void write_file(const char* op, const NamedTensors& tensors, const TensorMetadata& metadata,
                const std::string& path);

// Reads and validates a whole file; tensors come back on the CPU in the file's data order.
NamedTensors read_file(const char* op, const std::string& path, TensorMetadata* metadata);

}  // namespace ember::safetensors
