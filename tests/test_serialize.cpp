// ember::save / load / load_tensors: round trips of every dtype and of modules, the exact bytes
// ember writes (checked against the safetensors spec and against files written by PyTorch's
// safetensors.torch.save_file, tests/data/safetensors_*.safetensors from
// tools/make_safetensors_reference.py), and loading those PyTorch files by name.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
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

const std::string kData = EMBER_TEST_DATA_DIR;

Tensor half_bits(std::vector<uint16_t> bits, IntArrayRef sizes, ScalarType dtype) {
  return from_blob(bits.data(), sizes, dtype).clone();
}

// One of every dtype, a 0-dim, an empty and two non-contiguous tensors.
std::map<std::string, Tensor> every_kind() {
  manual_seed(7);
  std::map<std::string, Tensor> m;
  m["f32"] = randn({2, 3});
  m["f64"] = randn({4}, kFloat64);
  m["f16"] = half_bits({0x3e00, 0xc000, 0x7c00, 0x0001}, {2, 2}, kFloat16);
  m["bf16"] = half_bits({0x3fc0, 0xff80, 0x7fc0}, {3}, kBFloat16);
  m["i64"] = tensor<int64_t>({-(int64_t(1) << 62), 5, 0}, TensorOptions());
  m["i32"] = tensor<int32_t>({INT32_MIN, INT32_MAX}, TensorOptions());
  m["u8"] = tensor<uint8_t>({0, 200, 255}, TensorOptions());
  m["bool"] = tensor<bool>({true, false, true}, TensorOptions());
  m["scalar"] = scalar_tensor(2.5, kFloat64);
  m["empty"] = zeros({0, 3});
  m["transposed"] = randn({3, 4}).t();
  m["strided"] = arange(0, 20, TensorOptions().dtype(kInt64)).slice(0, 1, 20, 3);
  return m;
}

TEST(Serialize, RoundTripEveryDtypeShapeAndLayout) {
  ScratchDir dir;
  const auto original = every_kind();
  ASSERT_FALSE(original.at("transposed").is_contiguous());
  ASSERT_FALSE(original.at("strided").is_contiguous());
  save(original, dir.file("t.safetensors"));
  const auto loaded = load_tensors(dir.file("t.safetensors"));
  ASSERT_EQ(loaded.size(), original.size());
  for (const auto& [name, t] : original) {
    ASSERT_TRUE(loaded.count(name)) << name;
    const Tensor& l = loaded.at(name);
    expect_identical(l, t, name);
    EXPECT_TRUE(l.is_cpu() && l.is_contiguous()) << name;
  }
  EXPECT_EQ(loaded.at("scalar").dim(), 0);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"t.safetensors"});
}

// Files with >= 1 MiB of tensor data load by mapping the file copy-on-write (the mapping shows in
// /proc/self/maps): the values are the file's, writes to a loaded tensor never reach the file,
// and loaded tensors outlive the file being replaced (save renames) or removed. A tensor whose
// offset does not suit its dtype (after a 3-byte bool tensor) is read into fresh memory
// instead: the same values either way.
TEST(Serialize, LargeFilesLoadMappedCopyOnWrite) {
  ScratchDir dir;
  manual_seed(3);
  std::map<std::string, Tensor> original;
  original["a_big"] = randn({512, 1024});  // 2 MiB at offset 0 of the data: mapped
  original["b_flags"] = tensor<bool>({true, false, true}, TensorOptions());
  original["c_ids"] = arange(0, 300000, TensorOptions().dtype(kInt64));  // at 2 MiB + 3: read
  const std::string path = dir.file("big.safetensors");
  save(original, path);
  const std::string bytes_before = read_bytes(path);

  auto loaded = load_tensors(path);
  EXPECT_THAT(read_bytes("/proc/self/maps"), ::testing::HasSubstr(path));
  for (const auto& [name, t] : original) expect_identical(loaded.at(name), t, name);
  loaded.at("c_ids").mul_(2);
  loaded.at("a_big").zero_();
  EXPECT_EQ(read_bytes(path), bytes_before);
  EXPECT_TRUE(equal(loaded.at("c_ids"), original.at("c_ids") * 2));
  auto again = load_tensors(path);
  for (const auto& [name, t] : original) expect_identical(again.at(name), t, name);

  // Replacing and removing the file leaves the loaded tensors as they were.
  save(std::map<std::string, Tensor>{{"c_ids", zeros({300000}, kInt64)}}, path);
  expect_identical(again.at("c_ids"), original.at("c_ids"), "after replacing the file");
  std::remove(path.c_str());
  expect_identical(again.at("a_big"), original.at("a_big"), "after removing the file");
  // A view keeps the mapping alive; the last one unmaps it.
  Tensor kept = again.at("a_big").slice(0, 10, 20);
  again.clear();
  loaded.clear();
  EXPECT_THAT(read_bytes("/proc/self/maps"), ::testing::HasSubstr(path));
  expect_identical(kept, original.at("a_big").slice(0, 10, 20), "a view of a mapped tensor");
  kept = Tensor();
  EXPECT_THAT(read_bytes("/proc/self/maps"), ::testing::Not(::testing::HasSubstr(path)));
}

