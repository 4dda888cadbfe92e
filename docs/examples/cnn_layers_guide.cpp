// The code of docs/cnn_layers.md, compiled and run by ctest (docs.cnn_layers_guide): LibTorch's
// MNIST network, the DCGAN tutorial's generator and discriminator and a small ResNet, each
// written as in LibTorch with torch -> ember, then the functional forms, padding and
// upsampling, normalization's running statistics, and printing. Sections match the guide's.
#include <ember/ember.h>

#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace nn = ember::nn;
namespace F = ember::nn::functional;
using ember::Tensor;

void expect(bool ok, const char* what) {
  if (!ok) throw std::logic_error(std::string("cnn layers guide: expected ") + what);
}

bool shape_is(const Tensor& t, std::vector<int64_t> shape) { return t.sizes().vec() == shape; }

// ---- Overview ----
void overview() {
  nn::Sequential model(
      nn::Conv2d(nn::Conv2dOptions(1, 32, 3).stride(1).padding(1)), nn::BatchNorm2d(32), nn::ReLU(),
      nn::MaxPool2d(2),
      nn::Conv2d(nn::Conv2dOptions(32, 64, 3).padding(ember::kSame).padding_mode(ember::kReflect)),
      nn::GroupNorm(8, 64), nn::ReLU(), nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({1, 1})),
      nn::Flatten(), nn::Linear(64, 10));
  const ember::Device device = ember::cuda::is_available() ? ember::kCUDA : ember::kCPU;
  model->to(device);
  std::cout << *model << "\n";
  Tensor logits = model->forward(ember::randn({4, 1, 28, 28}).to(device));
  expect(shape_is(logits, {4, 10}), "overview logits [4, 10]");
}

// ---- LibTorch's MNIST example (examples/cpp/mnist) ----
struct Net : nn::Module {
  Net()
      : conv1(nn::Conv2dOptions(1, 10, /*kernel_size=*/5)),
        conv2(nn::Conv2dOptions(10, 20, /*kernel_size=*/5)),
        fc1(320, 50),
        fc2(50, 10) {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("conv2_drop", conv2_drop);
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }

  Tensor forward(Tensor x) {
    x = ember::relu(ember::max_pool2d(conv1->forward(x), 2));
    x = ember::relu(ember::max_pool2d(conv2_drop->forward(conv2->forward(x)), 2));
    x = x.view({-1, 320});
    x = ember::relu(fc1->forward(x));
    x = ember::dropout(x, /*p=*/0.5, /*training=*/is_training());
    x = fc2->forward(x);
    return ember::log_softmax(x, /*dim=*/1);
  }

  nn::Conv2d conv1;
  nn::Conv2d conv2;
  nn::Dropout2d conv2_drop;
  nn::Linear fc1;
  nn::Linear fc2;
};

void mnist_net() {
  auto net = std::make_shared<Net>();
  Tensor out = net->forward(ember::randn({4, 1, 28, 28}));
  expect(shape_is(out, {4, 10}), "MNIST logits [4, 10]");
  expect(shape_is(net->conv2->weight, {20, 10, 5, 5}), "conv2.weight [20, 10, 5, 5]");
}

// ---- The DCGAN tutorial's models ----
struct DCGANGeneratorImpl : nn::Module {
  explicit DCGANGeneratorImpl(int kNoiseSize)
      : conv1(nn::ConvTranspose2dOptions(kNoiseSize, 256, 4).bias(false)),
        batch_norm1(256),
        conv2(nn::ConvTranspose2dOptions(256, 128, 3).stride(2).padding(1).bias(false)),
        batch_norm2(128),
        conv3(nn::ConvTranspose2dOptions(128, 64, 4).stride(2).padding(1).bias(false)),
        batch_norm3(64),
        conv4(nn::ConvTranspose2dOptions(64, 1, 4).stride(2).padding(1).bias(false)) {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("conv3", conv3);
    register_module("conv4", conv4);
    register_module("batch_norm1", batch_norm1);
    register_module("batch_norm2", batch_norm2);
    register_module("batch_norm3", batch_norm3);
  }

  Tensor forward(Tensor x) {
    x = ember::relu(batch_norm1(conv1(x)));
    x = ember::relu(batch_norm2(conv2(x)));
    x = ember::relu(batch_norm3(conv3(x)));
    x = ember::tanh(conv4(x));
    return x;
  }

  nn::ConvTranspose2d conv1, conv2, conv3, conv4;
  nn::BatchNorm2d batch_norm1, batch_norm2, batch_norm3;
};
EMBER_MODULE(DCGANGenerator);

