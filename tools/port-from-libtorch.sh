#!/bin/sh
# Ports a LibTorch C++ source to ember by the rename rule of docs/porting-from-libtorch.md:
#   #include <torch/...>, <ATen/...>, <c10/...>  ->  #include <ember/ember.h>
#   torch:: at:: c10::  ->  ember::   (c10::optional, c10::nullopt, c10::make_optional -> std::)
#   using namespace torch / at  ->  using namespace ember
#   TORCH_*  ->  EMBER_*   (TORCH_CHECK, TORCH_MODULE, TORCH_ARG, TORCH_WARN, ...)
#   AT_ASSERT  ->  EMBER_ASSERT,  AT_ERROR  ->  EMBER_THROW
# Only whole words change: `my_torch::`, `format::` and "torch" inside other words stay.
# Usage: tools/port-from-libtorch.sh FILE [OUT]   (FILE "-" reads stdin; without OUT, stdout)
# Needs GNU sed (\< and \> word boundaries).
set -eu

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 FILE [OUT]   (FILE '-' reads stdin; OUT defaults to stdout)" >&2
  exit 2
fi
in=$1
if [ "$in" != "-" ] && [ ! -r "$in" ]; then
  echo "$0: cannot read $in" >&2
  exit 1
fi

port() {
  sed -E \
    -e 's@^([[:space:]]*#[[:space:]]*include[[:space:]]*)[<"](torch|ATen|c10)/[^>"]*[>"]@\1<ember/ember.h>@' \
    -e 's/\<c10::(optional|nullopt|make_optional)\>/std::\1/g' \
    -e 's/\<(torch|at|c10)::/ember::/g' \
    -e 's/\<(using[[:space:]]+namespace[[:space:]]+)(torch|at)\>/\1ember/g' \
    -e 's/\<TORCH_/EMBER_/g' \
    -e 's/\<AT_ASSERT\>/EMBER_ASSERT/g' \
    -e 's/\<AT_ERROR\>/EMBER_THROW/g' \
    "$1"
}

if [ $# -eq 2 ]; then
  port "$in" >"$2"
else
  port "$in"
fi
