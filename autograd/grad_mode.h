// Grad mode lives in core/grad_mode.h (core owns the recording decision); this path stays for
// programs that include it by its earlier name.
#pragma once

#include <ember/core/grad_mode.h>
