#!/usr/bin/env bash
# One driver for docs/PERF.md's figures: tools/bench.sh cpu|gpu STAGE [OUT]. Each stage builds
# what it needs and runs ember beside its twins (LibTorch, PyTorch) alternately, through the
# stage scripts below; each GPU stage fits one 10-minute call on the H200 (run it from the repo
# root there, with .device/ carried). `tools/bench.sh list` prints the stages.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
where="${1:-list}"
stage="${2:-}"
OUT="${3:-${OUT:-$(mktemp -d)}}"
GPU_BUILD="${GPU_BUILD:-/tmp/ember-gpu-build}"  # the GPU stages that need a build with examples

usage() {
  cat <<'EOF'
tools/bench.sh cpu STAGE [OUT]   (2-core CPU machine)
  micro      micro_bench beside libtorch_micro_bench (tools/bench_cpu.sh; ROUNDS, REPS)
  mlp        the MLP example beside LibTorch's twin (tools/mlp_compare.sh, 3 epochs, b128)
  cnn        the CNN example beside LibTorch's twin (tools/cnn_compare.sh)
  icount     host instructions per tiny op (tools/icount.sh)
  serialize  save/load of a 1 GiB state dict (serialize_bench)
  all        every stage above, in order
tools/bench.sh gpu STAGE [OUT]   (H200, one 10-minute call each)
  visit      bandwidth, GEMM, per-op host cost, TF32, MLP, CNN beside PyTorch/LibTorch
             (tools/gpu_visit.sh; builds its own tree)
  cnn        conv, batch norm and the CNN twins (tools/gpu_cnn_visit.sh)
  quick      sort/topk/index beside PyTorch (tools/gpu_quick_check.sh)
  graph      builds with examples into $GPU_BUILD, then --graph off/on beside PyTorch eager and
             PyTorch + CUDA graph, PyTorch graph + fused SGD + torch.compile (COMPILED=0 skips),
             and the accuracy seeds (tools/gpu_graph_check.sh)
  profile    kernels of one MLP/CNN step, ember and PyTorch (tools/gpu_profile_step.sh; after
             `graph`, or any build with examples in $GPU_BUILD)
  reliability  CUDA soaks and compute-sanitizer counts (tools/gpu_reliability.sh)
EOF
}

build_gpu() {  # a Release build with the examples, for the stages that run them
  tools/gpu_build.sh "$GPU_BUILD" "$OUT/build.log" 240 -DEMBER_BUILD_EXAMPLES=ON \
    -DEMBER_TEST_PER_CASE=OFF
}

cpu_stage() {
  case "$1" in
    micro) OUT="$OUT/micro" tools/bench_cpu.sh "$OUT/micro" ;;
    mlp) OUT="$OUT/mlp" tools/mlp_compare.sh build --device cpu --epochs 3 --batch-size 128 ;;
    cnn)
      OUT="$OUT/cnn" tools/cnn_compare.sh build --device cpu --epochs 2 --max-steps 60 \
        --test-samples 1000
      ;;
    icount) tools/icount.sh build | tee "$OUT/icount.txt" ;;
    serialize)
      cmake --build build --target serialize_bench >/dev/null &&
        build/benchmarks/serialize_bench "$(mktemp -d)" 1024 | tee "$OUT/serialize.txt"
      ;;
    all) for s in micro mlp cnn icount serialize; do cpu_stage "$s" || return 1; done ;;
    *) usage; return 2 ;;
  esac
}

gpu_stage() {
  case "$1" in
    visit) tools/gpu_visit.sh "$OUT" ;;
    cnn) tools/gpu_cnn_visit.sh "$OUT" ;;
    quick) tools/gpu_quick_check.sh "$OUT" ;;
    graph) build_gpu && B="$GPU_BUILD" ROUNDS="${ROUNDS:-1}" tools/gpu_graph_check.sh "$OUT" ;;
    profile) B="$GPU_BUILD" tools/gpu_profile_step.sh "$OUT" ;;
    reliability)
      TARGETS="" build_gpu && tools/gpu_reliability.sh "$GPU_BUILD" "$OUT" 20000 "${SAN_S:-300}"
      ;;
    *) usage; return 2 ;;
  esac
}

mkdir -p "$OUT"
case "$where" in
  cpu) cpu_stage "$stage" ;;
  gpu) gpu_stage "$stage" ;;
  list | -h | --help) usage ;;
  *) usage; exit 2 ;;
esac
rc=$?
echo "bench.sh $where $stage: exit $rc, output in $OUT"
exit $rc
