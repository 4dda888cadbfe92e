// ember::load_pt and load(module, "x.pt") on torch.save's files (tests/data/pt/, from
// tools/make_pt_fixtures.py): names, values, dtypes, views; hostile and damaged files refused.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <ember/ember.h>

#include "serialize_helpers.h"

namespace {

using namespace ember;
using serialize_test::expect_error;
using serialize_test::expect_identical;
using serialize_test::read_bytes;
using serialize_test::ScratchDir;
using serialize_test::write_bytes;

const std::string kPt = std::string(EMBER_TEST_DATA_DIR) + "/pt/";

std::set<std::string> keys_of(const std::map<std::string, Tensor>& m) {
  std::set<std::string> keys;
  for (const auto& item : m) keys.insert(item.first);
  return keys;
}

Tensor f32_range(int64_t n) { return arange(n, TensorOptions().dtype(kFloat32)); }

// The values tools/make_pt_fixtures.py gives the Linear(3, 4) + BatchNorm1d(4) state dict.
std::map<std::string, Tensor> linear_bn_expected() {
  std::map<std::string, Tensor> m;
  m["0.weight"] = f32_range(12).reshape({4, 3}) / 4 - 1;
  m["0.bias"] = f32_range(4) / 8;
  m["1.weight"] = f32_range(4) / 10 + 1;
  m["1.bias"] = -f32_range(4) / 10;
  m["1.running_mean"] = f32_range(4) / 100;
  m["1.running_var"] = f32_range(4) + 1;
  m["1.num_batches_tracked"] = scalar_tensor(7, kInt64);
  return m;
}

void expect_linear_bn(const std::map<std::string, Tensor>& loaded) {
  const auto expected = linear_bn_expected();
  ASSERT_EQ(keys_of(loaded), keys_of(expected));
  for (const auto& [name, tensor] : expected) expect_identical(loaded.at(name), tensor, name);
}

TEST(SerializePt, LoadsAStateDict) { expect_linear_bn(load_pt(kPt + "linear_bn.pt")); }

TEST(SerializePt, LoadsDeflatedEntries) { expect_linear_bn(load_pt(kPt + "deflated.pt")); }

// torch.save(..., pickle_protocol=4): MEMOIZE, FRAME, STACK_GLOBAL and SHORT_BINUNICODE.
TEST(SerializePt, LoadsPickleProtocol4) { expect_linear_bn(load_pt(kPt + "protocol4.pt")); }

TEST(SerializePt, LoadsIntoAModuleByTheFilesSignature) {
  ScratchDir dir;
  const std::string bytes = read_bytes(kPt + "linear_bn.pt");
  // The extension does not matter: .pt, .pth, anything.
  for (const std::string name : {"weights.pt", "weights.pth", "weights.bin"}) {
    write_bytes(dir.file(name), bytes);
    nn::Sequential seq(nn::Linear(3, 4), nn::BatchNorm1d(4));
    load(seq, dir.file(name));
    const auto state = seq->state_dict();
    const auto expected = linear_bn_expected();
    for (const auto& item : state) {
      expect_identical(item.value().detach(), expected.at(item.key()), name + ": " + item.key());
    }
    EXPECT_TRUE(seq->named_parameters()[0].value().requires_grad());

    // eval mode: y = (x W^T + b - mean) / sqrt(var + eps) * gamma + beta
    seq->eval();
    NoGradGuard no_grad;
    const Tensor x = f32_range(6).reshape({2, 3}) - 2;
    const Tensor y = x.matmul(expected.at("0.weight").t()) + expected.at("0.bias");
    const Tensor want = (y - expected.at("1.running_mean")) /
                            (expected.at("1.running_var") + 1e-5).sqrt() * expected.at("1.weight") +
                        expected.at("1.bias");
    EXPECT_LT((seq->forward(x) - want).abs().max().item<float>(), 1e-6f) << name;
  }
}

TEST(SerializePt, ModuleLoadIsStrict) {
  nn::Sequential seq(nn::Linear(3, 4));
  const Tensor before = seq->named_parameters()[0].value().detach().clone();
  expect_error([&] { load(seq, kPt + "linear_bn.pt"); },
               {"load: ", "linear_bn.pt", "Unexpected key(s)", "\"1.running_mean\""});
  expect_identical(seq->named_parameters()[0].value().detach(), before, "unchanged");

  nn::Sequential wide(nn::Linear(3, 5), nn::BatchNorm1d(5));
  expect_error([&] { load(wide, kPt + "linear_bn.pt"); }, {"linear_bn.pt", "size mismatch"});
}

TEST(SerializePt, ALoneTensorIsNamedEmpty) {
  const auto m = load_pt(kPt + "tensor.pt");
  ASSERT_EQ(keys_of(m), std::set<std::string>{""});
  expect_identical(m.at(""), f32_range(6).reshape({2, 3}), "tensor");
  expect_identical(load_pt(kPt + "parameter.pt").at(""), f32_range(4) - 1.5, "parameter");
}

TEST(SerializePt, ViewsOfOneStorageKeepTheirStridesAndShareIt) {
  const auto m = load_pt(kPt + "views.pt");
  const Tensor base = f32_range(12);
  const Tensor grid = base.view({3, 4});
  ASSERT_EQ(m.size(), 6u);
  expect_identical(m.at("base"), base, "base");
  expect_identical(m.at("transposed"), grid.t(), "transposed");
  expect_identical(m.at("tail"), base.slice(0, 4, 12), "tail");
  expect_identical(m.at("strided"), base.slice(0, 1, 12, 3), "strided");
  expect_identical(m.at("column"), grid.select(1, 2), "column");
  expect_identical(m.at("offset_block"), grid.slice(0, 1, 3).slice(1, 1, 3), "offset_block");

  // As torch.load gives them: the saved strides and offsets, in one shared storage.
  EXPECT_EQ(m.at("transposed").strides().vec(), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(m.at("strided").strides().vec(), (std::vector<int64_t>{3}));
  EXPECT_EQ(m.at("offset_block").storage_offset(), 5);
  const auto* start = static_cast<const float*>(m.at("base").data_ptr());
  EXPECT_EQ(static_cast<const float*>(m.at("tail").data_ptr()), start + 4);
  EXPECT_EQ(static_cast<const float*>(m.at("transposed").data_ptr()), start);
}

TEST(SerializePt, NestedContainersFlattenToDottedNames) {
  const auto m = load_pt(kPt + "nested.pt");
  // epoch, lr, name, nothing, flag and the 3 of "pair" are not tensors: skipped.
  EXPECT_EQ(keys_of(m), (std::set<std::string>{"model.fc.weight", "model.fc.bias", "layers.0",
                                               "layers.1.w", "pair.0", "by_int.0", "by_int.7"}));
  expect_identical(m.at("model.fc.weight"), f32_range(6).reshape({2, 3}), "weight");
  expect_identical(m.at("model.fc.bias"), ones({2}), "bias");
  expect_identical(m.at("layers.0"), full({2}, 5.0), "layers.0");
  expect_identical(m.at("layers.1.w"), arange(3, TensorOptions().dtype(kInt64)), "layers.1.w");
  expect_identical(m.at("pair.0"), zeros({1}), "pair.0");
  expect_identical(m.at("by_int.7"), full({1}, 2.0), "by_int.7");
}

TEST(SerializePt, EveryDtype) {
  const auto m = load_pt(kPt + "dtypes.pt");
  ASSERT_EQ(m.size(), 10u);
  expect_identical(m.at("i64"),
                   tensor<int64_t>({-(int64_t(1) << 40), 0, 7}, TensorOptions().dtype(kInt64)),
                   "i64");
  expect_identical(m.at("i32"), tensor<int32_t>({-5, INT32_MAX}, TensorOptions().dtype(kInt32)),
                   "i32");
  expect_identical(m.at("u8"), tensor<uint8_t>({0, 200, 255}, TensorOptions().dtype(kUInt8)), "u8");
  expect_identical(m.at("bool"), tensor<bool>({true, false, true}, TensorOptions().dtype(kBool)),
                   "bool");
  expect_identical(m.at("f64"),
                   tensor<double>({1.5, -0.25, 1e300}, TensorOptions().dtype(kFloat64)), "f64");
  std::vector<uint16_t> half_bits = {0x3e00, 0xc000};  // 1.5, -2.0
  expect_identical(m.at("f16"), from_blob(half_bits.data(), {2}, kFloat16).clone(), "f16");
  expect_identical(m.at("scalar"), scalar_tensor(3.5, kFloat64), "scalar");
  expect_identical(m.at("empty"), zeros({0, 3}), "empty");
  expect_identical(m.at("u8_300"),
                   arange(300, TensorOptions().dtype(kInt64)).remainder(256).to(kUInt8), "u8_300");
  expect_identical(m.at("wide_empty"), zeros({0, 70000}), "wide_empty");
}

TEST(SerializePt, StoragesSavedFromAGpuLoadToTheCpu) {
  const Tensor t = load_pt(kPt + "cuda_location.pt").at("");
  EXPECT_TRUE(t.is_cpu());
  expect_identical(t, f32_range(6).reshape({2, 3}), "cuda:0");
}

TEST(SerializePt, ByteOrder) {
  expect_identical(load_pt(kPt + "byteorder_little.pt").at(""), f32_range(6).reshape({2, 3}),
                   "little");
  expect_error([] { load_pt(kPt + "byteorder_big.pt"); }, {"byteorder_big.pt", "big-endian"});
}

TEST(SerializePt, RefusesOtherFormats) {
  expect_error([] { load_pt(kPt + "legacy.pt"); },
               {"load_pt: ", "legacy.pt", "legacy format", "PyTorch < 1.6"});
  nn::Sequential seq(nn::Linear(3, 4), nn::BatchNorm1d(4));
  expect_error([&] { load(seq, kPt + "legacy.pt"); }, {"load: ", "legacy.pt", "legacy format"});
  // A safetensors file is not a .pt file, and the other way round.
  const std::string st = std::string(EMBER_TEST_DATA_DIR) + "/safetensors_dtypes.safetensors";
  expect_error([&] { load_pt(st); }, {"safetensors_dtypes.safetensors", "zip"});
  expect_error([] { load_tensors(kPt + "tensor.pt"); }, {"tensor.pt"});
  expect_error([] { load_pt(kPt + "torchscript.pt"); }, {"torchscript.pt", "TorchScript"});
  expect_error([] { load_pt(kPt + "no_such_file.pt"); }, {"no_such_file.pt", "cannot open"});
}

TEST(SerializePt, RefusesGlobalsThatAreNotTensors) {
  expect_error([] { load_pt(kPt + "os_system.pt"); },
               {"load_pt: ", "os_system.pt", "global 'os.system' is not allowed"});
  expect_error([] { load_pt(kPt + "builtins_eval.pt"); },
               {"builtins_eval.pt", "global 'builtins.eval' is not allowed"});
  expect_error([] { load_pt(kPt + "counter.pt"); },
               {"counter.pt", "global 'collections.Counter' is not allowed"});
  expect_error([] { load_pt(kPt + "int8.pt"); }, {"int8.pt", "torch.CharStorage", "int8"});
}

TEST(SerializePt, RefusesDamagedContents) {
  expect_error([] { load_pt(kPt + "view_outside_storage.pt"); },
               {"view_outside_storage.pt", "reaches outside its storage", "of 6 elements"});
  expect_error([] { load_pt(kPt + "huge_numel.pt"); },
               {"huge_numel.pt", "storage '0'", "4611686018427387904 elements"});
  expect_error([] { load_pt(kPt + "missing_storage.pt"); },
               {"missing_storage.pt", "no entry 'missing_storage/data/0'"});
  expect_error([] { load_pt(kPt + "cycle.pt"); }, {"cycle.pt", "nest more than"});
  expect_error([] { load_pt(kPt + "bad_bool.pt"); }, {"bad_bool.pt", "not a bool"});
  expect_error([] { load_pt(kPt + "zip_bomb.pt"); }, {"zip_bomb.pt", "zip bomb", "2147483647"});
}

// Runs load_pt on bytes written to a scratch file: it either loads or throws ember::Error naming
// the file, and never anything else. Returns whether it loaded.
bool loads_or_throws_cleanly(const ScratchDir& dir, const std::string& bytes,
                             const std::string& what) {
  const std::string path = dir.file("damaged.pt");
  write_bytes(path, bytes);
  try {
    load_pt(path);
    return true;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << what << ": " << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": not an ember::Error: " << e.what();
  }
  return false;
}

// Where damage is tried: every byte of the first local header and the central directory at
// the ends of the file, every 3rd byte of data.pkl after the first header, every 16th of the
// tensor data (whose bytes only the CRC checks). File operations are slow on some machines, so
// the test tries a sample of positions rather than all of them.
std::vector<size_t> damage_points(size_t size) {
  std::vector<size_t> points;
  for (size_t i = 0; i < size; ++i) {
    if (i < 100 || i + 300 >= size || (i < 800 && i % 3 == 0) || i % 16 == 0) points.push_back(i);
  }
  return points;
}

TEST(SerializePt, TruncatedFilesThrowCleanly) {
  ScratchDir dir;
  for (const char* name : {"linear_bn.pt", "deflated.pt"}) {
    const std::string bytes = read_bytes(kPt + name);
    for (size_t cut : damage_points(bytes.size())) {
      EXPECT_FALSE(loads_or_throws_cleanly(dir, bytes.substr(0, cut),
                                           std::string(name) + " cut at " + std::to_string(cut)))
          << name << " cut at " << cut;
    }
  }
}

TEST(SerializePt, FlippedBytesNeverCrash) {
  ScratchDir dir;
  for (const char* name : {"linear_bn.pt", "deflated.pt", "nested.pt"}) {
    const std::string bytes = read_bytes(kPt + name);
    size_t loaded = 0, tried = 0;
    for (size_t i : damage_points(bytes.size())) {
      for (unsigned char mask : {0xff, 0x01}) {
        if (mask == 0x01 && i % 4 != 0) continue;
        std::string damaged = bytes;
        damaged[i] = static_cast<char>(damaged[i] ^ mask);
        ++tried;
        loaded +=
            loads_or_throws_cleanly(dir, damaged, std::string(name) + " byte " + std::to_string(i));
      }
    }
    // Flips in padding, timestamps and other unchecked fields load; anything in a checked
    // field (the CRC covers every entry's bytes) does not.
    EXPECT_LT(loaded, tried) << name;
  }
  // Each byte of a tensor's data is covered by the CRC: the damaged value never loads.
  const std::string bytes = read_bytes(kPt + "tensor.pt");
  const std::string one_f32("\x00\x00\x80\x3f", 4);  // 1.0f, element 1 of arange(6)
  const size_t at = bytes.find(one_f32);
  ASSERT_NE(at, std::string::npos);
  std::string damaged = bytes;
  damaged[at + 3] = '\x40';
  write_bytes(dir.file("damaged.pt"), damaged);
  expect_error([&] { load_pt(dir.file("damaged.pt")); }, {"damaged.pt", "CRC-32 mismatch"});
}

}  // namespace
