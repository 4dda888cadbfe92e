// Device parsing ("cpu", "cuda", "cuda:1") and printing ("cpu", "cuda", "cuda:0").
// Bad strings throw an Error that shows the string and the accepted forms.
#include <ember/core/device.h>

#include <ember/core/error.h>

namespace ember {

namespace {
[[noreturn]] void bad_device(const std::string& spec, const char* why) {
  EMBER_THROW("Device: invalid device string \"", spec, "\" (", why,
              "; expected \"cpu\", \"cuda\" or \"cuda:N\")");
}
}  // namespace

Device::Device(const std::string& spec) : type_(kCPU), index_(-1) {
  size_t colon = spec.find(':');
  std::string name = spec.substr(0, colon);
  if (name == "cpu") {
    type_ = kCPU;
  } else if (name == "cuda") {
    type_ = kCUDA;
  } else {
    bad_device(spec, "unknown device type");
  }
  if (colon == std::string::npos) return;
  std::string idx = spec.substr(colon + 1);
  if (idx.empty() || idx.size() > 3) bad_device(spec, "bad device index");
  int value = 0;
  for (char c : idx) {
    if (c < '0' || c > '9') bad_device(spec, "bad device index");
    value = value * 10 + (c - '0');
  }
  if (value > 127) bad_device(spec, "device index too large");
  index_ = static_cast<int8_t>(value);
}

std::string Device::str() const {
  if (type_ == kCPU) return "cpu";
  if (index_ < 0) return "cuda";
  return "cuda:" + std::to_string(static_cast<int>(index_));
}

std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

std::ostream& operator<<(std::ostream& os, DeviceType t) {
  return os << (t == kCPU ? "cpu" : "cuda");
}

}  // namespace ember
