// Helpers of the bad-input suite (tests/bad_input/, issue 18): assert the exception's type and
// the key words of its message (EMBER_BAD_INPUT_VERBOSE=1 prints each message), and a scratch
// folder for the file cases.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cxxabi.h>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <memory>
#include <string>
#include <typeinfo>

#include <ember/core/error.h>

namespace bad_input {

// The demangled name of the exception being handled (for a message saying what was thrown).
inline std::string current_exception_type() {
  const std::type_info* type = abi::__cxa_current_exception_type();
  if (type == nullptr) return "(unknown)";
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(
      abi::__cxa_demangle(type->name(), nullptr, nullptr, &status), std::free);
  return status == 0 && name ? name.get() : type->name();
}

// Whether msg contains `part`, or one of its alternatives when it has several: "a|b|c" (for
// words that differ between builds, such as a CUDA build without a GPU and a build without CUDA).
inline bool contains_one_of(const std::string& msg, const std::string& part) {
  size_t begin = 0;
  for (;;) {
    const size_t end = part.find('|', begin);
    if (msg.find(part.substr(begin, end - begin)) != std::string::npos) return true;
    if (end == std::string::npos) return false;
    begin = end + 1;
  }
}

enum class Kind { kError, kOutOfMemory };

template <class F>
void expect_throw(Kind kind, F&& f, std::initializer_list<std::string> parts) {
  std::string msg;
  try {
    f();
    ADD_FAILURE() << "did not throw";
    return;
  } catch (const ember::OutOfMemoryError& e) {
    msg = e.what();
    if (kind != Kind::kOutOfMemory) {
      ADD_FAILURE() << "threw ember::OutOfMemoryError, expected a plain ember::Error: " << msg;
    }
  } catch (const ember::Error& e) {
    msg = e.what();
    if (kind != Kind::kError) {
      ADD_FAILURE() << "threw " << current_exception_type()
                    << ", expected ember::OutOfMemoryError: " << msg;
    }
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw " << current_exception_type() << ", not an ember::Error: " << e.what();
    return;
  } catch (...) {
    ADD_FAILURE() << "threw " << current_exception_type() << ", not a std::exception";
    return;
  }
  for (const std::string& part : parts) {
    EXPECT_TRUE(contains_one_of(msg, part)) << "'" << part << "' not in: " << msg;
  }
  if (std::getenv("EMBER_BAD_INPUT_VERBOSE") != nullptr) std::printf("message: %s\n", msg.c_str());
}

// f throws ember::Error (not its OutOfMemoryError subclass) whose message holds every part.
template <class F>
void expect_error(F&& f, std::initializer_list<std::string> parts) {
  expect_throw(Kind::kError, f, parts);
}

// f throws ember::OutOfMemoryError whose message holds every part.
template <class F>
void expect_oom(F&& f, std::initializer_list<std::string> parts) {
  expect_throw(Kind::kOutOfMemory, f, parts);
}

// A fresh folder under the system's temporary directory, removed with its files.
class Scratch {
 public:
  Scratch() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "ember_bad_input_XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~Scratch() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  std::string path() const { return path_.string(); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  // Writes `bytes` to the named file and returns its path.
  std::string write(const std::string& name, const std::string& bytes) const {
    const std::string p = file(name);
    std::ofstream out(p, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return p;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace bad_input
