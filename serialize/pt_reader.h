// PyTorch's .pt/.pth files (torch.save's zip format) and LibTorch's torch::save archives read
// into flat name -> tensor maps: the reader behind ember::load_pt and ember::load(module, "x.pt").
// Private to the library.
#pragma once

#include <map>
#include <string>

#include <ember/core/tensor.h>

namespace ember::pt {

// Whether the file starts as a .pt file does: a zip archive ("PK\3\4"), or the pickled magic
// number of PyTorch's legacy format, which read_file refuses with an error that says so. False
// for a safetensors file and for a file that cannot be read (its reader then reports why).
bool has_pt_signature(const std::string& path);

// Reads the file; errors start "<op>: <path>: ". A LibTorch module, tensor or vector archive
// gives its state dict's names ("0.weight", "encoder.fc.bias"; "0", "1" for tensors); an
// optimizer archive gives ember's optimizer state dict ("state.<i>.<name>",
// "param_groups.<g>.<option>", "param_groups.<g>.params").
std::map<std::string, Tensor> read_file(const char* op, const std::string& path);

}  // namespace ember::pt
