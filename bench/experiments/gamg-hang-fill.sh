#!/usr/bin/env bash
# The second-GAMG-set-up hang (bench/README.md, sfdilu, "GAMG's Galerkin products on the GPU") with every device buffer
# PETSc allocates filled with 0, with 255, or only synchronized (-1), by bench/experiments/cudamalloc-fill.c; TRIES
# processes each (default 6), each ended after QUIET (12) s of silence. Build the library first (see its header), then
#   bench/gpu-run bash bench/experiments/gamg-hang-fill.sh
set -u
tries=${TRIES:-6} quiet=${QUIET:-12} lib=$PWD/build/libfill.so
[ -f "$lib" ] || { echo "$lib is missing: build it as bench/experiments/cudamalloc-fill.c says"; exit 1; }
declare -A hung=()
for t in $(seq "$tries"); do
  for fill in 0 255 -1; do
    timeout $((quiet + 60)) bash bench/stacks-if-stuck.sh -q "$quiet" env LD_PRELOAD="$lib" FILL=$fill mpiexec -n 1 build/bench/repeat \
      -problem poisson7 -n 48 -ksp_type gmres -ksp_rtol 1e-8 -pc_type gamg -solves 2 -resetup ksp > /dev/null 2>&1
    rc=$?
    [ $rc -eq 124 ] && hung[$fill]=$((${hung[$fill]:-0} + 1))
    echo "try $t, fill $fill: $([ $rc -eq 124 ] && echo hung || echo "exit $rc")"
  done
done
for fill in 0 255 -1; do echo "fill $fill: hung in ${hung[$fill]:-0} of $tries processes"; done