void dcgan() {
  const int kNoiseSize = 100;
  DCGANGenerator generator(kNoiseSize);
  nn::Sequential discriminator(
      // Layer 1
      nn::Conv2d(nn::Conv2dOptions(1, 64, 4).stride(2).padding(1).bias(false)),
      nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2)),
      // Layer 2
      nn::Conv2d(nn::Conv2dOptions(64, 128, 4).stride(2).padding(1).bias(false)),
      nn::BatchNorm2d(128), nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2)),
      // Layer 3
      nn::Conv2d(nn::Conv2dOptions(128, 256, 4).stride(2).padding(1).bias(false)),
      nn::BatchNorm2d(256), nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2)),
      // Layer 4
      nn::Conv2d(nn::Conv2dOptions(256, 1, 3).stride(1).padding(0).bias(false)), nn::Sigmoid());
  // The tutorial's weights_init, with nn::init's in-place initializers.
  generator->apply([](nn::Module& module) {
    if (auto* conv = module.as<nn::ConvTranspose2d>()) nn::init::normal_(conv->weight, 0.0, 0.02);
    if (auto* bn = module.as<nn::BatchNorm2d>()) {
      nn::init::normal_(bn->weight, 1.0, 0.02);
      nn::init::zeros_(bn->bias);
    }
  });
  Tensor noise = ember::randn({8, kNoiseSize, 1, 1});
  Tensor fake = generator->forward(noise);  // [8, 1, 28, 28]
  Tensor score = discriminator->forward(fake).view({-1});
  expect(shape_is(fake, {8, 1, 28, 28}), "generated images [8, 1, 28, 28]");
  expect(shape_is(score, {8}), "one score per image");
  Tensor loss = F::binary_cross_entropy(score, ember::ones({8}));
  loss.backward();
  expect(generator->conv1->weight.grad().defined(), "the generator gets gradients");
}

// ---- A small ResNet (torchvision's BasicBlock) ----
struct BasicBlockImpl : nn::Module {
  BasicBlockImpl(int64_t inplanes, int64_t planes, int64_t stride = 1)
      : conv1(nn::Conv2dOptions(inplanes, planes, 3).stride(stride).padding(1).bias(false)),
        bn1(planes),
        conv2(nn::Conv2dOptions(planes, planes, 3).stride(1).padding(1).bias(false)),
        bn2(planes) {
    register_module("conv1", conv1);
    register_module("bn1", bn1);
    register_module("conv2", conv2);
    register_module("bn2", bn2);
    if (stride != 1 || inplanes != planes) {
      downsample = register_module(
          "downsample",
          nn::Sequential(
              nn::Conv2d(nn::Conv2dOptions(inplanes, planes, 1).stride(stride).bias(false)),
              nn::BatchNorm2d(planes)));
    }
  }
  Tensor forward(Tensor x) {
    Tensor out = ember::relu(bn1(conv1(x)));
    out = bn2(conv2(out));
    out += downsample ? downsample->forward(x) : x;
    return ember::relu(out);
  }
  nn::Conv2d conv1, conv2;
  nn::BatchNorm2d bn1, bn2;
  nn::Sequential downsample = nullptr;
};
EMBER_MODULE(BasicBlock);

void resnet() {
  nn::Sequential model(nn::Conv2d(nn::Conv2dOptions(3, 16, 3).padding(1).bias(false)),
                       nn::BatchNorm2d(16), nn::ReLU(), BasicBlock(16, 16), BasicBlock(16, 32, 2),
                       nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({1, 1})), nn::Flatten(),
                       nn::Linear(32, 10));
  Tensor logits = model->forward(ember::randn({2, 3, 16, 16}));
  expect(shape_is(logits, {2, 10}), "ResNet logits [2, 10]");
  const auto state = model->state_dict();
  expect(state.keys()[6] == "3.conv1.weight", "PyTorch's state dict names and order");
  expect(state.contains("3.bn1.running_mean"), "a block's buffers");
  expect(state.contains("4.downsample.1.num_batches_tracked"), "downsample names");
}

