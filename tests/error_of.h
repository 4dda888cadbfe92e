// error_of(f): the message of the ember::Error that f throws, for tests that check error
// messages; a test failure if f throws anything else or nothing.
#pragma once

#include <ember/core/error.h>
#include <gtest/gtest.h>

#include <exception>
#include <string>

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const ember::Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw a non-ember exception: " << e.what();
    return "";
  }
  ADD_FAILURE() << "did not throw";
  return "";
}
