#!/usr/bin/env bash
# Builds the stream-order tracer (bench/stream-trace/tracer.c, CUPTI from PyPI's nvidia-cuda-cupti 13.0, cached in
# ~/.cache/sfpc) into build/bench, where 'make gpu-pack' takes it; on the GPU host, runs a command under it.
#   bash bench/stream-trace.sh build                 # here, before make gpu-pack
#   bench/gpu-run bash bench/stream-trace.sh run CMD  # there; for MPI: run mpiexec -n 2 CMD (each rank traced)
#   bench/gpu-run bash bench/stream-trace.sh cases    # there: the runs that fail on a non-blocking root stream
#                                                     # (README, "Known problems"), each on the default stream and on
#                                                     # a non-blocking one, with the tracer's summary and first pairs
set -euo pipefail
sfpc=$(cd "$(dirname "$0")/.." && pwd)
out=$sfpc/build/bench
case "${1:-}" in
build)
  cache=${SFPC_CACHE_DIR:-$HOME/.cache/sfpc}/cupti-13.0
  if [ ! -f "$cache/include/cupti.h" ]; then
    rm -rf "$cache.tmp" && mkdir -p "$cache.tmp"
    python3 -m pip download --no-deps -q -d "$cache.tmp" "nvidia-cuda-cupti==13.0.*"
    python3 -m zipfile -e "$cache.tmp"/*.whl "$cache.tmp/x"
    mkdir -p "$cache" && cp -a "$cache.tmp/x/nvidia/cu13/include" "$cache/" && mkdir -p "$cache/lib" && cp -a "$cache.tmp/x/nvidia/cu13/lib/libcupti.so.13" "$cache/lib/"
    rm -rf "$cache.tmp"
  fi
  mkdir -p "$out"
  cp -a "$cache/lib/libcupti.so.13" "$out/"
  gcc -O2 -Wall -shared -fPIC -I"$cache/include" -I/usr/local/cuda/include "$sfpc/bench/stream-trace/tracer.c" -o "$out/stream-trace.so" -L"$out" -l:libcupti.so.13 -Wl,-rpath,'$ORIGIN' -ldl -lpthread
  echo "built $out/stream-trace.so" ;;
run)
  shift
  [ -f "$out/stream-trace.so" ] || { echo "no $out/stream-trace.so: run 'bash bench/stream-trace.sh build' before make gpu-pack"; exit 1; }
  if [ "${1:-}" = mpiexec ]; then
    args=("$1"); shift
    while [ $# -gt 0 ] && [[ $1 == -* ]]; do args+=("$1" "$2"); shift 2; done
    exec "${args[@]}" env LD_PRELOAD="$out/stream-trace.so" "$@"
  fi
  LD_PRELOAD="$out/stream-trace.so" exec "$@" ;;
cases)
  t=build/tests/tests
  cases=(
    "1|$t/ex11 -device -nx 23 -ny 45 -nz 7 -dirichlet -fact sip"
    "1|$t/ex5 -device -alphas 0,0.5,0.92 -nx 24 -ny 1 -nz 9 -alphas 0.92 -sip_pc_sfilu_sip_variant levelsync"
    "2|$t/ex8 -mat_type aijcusparse -problem poisson7 -n 9 -cg"
  )
  for c in "${cases[@]}"; do
    np=${c%%|*} cmd=${c#*|}
    for stream in default nonblocking; do
      opt=""; [ $stream = nonblocking ] && opt="-root_device_context_stream_type nonblocking"
      echo "=== $stream, np $np: $cmd"
      # shellcheck disable=SC2086
      SFPC_TRACE_KINDS=${SFPC_TRACE_KINDS:-8} SFPC_TRACE_PAIRS=${SFPC_TRACE_PAIRS:-6} timeout 120 "$0" run mpiexec -n "$np" $cmd $opt > /tmp/stream-trace.out 2>&1; echo "rc $?"
      grep -v "^\[stream-trace" /tmp/stream-trace.out | grep -E -i "nan|diverged|converged|error|iterations" | head -4
      grep -A1 "^\[stream-trace" /tmp/stream-trace.out | grep -v "^--" | head -${SFPC_TRACE_LINES:-70}
    done
  done ;;
*) echo "usage: $0 build | run CMD ... | cases"; exit 2 ;;
esac
