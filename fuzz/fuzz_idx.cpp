// Fuzz target: the MNIST IDX reader (data::datasets::MNIST). Any input must load or throw
// ember::Error; any other exception, a crash or a sanitizer report is a finding.
#include <cstdio>
#include <filesystem>
#include <string>

#include <ember/data/datasets/mnist.h>

#include "fuzz_util.h"

// Input: a flags byte (bit 0: the test split instead of train; bits 1 and 2: name the images and
// labels files .gz; bit 3: no labels file), two bytes (little-endian) giving the length of the
// images file, the images file, then the labels file (the rest).
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using ember::data::datasets::MNIST;
  ember_fuzz::Bytes in(data, size);
  const uint8_t flags = in.u8();
  size_t image_len = in.u8();
  image_len |= static_cast<size_t>(in.u8()) << 8;
  if (image_len > in.rest_size()) image_len = in.rest_size();
  const uint8_t* images = in.rest();
  in.skip(image_len);
  const bool train = !(flags & 1);

  const std::string dir = ember_fuzz::scratch_dir() + "/idx";
  std::filesystem::create_directories(dir);
  const std::string split = train ? "train" : "t10k";
  const std::string image_name = dir + "/" + split + "-images-idx3-ubyte";
  const std::string label_name = dir + "/" + split + "-labels-idx1-ubyte";
  for (const char* split_name : {"train", "t10k"}) {
    for (const char* kind : {"-images-idx3-ubyte", "-labels-idx1-ubyte"}) {
      const std::string base = dir + "/" + split_name + kind;
      std::remove(base.c_str());
      std::remove((base + ".gz").c_str());
    }
  }
  ember_fuzz::write_file(image_name + (flags & 2 ? ".gz" : ""), images, image_len);
  if (!(flags & 8))
    ember_fuzz::write_file(label_name + (flags & 4 ? ".gz" : ""), in.rest(), in.rest_size());

  try {
    MNIST mnist(dir, train ? MNIST::Mode::kTrain : MNIST::Mode::kTest);
    const int64_t n = mnist.images().size(0);
    if (mnist.images().dim() != 4 || mnist.images().size(1) != 1 || mnist.images().size(2) != 28 ||
        mnist.images().size(3) != 28 || mnist.targets().dim() != 1 || mnist.targets().size(0) != n)
      ember_fuzz::finding("MNIST loaded tensors of the wrong shape");
    if (n > 0) {
      const auto example = mnist.get(static_cast<size_t>(n - 1));
      const float pixel_sum = example.data.sum().item<float>();
      if (!(pixel_sum >= 0.0f && pixel_sum <= 784.0f))
        ember_fuzz::finding("MNIST pixels outside [0, 1]");
      const int64_t label = example.target.item<int64_t>();
      if (label < 0 || label > 255) ember_fuzz::finding("MNIST label outside [0, 255]");
    }
    if (ember_fuzz::verbose()) std::fprintf(stderr, "  loaded %lld examples\n", (long long)n);
  } catch (const ember::Error& e) {
    // a refused file: expected
    if (ember_fuzz::verbose()) std::fprintf(stderr, "  refused: %s\n", e.what());
  }
  return 0;
}
