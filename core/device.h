// Device: a device type (CPU or CUDA) and an index, parsed from "cpu", "cuda", "cuda:1".
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

namespace ember {

enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };
constexpr int kNumDeviceTypes = 2;
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;

class Device {
 public:
  Device(DeviceType type, int index = -1)
      : type_(type), index_(static_cast<int8_t>(index)) {}  // NOLINT
  Device(const std::string& spec);                          // NOLINT
  Device(const char* spec) : Device(std::string(spec)) {}   // NOLINT

  DeviceType type() const { return type_; }
  int index() const { return index_; }
  bool has_index() const { return index_ >= 0; }
  bool is_cpu() const { return type_ == kCPU; }
  bool is_cuda() const { return type_ == kCUDA; }
  std::string str() const;

  // CPU devices compare equal whatever their index; cuda (no index) means the current device.
  bool operator==(const Device& o) const {
    return type_ == o.type_ && (type_ == kCPU || index_ == o.index_);
  }
  bool operator!=(const Device& o) const { return !(*this == o); }

 private:
  DeviceType type_;
  int8_t index_;
};

std::ostream& operator<<(std::ostream& os, const Device& d);
std::ostream& operator<<(std::ostream& os, DeviceType t);

}  // namespace ember