TEST(Serialize, Metadata) {
  ScratchDir dir;
  const TensorMetadata meta{{"format", "pt"}, {"note", "ünïcode \"quoted\""}};
  save(std::map<std::string, Tensor>{{"x", ones({2})}}, dir.file("m.safetensors"), meta);
  TensorMetadata read{{"stale", "entry"}};
  load_tensors(dir.file("m.safetensors"), &read);
  EXPECT_EQ(read, meta);
  save(std::map<std::string, Tensor>{{"x", ones({2})}}, dir.file("n.safetensors"));
  load_tensors(dir.file("n.safetensors"), &read);
  EXPECT_TRUE(read.empty());
  EXPECT_EQ(read_bytes(dir.file("n.safetensors")).find("__metadata__"), std::string::npos);
}

// PyTorch's safetensors refuses an empty tensor name; so does ember, and the old file stays.
TEST(Serialize, RefusesAnEmptyName) {
  ScratchDir dir;
  const std::string path = dir.file("e.safetensors");
  save(std::map<std::string, Tensor>{{"x", ones({2})}}, path);
  const std::string old = read_bytes(path);
  expect_error(
      [&] {
        save(std::map<std::string, Tensor>{{"", ones({2})}}, path);
      },
      {"save", path, "empty name"});
  expect_error([&] { save({{"x", ones({1})}, {"", zeros({1})}}, path); }, {path, "empty name"});
  EXPECT_EQ(read_bytes(path), old);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"e.safetensors"});
}

// The spec byte for byte: length, header (compact JSON, metadata first, tensors by descending
// dtype then name, padded with spaces to a multiple of 8), then the little-endian data.
TEST(Serialize, WritesTheSpecExactly) {
  ScratchDir dir;
  std::map<std::string, Tensor> m;
  m["b"] = tensor({1.0f, -2.0f});
  m["a"] = tensor<uint8_t>({7, 8, 9}, TensorOptions());
  m["c"] = tensor<int64_t>({258}, TensorOptions());
  save(m, dir.file("s.safetensors"), {{"k", "v"}});
  const std::string bytes = read_bytes(dir.file("s.safetensors"));
  std::string header =
      R"({"__metadata__":{"k":"v"},"c":{"dtype":"I64","shape":[1],"data_offsets":[0,8]},)"
      R"("b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]},)"
      R"("a":{"dtype":"U8","shape":[3],"data_offsets":[16,19]}})";
  header.append((8 - header.size() % 8) % 8, ' ');
  ASSERT_EQ(header.size() % 8, 0u);
  std::string expected(8, '\0');
  expected[0] = static_cast<char>(header.size());
  expected += header;
  expected += std::string("\x02\x01\0\0\0\0\0\0", 8);    // int64 258
  expected += std::string("\0\0\x80\x3f\0\0\0\xc0", 8);  // float 1, -2
  expected += "\x07\x08\x09";                            // uint8
  EXPECT_EQ(bytes, expected);
}

// ---- files written by PyTorch ----

struct Reference {
  std::string dtype;
  std::vector<int64_t> sizes;
  std::vector<std::string> values;
};

// tests/data/safetensors_reference.txt: "file name dtype ndim sizes... : values..."
std::map<std::string, Reference> read_reference(const std::string& file) {
  std::ifstream in(kData + "/safetensors_reference.txt");
  EXPECT_TRUE(in.good());
  std::map<std::string, Reference> refs;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream is(line);
    std::string f, name, colon, v;
    Reference r;
    int64_t ndim = 0;
    is >> f >> name >> r.dtype >> ndim;
    r.sizes.resize(ndim);
    for (auto& s : r.sizes) is >> s;
    is >> colon;
    EXPECT_EQ(colon, ":") << line;
    while (is >> v) r.values.push_back(v);
    if (f == file) refs[name] = r;
  }
  return refs;
}

