// The global generator's state: get_rng_state()/set_rng_state() (and the cuda:: spellings)
// save and restore the seed and Philox offset, so the random ops that follow repeat exactly.
#include <ember/ember.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "error_of.h"
#include "serialize_helpers.h"

namespace {

using namespace ember;
using ::testing::HasSubstr;

uint64_t le64(const Tensor& state, int at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(state[at + i].item<int64_t>()) << (8 * i);
  return v;
}

TEST(RngState, IsSeedThenOffsetAsSixteenBytes) {
  manual_seed(0x0102030405060708ull);
  Tensor s = get_rng_state();
  EXPECT_EQ(s.dtype(), kUInt8);
  EXPECT_EQ(s.sizes(), IntArrayRef({16}));
  EXPECT_TRUE(s.device().is_cpu());
  EXPECT_EQ(le64(s, 0), 0x0102030405060708ull);
  EXPECT_EQ(le64(s, 8), 0u);
  rand({4});  // float32 uses one word per element: one Philox counter
  EXPECT_EQ(le64(get_rng_state(), 8), 1u);
  randn({3}, kFloat64);  // two words per element: two pairs, one counter each
  EXPECT_EQ(le64(get_rng_state(), 8), 3u);
}

TEST(RngState, RestoringRepeatsTheFollowingRandomOps) {
  manual_seed(123);
  rand({10});
  const Tensor state = get_rng_state();
  Tensor a = randn({5, 3});
  Tensor b = rand({7}, kFloat64);
  Tensor c = randint(0, 100, {9});
  Tensor d = randperm(12);
  Tensor e = nn::functional::dropout(ones({64}), nn::functional::DropoutFuncOptions().p(0.5));
  set_rng_state(state);
  EXPECT_TRUE(randn({5, 3}).equal(a));
  EXPECT_TRUE(rand({7}, kFloat64).equal(b));
  EXPECT_TRUE(randint(0, 100, {9}).equal(c));
  EXPECT_TRUE(randperm(12).equal(d));
  EXPECT_TRUE(
      nn::functional::dropout(ones({64}), nn::functional::DropoutFuncOptions().p(0.5)).equal(e));
  // the state is a copy: drawing more does not change it
  EXPECT_FALSE(get_rng_state().equal(state));
  set_rng_state(state);
  EXPECT_TRUE(get_rng_state().equal(state));
}

TEST(RngState, RoundTripsThroughAFile) {
  manual_seed(5);
  randn({100});
  serialize_test::ScratchDir dir;
  save(std::map<std::string, Tensor>{{"rng_state", get_rng_state()}}, dir.file("rng.safetensors"));
  Tensor expected = randn({20});
  manual_seed(99);
  set_rng_state(load_tensors(dir.file("rng.safetensors")).at("rng_state"));
  EXPECT_TRUE(randn({20}).equal(expected));
}

TEST(RngState, BadStatesThrowAndChangeNothing) {
  manual_seed(11);
  const Tensor before = get_rng_state();
  EXPECT_THAT(error_of([] { set_rng_state(Tensor()); }), HasSubstr("undefined"));
  EXPECT_THAT(error_of([] { set_rng_state(zeros({16})); }),
              HasSubstr("expected a CPU uint8 tensor of 16 bytes"));
  EXPECT_THAT(error_of([] { set_rng_state(zeros({15}, kUInt8)); }), HasSubstr("[15]"));
  EXPECT_THAT(error_of([] { set_rng_state(zeros({2, 8}, kUInt8)); }), HasSubstr("[2, 8]"));
  EXPECT_TRUE(get_rng_state().equal(before));
}

TEST(RngState, CudaSpellingIsTheSameGenerator) {
  manual_seed(21);
  EXPECT_TRUE(cuda::get_rng_state().equal(get_rng_state()));
  const Tensor state = get_rng_state();
  Tensor a = rand({6});
  cuda::set_rng_state(state);
  EXPECT_TRUE(rand({6}).equal(a));
}

TEST(RngStateCuda, RestoringRepeatsCudaRandomOps) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  manual_seed(31);
  const Tensor state = cuda::get_rng_state();
  Tensor a = randn({1000}, kCUDA);
  Tensor b = rand({333}, TensorOptions().dtype(kFloat64).device(kCUDA));
  Tensor c =
      nn::functional::dropout(ones({4096}, kCUDA), nn::functional::DropoutFuncOptions().p(0.3));
  cuda::set_rng_state(state);
  EXPECT_TRUE(randn({1000}, kCUDA).equal(a));
  EXPECT_TRUE(rand({333}, TensorOptions().dtype(kFloat64).device(kCUDA)).equal(b));
  EXPECT_TRUE(
      nn::functional::dropout(ones({4096}, kCUDA), nn::functional::DropoutFuncOptions().p(0.3))
          .equal(c));
  // one generator: the CPU state after the CUDA draws is the CUDA state
  EXPECT_TRUE(get_rng_state().equal(cuda::get_rng_state()));
}

}  // namespace