// ---- Functional forms ----
void functional() {
  Tensor x = ember::randn({2, 3, 8, 8});
  Tensor w = ember::randn({6, 3, 3, 3});
  Tensor y = F::conv2d(x, w, F::Conv2dFuncOptions().stride(2).padding(1));      // [2, 6, 4, 4]
  Tensor same = F::conv2d(x, w, F::Conv2dFuncOptions().padding(ember::kSame));  // [2, 6, 8, 8]
  Tensor p = F::max_pool2d(x, F::MaxPool2dFuncOptions(2));                      // [2, 3, 4, 4]
  auto [values, indices] = F::max_pool2d_with_indices(x, F::MaxPool2dFuncOptions(2));
  Tensor a = F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions({1, std::nullopt}));
  Tensor rm = ember::zeros({3}), rv = ember::ones({3});
  Tensor bn = F::batch_norm(x, rm, rv, F::BatchNormFuncOptions().training(true).momentum(0.1));
  Tensor gn = F::group_norm(ember::randn({2, 6, 4, 4}), F::GroupNormFuncOptions(3));
  Tensor padded =
      F::pad(x, F::PadFuncOptions({1, 1, 2, 2}).mode(ember::kReflect));  // [2, 3, 12, 10]
  Tensor up = F::interpolate(x, F::InterpolateFuncOptions()
                                    .scale_factor(std::vector<double>{2, 2})
                                    .mode(ember::kNearest));  // [2, 3, 16, 16]
  Tensor smooth = F::interpolate(x, F::InterpolateFuncOptions()
                                        .size(std::vector<int64_t>{12, 12})
                                        .mode(ember::kBilinear)
                                        .align_corners(false));
  Tensor dropped = F::dropout2d(x, F::Dropout2dFuncOptions().p(0.25));
  expect(shape_is(y, {2, 6, 4, 4}) && shape_is(same, {2, 6, 8, 8}), "conv shapes");
  expect(shape_is(p, {2, 3, 4, 4}) && ember::equal(values, p), "pool shapes");
  expect(indices.dtype() == ember::kInt64 && shape_is(a, {2, 3, 1, 8}), "indices and nullopt");
  expect(rm.abs().sum().item<float>() > 0, "running mean updated in place");
  expect(shape_is(gn, {2, 6, 4, 4}) && shape_is(padded, {2, 3, 12, 10}), "norm and pad shapes");
  expect(shape_is(up, {2, 3, 16, 16}) && shape_is(smooth, {2, 3, 12, 12}), "interpolate");
  expect(shape_is(dropped, {2, 3, 8, 8}), "dropout2d");
}

// ---- Padding modes, upsampling and normalization modules ----
void modules() {
  nn::Conv2d circular(nn::Conv2dOptions(1, 4, 3).padding(1).padding_mode(ember::kCircular));
  nn::ReflectionPad2d reflect(2);
  nn::Upsample upsample(nn::UpsampleOptions()
                            .scale_factor(std::vector<double>{2, 2})
                            .mode(ember::kBilinear)
                            .align_corners(false));
  nn::GroupNorm group_norm(2, 4);
  nn::InstanceNorm2d instance_norm(nn::InstanceNorm2dOptions(4).affine(true));
  Tensor x = ember::randn({2, 1, 6, 6});
  Tensor y = instance_norm(group_norm(upsample(circular(reflect(x)))));
  expect(shape_is(y, {2, 4, 20, 20}), "padding and upsampling modules");

  nn::BatchNorm2d bn(nn::BatchNorm2dOptions(4).momentum(std::nullopt));  // cumulative average
  bn(ember::randn({8, 4, 5, 5}));
  bn(ember::randn({8, 4, 5, 5}) + 2);
  expect(bn->num_batches_tracked.item<int64_t>() == 2, "two batches tracked");
  bn->eval();  // now the running statistics normalize
  Tensor z = bn(ember::randn({1, 4, 5, 5}));
  expect(shape_is(z, {1, 4, 5, 5}), "eval with running stats");
}

// ---- Printing ----
void printing() {
  nn::Sequential seq(nn::Conv2d(nn::Conv2dOptions(1, 32, 3).stride(1).padding(1)),
                     nn::BatchNorm2d(32), nn::ReLU(), nn::MaxPool2d(2));
  std::ostringstream os;
  os << *seq;
  std::cout << os.str() << "\n";
  // Sequential(
  //   (0): Conv2d(1, 32, kernel_size=[3, 3], stride=[1, 1], padding=[1, 1])
  //   (1): BatchNorm2d(32, eps=1e-05, momentum=0.1, affine=true, track_running_stats=true)
  //   (2): ReLU()
  //   (3): MaxPool2d(kernel_size=[2, 2], stride=[2, 2], padding=[0, 0], dilation=[1, 1],
  //        ceil_mode=false)
  // )
  expect(os.str().find("(0): Conv2d(1, 32, kernel_size=[3, 3], stride=[1, 1], padding=[1, 1])") !=
             std::string::npos,
         "LibTorch's Conv2d format");
}

}  // namespace

int main() {
  ember::manual_seed(0);
  overview();
  mnist_net();
  dcgan();
  resnet();
  functional();
  modules();
  printing();
  std::cout << "cnn layers guide: ok\n";
}
