// Internal: autograd's recording forms, declared from core/recorded.def, and
// register_recorders(), which hands them and the rows of core/elementwise.def to core's tables
// (core/recording.h). backends/ calls it once, when the backends register. Not installed.
#pragma once

#include <optional>
#include <string>

#include <ember/core/recording.h>
#include <ember/core/tensor.h>

namespace ember::autograd {

namespace recorded {
#define EMBER_RECORDED(id, function, ret, params) ret function params;
#include <ember/core/recorded.def>
#undef EMBER_RECORDED
}  // namespace recorded

void register_recorders();

}  // namespace ember::autograd