// The reference values as a tensor of the named dtype.
Tensor reference_tensor(const Reference& r) {
  const size_t n = r.values.size();
  auto fill = [&](auto parse, ScalarType dtype) {
    using T = decltype(parse(std::string()));
    std::vector<T> v;
    for (const auto& s : r.values) v.push_back(parse(s));
    if (v.empty()) return empty(r.sizes, dtype);  // from_blob wants a pointer
    return from_blob(v.data(), r.sizes, dtype).clone();
  };
  if (r.dtype == "float32") return fill([](const std::string& s) { return std::stof(s); }, kFloat);
  if (r.dtype == "float64") return fill([](const std::string& s) { return std::stod(s); }, kDouble);
  if (r.dtype == "float16" || r.dtype == "bfloat16") {
    return fill([](const std::string& s) { return uint16_t(std::stoul(s, nullptr, 16)); },
                r.dtype == "float16" ? kFloat16 : kBFloat16);
  }
  if (r.dtype == "int64")
    return fill([](const std::string& s) { return int64_t(std::stoll(s)); }, kLong);
  if (r.dtype == "int32")
    return fill([](const std::string& s) { return int32_t(std::stol(s)); }, kInt);
  if (r.dtype == "uint8")
    return fill([](const std::string& s) { return uint8_t(std::stoul(s)); }, kByte);
  if (r.dtype == "bool") return fill([](const std::string& s) { return uint8_t(s == "1"); }, kBool);
  ADD_FAILURE() << "unknown dtype " << r.dtype << " (" << n << " values)";
  return Tensor();
}

TEST(SerializeInterop, LoadsEveryDtypeWrittenByPyTorch) {
  const auto refs = read_reference("dtypes");
  ASSERT_EQ(refs.size(), 10u);
  TensorMetadata meta;
  const auto loaded = load_tensors(kData + "/safetensors_dtypes.safetensors", &meta);
  EXPECT_EQ(meta, (TensorMetadata{{"format", "pt"}, {"source", "ember reference"}}));
  ASSERT_EQ(loaded.size(), refs.size());
  for (const auto& [name, r] : refs) {
    ASSERT_TRUE(loaded.count(name)) << name;
    expect_identical(loaded.at(name), reference_tensor(r), name);
  }
  EXPECT_EQ(loaded.at("scalar").dim(), 0);
  EXPECT_EQ(loaded.at("empty").sizes().vec(), (std::vector<int64_t>{0, 3}));
}

TEST(SerializeInterop, LoadsAPyTorchSequentialStateDict) {
  const auto refs = read_reference("sequential");
  nn::Sequential seq(nn::Linear(4, 3), nn::ReLU(), nn::Linear(3, 2));
  load(seq, kData + "/safetensors_sequential.safetensors");
  for (const auto& item : seq->named_parameters()) {
    ASSERT_TRUE(refs.count(item.key())) << item.key();
    expect_identical(item.value().detach(), reference_tensor(refs.at(item.key())), item.key());
    EXPECT_TRUE(item.value().requires_grad()) << item.key();
  }
  NoGradGuard no_grad;
  const Tensor out = seq->forward(reference_tensor(refs.at("input")));
  const Tensor expected = reference_tensor(refs.at("output"));
  EXPECT_LT((out - expected).abs().max().item<float>(), 1e-6f);
}

// ember writes exactly the bytes PyTorch wrote for the same tensors and metadata.
TEST(SerializeInterop, ResavingAPyTorchFileGivesTheSameBytes) {
  ScratchDir dir;
  for (const char* name :
       {"safetensors_dtypes.safetensors", "safetensors_sequential.safetensors"}) {
    const std::string original = kData + "/" + name;
    TensorMetadata meta;
    const auto tensors = load_tensors(original, &meta);
    save(tensors, dir.file(name), meta);
    EXPECT_EQ(read_bytes(dir.file(name)), read_bytes(original)) << name;
  }
}

// ---- modules ----

struct BlockImpl : nn::Module {
  BlockImpl() : fc(3, 3) {
    register_module("fc", fc);
    running = register_buffer("running", randn({3}));
  }
  Tensor forward(const Tensor& x) { return relu(fc(x)) + running; }
  nn::Linear fc;
  Tensor running;
};

