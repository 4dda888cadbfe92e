// Whether AddressSanitizer's runtime would abort on a huge allocation in this process: test
// programs are not instrumented (tests/CMakeLists.txt), so this asks at run time whether the
// ASan runtime is linked and allocator_may_return_null=1 is missing (tools/test.sh sets it).
#pragma once

#include <cstdlib>
#include <cstring>

extern "C" void __asan_init() __attribute__((weak));

inline bool asan_aborts_on_huge_allocations() {
  if (&__asan_init == nullptr) return false;  // no ASan runtime in this process
  const char* options = std::getenv("ASAN_OPTIONS");
  return options == nullptr || std::strstr(options, "allocator_may_return_null=1") == nullptr;
}
