// Bad-input suite, serialize: safetensors and PyTorch .pt files that are empty, truncated,
// garbage or lying (written to a scratch folder), loads into modules and tensors that don't
// match, saves that can't succeed. Each case asserts ember::Error and the file it names.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "bad_input.h"

using namespace ember;
using bad_input::expect_error;
using bad_input::Scratch;

namespace {

const std::string kData = EMBER_TEST_DATA_DIR;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A safetensors file: 8-byte little-endian header length, the header, the data.
std::string safetensors(const std::string& header, const std::string& data) {
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(uint64_t(header.size()) >> (8 * i));
  return bytes + header + data;
}

// ---- safetensors ----

TEST(BadSerialize, SafetensorsHeaderLengthAllOnes) {
  Scratch dir;
  // 2^64 - 1: 8 + length wraps around to 7
  const std::string path = dir.write("x.safetensors", std::string(8, '\xff') + "{}");
  expect_error([&] { load_tensors(path); }, {"load_tensors", path, "18446744073709551615"});
}

TEST(BadSerialize, SafetensorsZeroHeaderLength) {
  Scratch dir;
  const std::string path = dir.write("x.safetensors", std::string(8, '\0'));
  expect_error([&] { load_tensors(path); }, {"load_tensors", path, "'{'"});
}

TEST(BadSerialize, SafetensorsNegativeOffsets) {
  Scratch dir;
  const std::string path = dir.write(
      "x.safetensors",
      safetensors(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[-8,0]}})", std::string(8, 0)));
  expect_error([&] { load_tensors(path); }, {path, "tensor 'w'", "data_offsets"});
}

TEST(BadSerialize, SafetensorsOffsetBeyondUint64) {
  Scratch dir;
  const std::string path = dir.write(
      "x.safetensors", safetensors(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,1e30]}})",
                                   std::string(8, 0)));
  expect_error([&] { load_tensors(path); }, {path, "tensor 'w'", "data_offsets"});
}

TEST(BadSerialize, SafetensorsOffsetsWrapAround) {
  Scratch dir;
  // end - begin = 8 bytes modulo 2^64, but the begin is past the end of the data
  const std::string path = dir.write(
      "x.safetensors",
      safetensors(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[18446744073709551612,4]}})",
                  std::string(8, 0)));
  expect_error([&] { load_tensors(path); }, {path, "tensor 'w'"});
}

TEST(BadSerialize, SafetensorsLowercaseDtype) {
  Scratch dir;
  const std::string path = dir.write(
      "x.safetensors",
      safetensors(R"({"w":{"dtype":"f32","shape":[2],"data_offsets":[0,8]}})", std::string(8, 0)));
  expect_error([&] { load_tensors(path); }, {path, "tensor 'w'", "'f32'"});
}

TEST(BadSerialize, SafetensorsTrailingGarbageInHeader) {
  Scratch dir;
  const std::string path = dir.write("x.safetensors", safetensors("{} trailing", ""));
  expect_error([&] { load_tensors(path); }, {path, "not valid JSON"});
}

TEST(BadSerialize, SafetensorsDeeplyNestedMetadata) {
  Scratch dir;
  const int depth = 100000;
  const std::string nested = std::string(depth, '[') + std::string(depth, ']');
  const std::string path =
      dir.write("x.safetensors", safetensors(R"({"__metadata__":{"a":)" + nested + "}}", ""));
  expect_error([&] { load_tensors(path); }, {path, "metadata 'a'"});
}

TEST(BadSerialize, SafetensorsNulBytesInHeader) {
  Scratch dir;
  const std::string path = dir.write("x.safetensors", safetensors(std::string("{\0\0\0", 4), ""));
  expect_error([&] { load_tensors(path); }, {path, "JSON"});
}

TEST(BadSerialize, SafetensorsPathIsAFolder) {
  Scratch dir;
  std::filesystem::create_directory(dir.file("folder.safetensors"));
  expect_error([&] { load_tensors(dir.file("folder.safetensors")); },
               {"folder.safetensors", "not a regular file"});
}

TEST(BadSerialize, SafetensorsCutInsideTheHeaderLength) {
  Scratch dir;
  const std::string good = read_file(kData + "/safetensors_dtypes.safetensors");
  const std::string path = dir.write("cut.safetensors", good.substr(0, 5));
  expect_error([&] { load_tensors(path); }, {path, "5 bytes"});
}

TEST(BadSerialize, SaveEmptyName) {
  Scratch dir;
  const std::string path = dir.file("x.safetensors");
  expect_error([&] { save({{"", ones({2})}}, path); }, {"save", path, "empty"});
}

