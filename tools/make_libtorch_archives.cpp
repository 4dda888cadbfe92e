// Writes tests/data/pt/libtorch_*.pt with LibTorch's (1.13's, Debian's libtorch-dev) torch::save,
// and libtorch_values.txt: the values tests/test_serialize_libtorch.cpp checks them against;
// then hostile variants written record by record with LibTorch's own archive writer.
// Build: g++ -std=c++17 -O1 tools/make_libtorch_archives.cpp
//          -I/usr/include/torch/csrc/api/include -ltorch -ltorch_cpu -lc10 -o /tmp/make_archives
//        cd tests/data/pt && /tmp/make_archives
#include <caffe2/serialize/inline_container.h>
#include <torch/torch.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

FILE* values = nullptr;

// One line: the name, then the tensor's sizes and values (%.17g), as "name s0,s1:v0 v1 ...".
void write_values(const std::string& name, const torch::Tensor& t) {
  torch::Tensor c = t.detach().to(torch::kDouble).contiguous();
  std::fprintf(values, "%s ", name.c_str());
  for (int64_t i = 0; i < c.dim(); ++i)
    std::fprintf(values, "%s%lld", i ? "," : "", (long long)c.size(i));
  std::fprintf(values, ":");
  const double* p = c.data_ptr<double>();
  for (int64_t i = 0; i < c.numel(); ++i) std::fprintf(values, " %.17g", p[i]);
  std::fprintf(values, "\n");
}

// Deterministic values: (arange(n) * scale + shift) shaped as t, filled in place.
void fill(torch::Tensor t, double scale, double shift) {
  torch::NoGradGuard guard;
  t.copy_((torch::arange(t.numel(), torch::kDouble) * scale + shift).sin().reshape(t.sizes()));
}

struct Block : torch::nn::Module {
  Block() {
    fc = register_module("fc", torch::nn::Linear(3, 2));
    scale = register_parameter("scale", torch::ones({2}));
    count = register_buffer("count", torch::zeros({1}, torch::kInt64));
  }
  torch::nn::Linear fc{nullptr};
  torch::Tensor scale, count;
};

struct Net : torch::nn::Module {
  Net() {
    encoder = register_module("encoder", std::make_shared<Block>());
    head = register_module("head", torch::nn::Linear(2, 4));
    bias = register_parameter("bias", torch::zeros({4}));
    mask = register_buffer("mask", torch::ones({2, 2}));
  }
  std::shared_ptr<Block> encoder;
  torch::nn::Linear head{nullptr};
  torch::Tensor bias, mask;
};

void fill_module(torch::nn::Module& m, const std::string& prefix) {
  double k = 0.1;
  for (auto& p : m.named_parameters()) fill(p.value(), 0.37, k += 0.1);
  for (auto& b : m.named_buffers()) {
    if (b.value().is_floating_point())
      fill(b.value(), 0.11, k += 0.2);
    else
      b.value().fill_(7);
  }
  for (auto& p : m.named_parameters()) write_values(prefix + p.key(), p.value());
  for (auto& b : m.named_buffers()) write_values(prefix + b.key(), b.value());
}

torch::nn::Sequential make_seq() {
  torch::nn::Sequential seq(torch::nn::Linear(4, 3), torch::nn::BatchNorm1d(3),
                            torch::nn::Linear(3, 2));
  return seq;
}

// One loss on a fixed input so every optimizer sees the same gradients.
torch::Tensor loss_of(torch::nn::Sequential& seq) {
  torch::Tensor x = torch::arange(8, torch::kFloat).reshape({2, 4}).div(8).sub(0.3);
  return seq->forward(x).pow(2).sum();
}

template <class Opt, class Options>
void optimizer_case(const std::string& name, Options options, int steps) {
  torch::nn::Sequential seq = make_seq();
  seq->eval();  // BatchNorm uses its running statistics: the step is the same in ember
  fill_module(*seq, name + ".param.");
  Opt opt(seq->parameters(), options);
  for (int s = 0; s < steps; ++s) {
    opt.zero_grad();
    loss_of(seq).backward();
    opt.step();
  }
  for (auto& p : seq->named_parameters()) write_values(name + ".after." + p.key(), p.value());
  torch::save(opt, "libtorch_" + name + ".pt");
  // LibTorch's next step, which ember's must match after loading the state.
  opt.zero_grad();
  loss_of(seq).backward();
  opt.step();
  for (auto& p : seq->named_parameters()) write_values(name + ".next." + p.key(), p.value());
}

