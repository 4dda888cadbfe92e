// The code of docs/serialize.md, compiled and run by ctest (docs.serialize_guide): saves and
// loads a module and a tensor map as safetensors files in a temporary folder, shows the strict
// load's error and that a failed save keeps the old file, and checks every result.
#include <ember/ember.h>

#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

namespace {

void expect(bool ok, const char* what) {
  if (!ok) throw std::logic_error(std::string("serialize guide: expected ") + what);
}

using namespace ember;

struct Net : nn::Module {
  Net() : fc1(4, 8), fc2(8, 2) {
    register_module("fc1", fc1);
    register_module("fc2", fc2);
    register_buffer("calls", zeros({1}, kLong));
  }
  Tensor forward(Tensor x) { return fc2(relu(fc1(x))); }
  nn::Linear fc1, fc2;
};

}  // namespace

int main() {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("ember_serialize_guide_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string net_path = (dir / "net.safetensors").string();
  const std::string map_path = (dir / "t.safetensors").string();

  // ---- Modules ----
  manual_seed(0);
  auto net = std::make_shared<Net>();
  ember::save(net, net_path);  // fc1.weight, fc1.bias, fc2.weight, fc2.bias, calls

  auto fresh = std::make_shared<Net>();
  ember::load(fresh, net_path);  // copies in place, keeping fresh's device and dtype
  Tensor x = randn({3, 4});
  expect(equal(fresh->forward(x), net->forward(x)), "the loaded net to compute the same output");

  // ---- Tensor maps ----
  std::map<std::string, Tensor> m{{"weights", randn({2, 3})},
                                  {"steps", tensor<int64_t>({10, 20}, TensorOptions())},
                                  {"mask", randn({3, 2}).t() > 0}};  // any strides, any device
  ember::save(m, map_path, /*metadata=*/{{"format", "pt"}});
  TensorMetadata metadata;
  std::map<std::string, Tensor> loaded = ember::load_tensors(map_path, &metadata);
  expect(equal(loaded.at("weights"), m.at("weights")), "the same weights");
  expect(equal(loaded.at("mask"), m.at("mask")), "the same mask");
  expect(metadata.at("format") == "pt", "the metadata back");

  // ---- Errors ----
  // Strict loading: a file from another architecture names every missing/unexpected key.
  nn::Sequential other(nn::Linear(4, 8));
  try {
    ember::load(other, net_path);
    expect(false, "load to throw");
  } catch (const ember::Error& e) {
    std::cout << e.what() << "\n";
    // load: .../net.safetensors: Error(s) in loading state_dict for Sequential:
    //   Missing key(s) in state_dict: "0.weight", "0.bias".
    //   Unexpected key(s) in state_dict: "calls", "fc1.bias", ...
  }
  // A failed save leaves the file that was there.
  try {
    ember::save(std::map<std::string, Tensor>{{"oops", Tensor()}}, map_path);
    expect(false, "save to throw");
  } catch (const ember::Error& e) {
    std::cout << e.what() << "\n";  // save: .../t.safetensors: tensor 'oops' is undefined
  }
  expect(ember::load_tensors(map_path).size() == 3, "the old file intact");

  fs::remove_all(dir);
  std::cout << "serialize guide: ok\n";
  return 0;
}