TEST(BadSerialize, SaveIntoAPathUnderAFile) {
  Scratch dir;
  const std::string file = dir.write("plain.txt", "x");
  expect_error([&] { save(ones({2}), file + "/t.safetensors"); },
               {"save", "plain.txt/t.safetensors"});
}

TEST(BadSerialize, LoadOneTensorFromAFileOfTwo) {
  Scratch dir;
  const std::string path = dir.file("two.safetensors");
  save({{"a", ones({2})}, {"b", zeros({3})}}, path);
  Tensor t;
  expect_error([&] { load(t, path); }, {"load", path, "one tensor", "2"});
}

TEST(BadSerialize, LoadListWithAGap) {
  Scratch dir;
  const std::string path = dir.file("gap.safetensors");
  save({{"0", ones({2})}, {"2", zeros({3})}}, path);
  std::vector<Tensor> list;
  expect_error([&] { load(list, path); }, {"load", path, "'2'"});
}

TEST(BadSerialize, LoadModuleOfOtherShapes) {
  Scratch dir;
  const std::string path = dir.file("conv.safetensors");
  save(nn::Conv2d(3, 8, 3), path);
  nn::Conv2d other(3, 8, 5);
  expect_error([&] { load(other, path); },
               {"load", path, "size mismatch for weight", "[8, 3, 3, 3]", "[8, 3, 5, 5]"});
}

TEST(BadSerialize, LoadModuleFromATextFile) {
  Scratch dir;
  const std::string path = dir.write("notes.txt", "these are not weights\n");
  nn::Linear fc(2, 2);
  expect_error([&] { load(fc, path); }, {"load", path});
}

// ---- PyTorch .pt ----

TEST(BadSerialize, PtEmptyFile) {
  Scratch dir;
  const std::string path = dir.write("empty.pt", "");
  expect_error([&] { load_pt(path); }, {"load_pt", path});
}

TEST(BadSerialize, PtZipMagicThenGarbage) {
  Scratch dir;
  const std::string path =
      dir.write("garbage.pt", std::string("PK\x03\x04", 4) + std::string(200, '\x5a'));
  expect_error([&] { load_pt(path); }, {"load_pt", path});
}

TEST(BadSerialize, PtOnlyTheEndOfCentralDirectory) {
  Scratch dir;
  const std::string good = read_file(kData + "/pt/tensor.pt");
  const std::string path = dir.write("tail.pt", good.substr(good.size() - 22));
  expect_error([&] { load_pt(path); }, {"load_pt", path});
}

TEST(BadSerialize, PtWithoutDataPkl) {
  Scratch dir;
  std::string bytes = read_file(kData + "/pt/tensor.pt");
  // rename every "data.pkl" entry (local header and central directory) to "data.pkx"
  size_t renamed = 0;
  for (size_t at = bytes.find("data.pkl"); at != std::string::npos;
       at = bytes.find("data.pkl", at + 1)) {
    bytes[at + 7] = 'x';
    ++renamed;
  }
  ASSERT_GE(renamed, 2u);
  const std::string path = dir.write("no_pickle.pt", bytes);
  expect_error([&] { load_pt(path); }, {"load_pt", path, "data.pkl"});
}

TEST(BadSerialize, PtTruncatedToHalf) {
  Scratch dir;
  const std::string good = read_file(kData + "/pt/linear_bn.pt");
  const std::string path = dir.write("half.pt", good.substr(0, good.size() / 2));
  expect_error([&] { load_pt(path); }, {"load_pt", path});
}

TEST(BadSerialize, PtIntoMismatchingModule) {
  nn::Sequential seq(nn::Linear(5, 5), nn::BatchNorm1d(5));
  const std::string path = kData + "/pt/linear_bn.pt";
  expect_error([&] { load(seq, path); }, {"load", "linear_bn.pt", "size mismatch"});
}

TEST(BadSerialize, PtLoadedAsSafetensors) {
  const std::string path = kData + "/pt/linear_bn.pt";
  expect_error([&] { load_tensors(path); }, {"load_tensors", "linear_bn.pt"});
}

TEST(BadSerialize, CheckpointMissingFile) {
  Scratch dir;
  const std::string path = dir.file("missing.ckpt");
  nn::Linear fc(2, 2);
  Checkpoint ckpt;
  ckpt.add("model", fc);
  expect_error([&] { ckpt.load(path); }, {path});
}

}  // namespace
