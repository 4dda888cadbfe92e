// The names a LibTorch program meets once renamed (docs/porting-from-libtorch.md): each compiles
// and computes what LibTorch 1.13 computed (values and gradients below are LibTorch's output);
// and tools/port-from-libtorch.sh turns a LibTorch snippet into the expected ember text.
#include <ember/ember.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "error_of.h"

using namespace ember;
using ::testing::HasSubstr;

namespace {

std::vector<double> values(const Tensor& t) {
  Tensor c = t.detach().to(kFloat64).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

void expect_near(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

// ---- ember::optional, ember::nullopt, autograd::Variable, variable_list ----

TEST(PortNames, OptionalAndVariable) {
  static_assert(std::is_same_v<ember::optional<int64_t>, std::optional<int64_t>>);
  static_assert(std::is_same_v<ember::autograd::Variable, Tensor>);
  static_assert(std::is_same_v<ember::autograd::variable_list, std::vector<Tensor>>);
  ember::optional<int64_t> dim = ember::nullopt;
  EXPECT_FALSE(dim.has_value());
  dim = 1;
  EXPECT_EQ(*dim, 1);
  ember::autograd::Variable v = ember::ones({2}, ember::requires_grad());
  ember::autograd::variable_list grads = ember::autograd::grad({(v * v).sum()}, {v});
  expect_near(values(grads[0]), {2, 2}, 0);
}

// ---- ember::Reduction::None / Mean / Sum, wherever LibTorch passes at::Reduction ----

TEST(PortNames, ReductionAsLibTorchSpellsIt) {
  Tensor a = tensor({0.2, -1.0, 3.0, 1.5, 0.1, -0.3}, kFloat64).view({2, 3});
  Tensor b = tensor({0.0, 1.0, 2.0, 1.0, 1.0, 1.0}, kFloat64).view({2, 3});
  Tensor target = tensor({int64_t{2}, int64_t{0}});
  Tensor lp = log_softmax(a, 1);
  EXPECT_NEAR(nll_loss(lp, target, {}, ember::Reduction::Sum).item<double>(), 0.42108455490946828,
              1e-12);
  EXPECT_NEAR(nll_loss(lp, target, {}, ember::Reduction::Mean).item<double>(), 0.21054227745473414,
              1e-12);
  EXPECT_TRUE(
      equal(nll_loss(lp, target, {}, ember::Reduction::Sum), nll_loss(lp, target, {}, kSum)));
  EXPECT_NEAR(mse_loss(a, b, ember::Reduction::Sum).item<double>(), 7.79, 1e-12);
  expect_near(values(mse_loss(a, b, ember::Reduction::None)), {0.04, 4, 1, 0.25, 0.81, 1.69},
              1e-12);
  EXPECT_NEAR(smooth_l1_loss(a, b, ember::Reduction::Sum, 0.5).item<double>(), 4.49, 1e-12);
  // The enum's own name, as `at::Reduction::Reduction r = at::Reduction::Mean;`.
  ember::Reduction::Reduction r = ember::Reduction::Mean;
  EXPECT_EQ(r, kMean);
  EXPECT_EQ(ember::Reduction::None, kNone);
  // The options of nn::functional take them too.
  EXPECT_NEAR(
      nn::functional::mse_loss(a, b, nn::functional::MSELossFuncOptions(ember::Reduction::Sum))
          .item<double>(),
      7.79, 1e-12);
}

// ---- ember::dropout, ember::feature_dropout ----

TEST(PortNames, DropoutFreeFunctions) {
  Tensor x = ember::randn({4, 3, 5, 5});
  EXPECT_TRUE(equal(ember::dropout(x, 0.5, /*train=*/false), x));
  EXPECT_TRUE(equal(ember::feature_dropout(x, 0.5, /*train=*/false), x));
  manual_seed(0);
  Tensor ones = ember::ones({4, 3, 5, 5});
  for (double v : values(ember::dropout(ones, 0.5, /*train=*/true)))
    EXPECT_TRUE(v == 0.0 || v == 2.0) << v;
  // feature_dropout zeroes or keeps (scaled) whole channels.
  Tensor y = ember::feature_dropout(ones, 0.5, /*train=*/true).view({12, 25});
  for (int64_t c = 0; c < 12; ++c) {
    const double first = y[c][0].item<double>();
    EXPECT_TRUE(first == 0.0 || first == 2.0);
    EXPECT_TRUE(y[c].eq(first).all().item<bool>());
  }
}

// ---- the ATen activations: LibTorch's values and gradients at the same points ----

struct ActivationCase {
  const char* name;
  std::function<Tensor(const Tensor&)> fn;
  std::vector<double> value, grad;
};

TEST(PortNames, ActivationsMatchLibTorch) {
  const std::vector<double> x = {-30.0, -3.0, -1.0, -1e-4, 0.0, 0.5, 2.0, 7.0, 25.0};
  const std::vector<ActivationCase> cases = {
      {"leaky_relu(0.2)",
       [](const Tensor& t) { return ember::leaky_relu(t, 0.2); },
       {-6, -0.6, -0.2, -2e-05, 0, 0.5, 2, 7, 25},
       {0.2, 0.2, 0.2, 0.2, 0.2, 1, 1, 1, 1}},
      {"leaky_relu",
       [](const Tensor& t) { return ember::leaky_relu(t); },
       {-0.3, -0.03, -0.01, -1e-06, 0, 0.5, 2, 7, 25},
       {0.01, 0.01, 0.01, 0.01, 0.01, 1, 1, 1, 1}},
      {"elu(0.5, 2, 1.5)",
       [](const Tensor& t) { return ember::elu(t, 0.5, 2.0, 1.5); },
       {-1, -0.98889100346175773, -0.77686983985157021, -0.00014998875056249084, 0, 1, 4, 14, 50},
       {4.2937778708240908e-20, 0.016663494807363458, 0.33469524022264474, 1.4997750168741564, 1.5,
        2, 2, 2, 2}},
      {"selu",
       [](const Tensor& t) { return ember::selu(t); },
       {-1.7580993408472121, -1.6705687287671118, -1.1113307378125625, -0.00017580114388104502, 0,
        0.52535049367774023, 2.1014019747109609, 7.3549069114883636, 26.267524683887011},
       {1.6451630773416182e-13, 0.087530612080264872, 0.64676860303481398, 1.7579235397034956,
        1.7580993408473766, 1.0507009873554805, 1.0507009873554805, 1.0507009873554805,
        1.0507009873554805}},
      {"silu",
       [](const Tensor& t) { return ember::silu(t); },
       {-2.8072868906517896e-12, -0.14227761953270035, -0.2689414213699951, -4.9997500000002084e-05,
        0, 0.3112296656009273, 1.7615941559557646, 6.9936226416391962, 24.9999999996528},
       {-2.7137106609631341e-12, -0.088104106015169617, 0.072329488128513253, 0.49995000000008333,
        0.5, 0.73996118730265192, 1.0907842487848955, 1.0054604970664518, 1.000000000333312}},
      {"softplus(2, 10)",
       [](const Tensor& t) { return ember::softplus(t, 2.0, 10.0); },
       {4.37825538134826e-27, 0.0012378425688652247, 0.063464005521486247, 0.34652359277997263,
        0.34657359027997264, 0.6566308437591114, 2.0090749639589047, 7, 25},
       {8.75651076269652e-27, 0.0024726231566347748, 0.11920292202211755, 0.49995000000016665, 0.5,
        0.7310585786300049, 0.98201379003790845, 1, 1}},
      {"hardtanh(-2, 1.5)",
       [](const Tensor& t) { return ember::hardtanh(t, -2.0, 1.5); },
       {-2, -2, -1, -0.0001, 0, 0.5, 1.5, 1.5, 1.5},
       {0, 0, 1, 1, 1, 1, 0, 0, 0}},
      {"relu6",
       [](const Tensor& t) { return ember::relu6(t); },
       {0, 0, 0, 0, 0, 0.5, 2, 6, 6},
       {0, 0, 0, 0, 0, 1, 1, 0, 0}},
      {"log_sigmoid",
       [](const Tensor& t) { return ember::log_sigmoid(t); },
       {-30.000000000000092, -3.0485873515737421, -1.3132616875182228, -0.69319718180994527,
        -0.69314718055994529, -0.47407698418010669, -0.12692801104297249, -0.00091146645377424473,
        -1.3887943864867583e-11},
       {0.99999999999990641, 0.95257412682243325, 0.7310585786300049, 0.50002499999997907, 0.5,
        0.37754066879814546, 0.11920292202211755, 0.00091105119440064539, 1.3887943864771146e-11}},
  };
  for (const ActivationCase& c : cases) {
    SCOPED_TRACE(c.name);
    Tensor in = tensor(x, kFloat64).requires_grad_(true);
    Tensor out = c.fn(in);
    EXPECT_EQ(out.dtype(), kFloat64);
    expect_near(values(out), c.value, 1e-12);
    out.sum().backward();
    expect_near(values(in.grad()), c.grad, 1e-12);
    // float32 keeps its dtype and has no overflow at the ends.
    Tensor f = c.fn(tensor(x, kFloat64).to(kFloat32));
    EXPECT_EQ(f.dtype(), kFloat32);
    expect_near(values(f), c.value, 1e-4 * 30);
  }
}

// ---- nn::Functional(fn, bound args...) ----

TEST(PortNames, FunctionalBindsArgumentsAfterTheInput) {
  Tensor x = arange(16, kFloat64).view({1, 1, 4, 4});
  nn::Functional pool(ember::max_pool2d, 2, 2, 0, 1, false);
  expect_near(values(pool(x)), {5, 7, 13, 15}, 0);
  nn::Functional leaky(ember::leaky_relu, 0.2);
  expect_near(values(leaky(tensor({-1.0, 2.0}, kFloat64))), {-0.2, 2.0}, 1e-15);
  ExpandingArray<2> shape({-1, 4});
  nn::Functional reshape(ember::reshape, shape);
  EXPECT_EQ(reshape(x).sizes(), IntArrayRef({4, 4}));
  nn::Functional log_softmax(ember::log_softmax, 1, ember::nullopt);
  EXPECT_TRUE(allclose(log_softmax(x.view({4, 4})), ember::log_softmax(x.view({4, 4}), 1)));
  // The one-argument form is unchanged, and both fit a Sequential (custom-dataset's AlexNet).
  nn::Sequential seq(nn::Functional(ember::relu),
                     nn::Functional(ember::max_pool2d, 3, ExpandingArray<2>({2, 2}), 0, 1, false));
  EXPECT_EQ(seq->forward(ember::randn({1, 2, 7, 7})).sizes(), IntArrayRef({1, 2, 3, 3}));
}

// ---- ExpandingArray<N> ----

TEST(PortNames, ExpandingArray) {
  ExpandingArray<2> same(3);
  EXPECT_EQ(same->at(0), 3);
  EXPECT_EQ(same->at(1), 3);
  EXPECT_EQ(IntArrayRef(same), IntArrayRef({3, 3}));
  ExpandingArray<3> list({1, 2, 3});
  EXPECT_EQ(IntArrayRef(list), IntArrayRef({1, 2, 3}));
  EXPECT_EQ(str(ExpandingArray<2>({2, 5})), "[2, 5]");
  EXPECT_THAT(error_of([] {
                ExpandingArray<2> three({1, 2, 3});
              }),
              HasSubstr("Expected 2 values, but instead got 3"));
}

// ---- data::Dataset, LibTorch's export of data::datasets::Dataset ----

class Squares : public ember::data::Dataset<Squares> {
 public:
  // As LibTorch's custom-dataset example writes it: no `override`, ember::optional.
  ember::data::Example<> get(size_t index) {
    return {tensor({static_cast<double>(index)}, kFloat64),
            tensor({static_cast<int64_t>(index * index)})};
  }
  ember::optional<size_t> size() const { return 4; }
};

TEST(PortNames, DataDatasetAlias) {
  static_assert(std::is_base_of_v<ember::data::datasets::Dataset<Squares>, Squares>);
  static_assert(
      std::is_same_v<ember::data::BatchDataset<Squares, std::vector<ember::data::Example<>>>,
                     ember::data::datasets::BatchDataset<Squares>>);
  auto loader = ember::data::make_data_loader<ember::data::samplers::SequentialSampler>(
      Squares().map(ember::data::transforms::Stack<>()), /*batch_size=*/2);
  std::vector<double> targets;
  for (auto& batch : *loader)
    for (double t : values(batch.target)) targets.push_back(t);
  expect_near(targets, {0, 1, 4, 9}, 0);
}

// ---- ember::str, EMBER_CHECK, EMBER_ASSERT, EMBER_INTERNAL_ASSERT, EMBER_WARN ----

TEST(PortNames, Str) {
  EXPECT_EQ(ember::str("a", 1, 2.5), "a12.5");
  EXPECT_EQ(ember::str(), "");
  EXPECT_EQ(ember::str("sample-", 3, ".pt"), "sample-3.pt");
  EXPECT_EQ(ember::str(IntArrayRef({2, 3})), "[2, 3]");
}

TEST(PortNames, ChecksAndAsserts) {
  EMBER_CHECK(1 + 1 == 2, "never thrown");
  EMBER_ASSERT(true);
  EMBER_INTERNAL_ASSERT(true, "never thrown");
  EXPECT_THAT(error_of([] { EMBER_CHECK(1 == 2, "size ", 3, " is wrong"); }),
              HasSubstr("size 3 is wrong"));
  const std::string assert_message = error_of([] { EMBER_ASSERT(1 == 2); });
  EXPECT_THAT(assert_message, HasSubstr("1 == 2 INTERNAL ASSERT FAILED at"));
  EXPECT_THAT(assert_message, HasSubstr("test_port_names.cpp"));
  EXPECT_THAT(error_of([] { EMBER_INTERNAL_ASSERT(2 < 1, "msg ", 3); }),
              HasSubstr("2 < 1 INTERNAL ASSERT FAILED at"));
  EXPECT_THAT(error_of([] { EMBER_INTERNAL_ASSERT(2 < 1, "msg ", 3); }), HasSubstr(". msg 3"));
  ::testing::internal::CaptureStderr();
  EMBER_WARN("careful ", 1);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), HasSubstr("Warning: careful 1"));
}

// ---- tools/port-from-libtorch.sh ----

std::string script_path() {
#ifdef EMBER_TEST_DATA_DIR
  return std::string(EMBER_TEST_DATA_DIR) + "/../../tools/port-from-libtorch.sh";
#else
  const std::string here = __FILE__;  // .../tests/test_port_names.cpp
  const size_t slash = here.find_last_of('/');
  return (slash == std::string::npos ? std::string(".") : here.substr(0, slash)) +
         "/../tools/port-from-libtorch.sh";
#endif
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(PortNames, PortScriptAppliesTheRenameRule) {
  const std::string libtorch = R"(#include <torch/torch.h>
#include "torch/script.h"
#include <ATen/ATen.h>
#include <iostream>
using namespace torch::autograd;
namespace F = torch::nn::functional;
struct NetImpl : torch::nn::Module {};
TORCH_MODULE(Net);
int main() {
  auto x = torch::ones({2, 2}, torch::kCUDA);
  TORCH_CHECK(x.dim() == 2, "bad");
  AT_ASSERT(x.defined());
  c10::optional<int64_t> d = c10::nullopt;
  at::Tensor y = at::zeros({2});
  auto l = torch::nll_loss(x, y, {}, at::Reduction::Sum) + c10::str("a", 1).size();
  my_torch::f(); format::g(); v.at(0); std::cout << "torch";
}
)";
  const std::string ember_text = R"(#include <ember/ember.h>
#include <ember/ember.h>
#include <ember/ember.h>
#include <iostream>
using namespace ember::autograd;
namespace F = ember::nn::functional;
struct NetImpl : ember::nn::Module {};
EMBER_MODULE(Net);
int main() {
  auto x = ember::ones({2, 2}, ember::kCUDA);
  EMBER_CHECK(x.dim() == 2, "bad");
  EMBER_ASSERT(x.defined());
  std::optional<int64_t> d = std::nullopt;
  ember::Tensor y = ember::zeros({2});
  auto l = ember::nll_loss(x, y, {}, ember::Reduction::Sum) + ember::str("a", 1).size();
  my_torch::f(); format::g(); v.at(0); std::cout << "torch";
}
)";
  char dir_template[] = "/tmp/ember_port_XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  const std::string in = dir + "/libtorch.cpp", out = dir + "/ember.cpp";
  std::ofstream(in) << libtorch;
  const std::string command = "sh '" + script_path() + "' '" + in + "' '" + out + "'";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  EXPECT_EQ(read_file(out), ember_text);
  // Without OUT the result goes to stdout; `using namespace torch;` becomes ember's.
  std::ofstream(in) << "using namespace torch;\nusing namespace at;\n";
  const std::string to_stdout = "sh '" + script_path() + "' '" + in + "' > '" + out + "'";
  ASSERT_EQ(std::system(to_stdout.c_str()), 0);
  EXPECT_EQ(read_file(out), "using namespace ember;\nusing namespace ember;\n");
  std::remove(in.c_str());
  std::remove(out.c_str());
  std::remove(dir.c_str());
}

}  // namespace
