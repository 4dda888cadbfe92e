// ember's safetensors reader and writer on bad input: corrupted and hand-made invalid files
// (each error names the file and the tensor), strict module loading (missing, unexpected and
// mis-shaped keys, as PyTorch's load_state_dict), and atomic saves that leave the old file.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <ember/ember.h>

#include "serialize_helpers.h"

namespace {

using namespace ember;
using serialize_test::expect_error;
using serialize_test::expect_identical;
using serialize_test::make_safetensors;
using serialize_test::read_bytes;
using serialize_test::ScratchDir;
using serialize_test::write_bytes;

const std::string kData = EMBER_TEST_DATA_DIR;
const std::string kF32x2 = R"("dtype":"F32","shape":[2])";

// Writes a hand-made file and expects load_tensors to fail naming it and `parts`.
void expect_bad_file(const ScratchDir& dir, const std::string& bytes,
                     std::initializer_list<std::string> parts) {
  const std::string path = dir.file("bad.safetensors");
  write_bytes(path, bytes);
  expect_error([&] { load_tensors(path); }, {"load_tensors", path});
  expect_error([&] { load_tensors(path); }, parts);
}

TEST(SerializeErrors, HandMadeValidFileLoads) {
  ScratchDir dir;
  const std::string data("\0\0\x80\x3f\0\0\0\x40\x01", 9);  // floats 1, 2, then bool true
  write_bytes(dir.file("ok.safetensors"),
              make_safetensors(R"({"x":{)" + kF32x2 +
                                   R"(,"data_offsets":[0,8]},)"
                                   R"("m":{"dtype":"BOOL","shape":[1],"data_offsets":[8,9]},)"
                                   R"("__metadata__":{"a":"b"}})",
                               data));
  const auto m = load_tensors(dir.file("ok.safetensors"));
  expect_identical(m.at("x"), tensor({1.0f, 2.0f}), "x");
  EXPECT_TRUE(m.at("m").item<bool>());
}

TEST(SerializeErrors, TruncatedAndTinyFiles) {
  ScratchDir dir;
  const std::string good = read_bytes(kData + "/safetensors_sequential.safetensors");
  expect_bad_file(dir, good.substr(0, good.size() - 4), {"tensor '2.weight'", "out of range"});
  expect_bad_file(dir, good.substr(0, 100), {"header length", "larger than the file"});
  expect_bad_file(dir, "abc", {"too few"});
  expect_bad_file(dir, "", {"too few"});
  expect_bad_file(dir, good + "xx", {"cover", "data buffer has"});
  expect_error([&] { load_tensors(dir.file("missing.safetensors")); },
               {"missing.safetensors", "No such file"});
}

TEST(SerializeErrors, BadHeaderLengthAndJson) {
  ScratchDir dir;
  std::string huge = make_safetensors("{}", "");
  huge[6] = '\x01';  // 2^48 bytes of header
  expect_bad_file(dir, huge, {"header length 28147497671", "larger than the file"});
  expect_bad_file(dir, make_safetensors(R"({"x": {"dtype": "F32",)", std::string(8, '\0')),
                  {"not valid JSON"});
  expect_bad_file(dir, make_safetensors("[1, 2]", ""), {"does not start with '{'"});
  // Arbitrary bytes: a random 8-byte length almost never fits, but check a text file too.
  expect_bad_file(dir, "this is not a safetensors file at all", {"larger than the file"});
}

TEST(SerializeErrors, BadEntries) {
  ScratchDir dir;
  const std::string d8(8, '\0');
  auto one = [&](const std::string& info, const std::string& data = std::string(8, '\0')) {
    return make_safetensors(R"({"w":{)" + info + "}}", data);
  };
  expect_bad_file(dir, one(R"("dtype":"F31","shape":[2],"data_offsets":[0,8])"),
                  {"tensor 'w'", "unknown dtype 'F31'"});
  expect_bad_file(dir, one(R"("dtype":"I16","shape":[4],"data_offsets":[0,8])"),
                  {"tensor 'w'", "dtype I16 has no ember equivalent"});
  expect_bad_file(dir, one(R"("shape":[2],"data_offsets":[0,8])"), {"tensor 'w'", "\"dtype\""});
  expect_bad_file(dir, one(R"("dtype":"F32","shape":[-2],"data_offsets":[0,8])"),
                  {"tensor 'w'", "non-negative"});
  expect_bad_file(dir, one(R"("dtype":"F32","shape":[1.5],"data_offsets":[0,8])"),
                  {"tensor 'w'", "non-negative"});
  expect_bad_file(dir, one(kF32x2 + R"(,"data_offsets":[0])"), {"tensor 'w'", "data_offsets"});
  expect_bad_file(dir, one(kF32x2 + R"(,"data_offsets":[8,0])"),
                  {"tensor 'w'", "end before they begin"});
  expect_bad_file(dir, one(R"("dtype":"F32","shape":[3],"data_offsets":[0,8])"),
                  {"tensor 'w'", "hold 8 bytes", "need 12"});
  expect_bad_file(dir, one(kF32x2 + R"(,"data_offsets":[8,16])"), {"tensor 'w'", "out of range"});
  expect_bad_file(dir, one(kF32x2 + R"(,"data_offsets":[4,12])", std::string(12, '\0')),
                  {"tensor 'w'", "leave bytes [0, 4)"});
  expect_bad_file(dir, one(R"("dtype":"F32","shape":[4611686018427387904,4],"data_offsets":[0,8])"),
                  {"tensor 'w'", "too large"});
  expect_bad_file(dir, one(R"("dtype":"BOOL","shape":[2],"data_offsets":[0,2])", "\x01\x02"),
                  {"tensor 'w'", "not a bool"});
  expect_bad_file(dir, make_safetensors(R"({"w":[1]})", ""), {"tensor 'w'", "expected an object"});
  expect_bad_file(dir, make_safetensors(R"({"__metadata__":{"a":1}})", ""),
                  {"metadata 'a' is not a string"});
}

TEST(SerializeErrors, OverlapsAndDuplicates) {
  ScratchDir dir;
  const std::string d12(12, '\0');
  expect_bad_file(dir,
                  make_safetensors(R"({"a":{)" + kF32x2 + R"(,"data_offsets":[0,8]},)" +
                                       R"("b":{)" + kF32x2 + R"(,"data_offsets":[4,12]}})",
                                   d12),
                  {"tensor 'b'", "overlap tensor 'a'"});
  expect_bad_file(dir,
                  make_safetensors(R"({"a":{)" + kF32x2 + R"(,"data_offsets":[0,8]},)" +
                                       R"("a":{)" + kF32x2 + R"(,"data_offsets":[8,16]}})",
                                   std::string(16, '\0')),
                  {"tensor 'a' appears twice"});
}

// ---- strict module loading ----

TEST(SerializeErrors, StrictModuleLoad) {
  ScratchDir dir;
  manual_seed(4);
  nn::Sequential small(nn::Linear(4, 3));
  nn::Sequential big(nn::Linear(4, 3), nn::ReLU(), nn::Linear(3, 2));
  nn::Sequential wide(nn::Linear(4, 5), nn::ReLU(), nn::Linear(5, 2));
  save(small, dir.file("small.safetensors"));
  save(big, dir.file("big.safetensors"));
  const Tensor before = big[0]->as<nn::Linear>()->weight.clone();
  const std::string small_path = dir.file("small.safetensors");
  expect_error([&] { load(big, small_path); },
               {"load", small_path, "Missing key(s)", "\"2.weight\"", "\"2.bias\""});
  expect_identical(big[0]->as<nn::Linear>()->weight.detach(), before, "unchanged");
  const std::string big_path = dir.file("big.safetensors");
  expect_error([&] { load(small, big_path); },
               {big_path, "Unexpected key(s)", "\"2.weight\"", "\"2.bias\""});
  expect_error([&] { load(wide, big_path); },
               {big_path, "size mismatch for 0.weight", "[3, 4]", "[5, 4]", "2.weight"});
}

// ---- saving ----

TEST(SerializeErrors, FailedSavesLeaveTheOldFile) {
  ScratchDir dir;
  const std::string path = dir.file("keep.safetensors");
  save(std::map<std::string, Tensor>{{"x", ones({3})}}, path);
  const std::string old = read_bytes(path);

  expect_error(
      [&] {
        save(std::map<std::string, Tensor>{{"x", zeros({2})}, {"y", Tensor()}}, path);
      },
      {"save", path, "tensor 'y' is undefined"});
  expect_error(
      [&] {
        save(std::map<std::string, Tensor>{{"__metadata__", zeros({2})}}, path);
      },
      {path, "reserved"});
  EXPECT_EQ(read_bytes(path), old);

  // Written in full, then the rename fails (the target is a folder): no temporary file remains.
  std::filesystem::create_directory(dir.file("folder.safetensors"));
  expect_error(
      [&] {
        save(std::map<std::string, Tensor>{{"x", zeros({2})}}, dir.file("folder.safetensors"));
      },
      {"folder.safetensors", "cannot replace it"});
  EXPECT_TRUE(std::filesystem::is_directory(dir.file("folder.safetensors")));

  expect_error(
      [&] {
        save(std::map<std::string, Tensor>{{"x", zeros({2})}}, dir.file("no/such/t.safetensors"));
      },
      {"no/such/t.safetensors", "No such file or directory"});
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"folder.safetensors", "keep.safetensors"}));
  EXPECT_EQ(read_bytes(path), old);

  // A successful save replaces the file.
  save(std::map<std::string, Tensor>{{"x", zeros({3})}}, path);
  expect_identical(load_tensors(path).at("x"), zeros({3}), "x");
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"folder.safetensors", "keep.safetensors"}));
}

// Replacing a file keeps its permissions; saving through a symbolic link replaces its target.
TEST(SerializeErrors, SaveKeepsPermissionsAndLinks) {
  namespace fs = std::filesystem;
  ScratchDir dir;
  const std::string path = dir.file("p.safetensors");
  save(std::map<std::string, Tensor>{{"x", ones({1})}}, path);
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write);
  save(std::map<std::string, Tensor>{{"x", zeros({1})}}, path);
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  fs::create_symlink(path, dir.file("link.safetensors"));
  save(std::map<std::string, Tensor>{{"y", ones({2})}}, dir.file("link.safetensors"));
  EXPECT_TRUE(fs::is_symlink(dir.file("link.safetensors")));
  EXPECT_EQ(load_tensors(path).count("y"), 1u);
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"link.safetensors", "p.safetensors"}));
}

TEST(SerializeErrors, NullModule) {
  std::shared_ptr<nn::LinearImpl> none;
  expect_error([&] { save(none, "x.safetensors"); }, {"x.safetensors", "null"});
}

}  // namespace