// Copies the archive `from` into `to` (a new top folder), replacing or adding the records in
// `change` (names under the top folder).
void rewrite(const std::string& from, const std::string& to,
             const std::vector<std::pair<std::string, std::string>>& change) {
  caffe2::serialize::PyTorchStreamReader reader(from);
  caffe2::serialize::PyTorchStreamWriter writer(to);
  for (const std::string& name : reader.getAllRecords()) {
    if (name == "version") continue;  // the writer adds its own
    bool replaced = false;
    for (const auto& c : change) replaced |= c.first == name;
    if (replaced) continue;
    auto record = reader.getRecord(name);
    writer.writeRecord(name, std::get<0>(record).get(), std::get<1>(record));
  }
  for (const auto& c : change) writer.writeRecord(c.first, c.second.data(), c.second.size());
  writer.writeEndOfFile();
}

// Protocol-2 pickles by hand: the ops LibTorch's pickler writes, used to name what they must not.
std::string unicode(const std::string& s) {
  std::string out = "X";
  const uint32_t n = s.size();
  out.append(reinterpret_cast<const char*>(&n), 4);
  return out + s;
}

void write_hostile() {
  const std::string evil_code = "import os\nos.system('echo pwned > /tmp/pwned')\n";
  const std::string evil_pickle =
      "\x80\x02"
      "cos\nsystem\n" +
      unicode("echo pwned") + "\x85R.";
  // The code and constants that TorchScript would run are never read: the tensor loads.
  rewrite("libtorch_tensor.pt", "libtorch_hostile_code.pt",
          {{"code/__torch__.py", evil_code}, {"constants.pkl", evil_pickle}});
  const std::string module =
      "\x80\x02"
      "c__torch__\nModule\n)\x81}";
  // An attribute built by os.system: refused by name.
  rewrite("libtorch_tensor.pt", "libtorch_os_system.pt",
          {{"data.pkl", module + unicode("0") + "cos\nsystem\n" + unicode("ls") + "\x85Rsb."}});
  // A TorchScript program's class (not LibTorch's archive class): refused.
  rewrite("libtorch_tensor.pt", "libtorch_script_class.pt",
          {{"data.pkl",
            "\x80\x02"
            "c__torch__.evil\nPayload\n)\x81}b."}});
  // Another allowed global created by NEWOBJ: refused.
  rewrite("libtorch_tensor.pt", "libtorch_newobj_dict.pt",
          {{"data.pkl",
            "\x80\x02"
            "ccollections\nOrderedDict\n)\x81."}});
  // An object whose attribute is itself: the reader stops at its depth limit.
  rewrite("libtorch_tensor.pt", "libtorch_cycle.pt",
          {{"data.pkl", module.substr(0, module.size() - 1) + std::string("q\x00}", 3) +
                            unicode("self") + std::string("h\x00sb.", 5)}});
  // The archive class called (REDUCE) instead of created: refused.
  rewrite("libtorch_tensor.pt", "libtorch_call_module.pt",
          {{"data.pkl",
            "\x80\x02"
            "c__torch__\nModule\n" +
                unicode("x") + "\x85R."}});
}

}  // namespace

int main() {
  values = std::fopen("libtorch_values.txt", "w");
  if (values == nullptr) return 1;
  {
    torch::nn::Sequential seq = make_seq();
    fill_module(*seq, "sequential.");
    torch::save(seq, "libtorch_sequential.pt");
  }
  {
    auto net = std::make_shared<Net>();
    fill_module(*net, "custom.");
    torch::save(net, "libtorch_custom.pt");
  }
  {
    torch::Tensor t = torch::arange(12, torch::kFloat).reshape({3, 4}).mul(0.5);
    write_values("tensor", t);
    torch::save(t, "libtorch_tensor.pt");
    std::vector<torch::Tensor> list = {torch::arange(3, torch::kDouble).add(1),
                                       torch::arange(6, torch::kInt64).reshape({2, 3})};
    write_values("list.0", list[0]);
    write_values("list.1", list[1]);
    torch::save(list, "libtorch_tensors.pt");
  }
  optimizer_case<torch::optim::SGD>("sgd", torch::optim::SGDOptions(0.1).momentum(0.9), 1);
  optimizer_case<torch::optim::Adam>("adam", torch::optim::AdamOptions(0.01), 2);
  std::fclose(values);
  write_hostile();
  return 0;
}