struct Net : nn::Module {
  Net() : block(std::make_shared<BlockImpl>()), head(3, 2) {
    register_module("block", block);
    register_module("head", head);
    steps = register_buffer("steps", tensor<int64_t>({0}, TensorOptions()));
  }
  Tensor forward(const Tensor& x) { return head(block->forward(x)); }
  std::shared_ptr<BlockImpl> block;
  nn::Linear head;
  Tensor steps;
};

TEST(SerializeModule, SequentialRoundTrip) {
  ScratchDir dir;
  manual_seed(1);
  nn::Sequential a(nn::Linear(4, 8), nn::ReLU(), nn::Linear(8, 2));
  nn::Sequential b(nn::Linear(4, 8), nn::ReLU(), nn::Linear(8, 2));
  save(a, dir.file("seq.safetensors"));
  const Tensor weight = b->named_parameters()["0.weight"];
  const void* storage = weight.data_ptr();
  load(b, dir.file("seq.safetensors"));
  EXPECT_EQ(weight.data_ptr(), storage);  // in place: optimizers holding it see the new values
  const auto pa = a->named_parameters(), pb = b->named_parameters();
  ASSERT_EQ(pa.keys(), (std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"}));
  for (const auto& item : pa) expect_identical(pb[item.key()], item.value(), item.key());
  const Tensor x = randn({5, 4});
  expect_identical(b->forward(x), a->forward(x), "output");
}

TEST(SerializeModule, CustomModuleWithSubmoduleAndBuffers) {
  ScratchDir dir;
  manual_seed(2);
  auto a = std::make_shared<Net>();
  a->steps.fill_(41);
  save(a, dir.file("net.safetensors"));  // std::shared_ptr<Net>, as in the API
  const auto file = load_tensors(dir.file("net.safetensors"));
  std::vector<std::string> names;
  for (const auto& entry : file) names.push_back(entry.first);
  EXPECT_EQ(names, (std::vector<std::string>{"block.fc.bias", "block.fc.weight", "block.running",
                                             "head.bias", "head.weight", "steps"}));
  auto b = std::make_shared<Net>();
  load(b, dir.file("net.safetensors"));
  for (const auto& item : a->state_dict()) {
    expect_identical(b->state_dict()[item.key()], item.value(), item.key());
  }
  EXPECT_EQ(b->steps.item<int64_t>(), 41);
  const Tensor x = randn({2, 3});
  expect_identical(b->forward(x), a->forward(x), "output");

  // A Module& and a single holder work too.
  auto c = std::make_shared<Net>();
  save(*a, dir.file("ref.safetensors"));
  load(*c, dir.file("ref.safetensors"));
  expect_identical(c->forward(x), a->forward(x), "output via Module&");
  save(a->head, dir.file("head.safetensors"));
  nn::Linear head(3, 2);
  load(head, dir.file("head.safetensors"));
  expect_identical(head->weight, a->head->weight, "head.weight");
}

// As PyTorch's load_state_dict (copy_), values convert to the module's dtype.
TEST(SerializeModule, LoadConvertsToTheModulesDtype) {
  ScratchDir dir;
  manual_seed(3);
  nn::Linear a(3, 2), b(3, 2);
  save(a, dir.file("f32.safetensors"));
  b->to(kFloat64);
  load(b, dir.file("f32.safetensors"));
  EXPECT_EQ(b->weight.dtype(), kFloat64);
  expect_identical(b->weight.detach(), a->weight.detach().to(kFloat64), "weight");
}

TEST(SerializeModule, CudaTensorsAreSavedFromTheCpu) {
  if (!cuda::is_available()) GTEST_SKIP() << "no GPU";
  ScratchDir dir;
  const Tensor x = randn({3, 5});
  save(std::map<std::string, Tensor>{{"x", x.cuda().t()}}, dir.file("c.safetensors"));
  const Tensor loaded = load_tensors(dir.file("c.safetensors")).at("x");
  EXPECT_TRUE(loaded.is_cpu());
  expect_identical(loaded, x.t(), "x");
  nn::Linear a(3, 2), b(3, 2);
  a->to(kCUDA);
  b->to(kCUDA);
  save(a, dir.file("l.safetensors"));
  load(b, dir.file("l.safetensors"));
  EXPECT_TRUE(b->weight.is_cuda());
  expect_identical(b->weight.detach(), a->weight.detach(), "weight");
}

}  // namespace
