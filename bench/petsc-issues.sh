#!/usr/bin/env bash
# Checks whether the PETSc build at hand still has the two GPU faults README.md's "Running on a GPU" names for PETSc
# 3.26.1, so that the README can be kept true when PETSc changes:
#   1. VecMDot() on CUDA vectors returning a wrong first entry for 65-127 vectors (bench/mdot; GMRES with a restart
#      above 64 loses orthogonality);
#   2. a second GAMG set-up in one process hanging in cuSPARSE's SpGEMM (GAMG's Galerkin products on the GPU;
#      bench/petsc-gamg-twice, PETSc alone), TRIES processes (default 4), each ended after QUIET (15) s of silence.
# Both reproducers call PETSc only, so they can go with a report to PETSc.
#   bench/gpu-run bash bench/petsc-issues.sh
# Prints one verdict line per fault. A fault that does not show in a run may still be there (both depend on timing).
set -u
tries=${TRIES:-4} quiet=${QUIET:-15}
here=$(cd "$(dirname "$0")/.." && pwd)
mpiexec -n 1 "$here/build/bench/mdot" -n 1000000 -trials 20 -counts 8,64,100,110,120,127,128 2>&1 | sed -n '2,$p'
echo "(PETSc 3.26.1 on an H200: 67, 74 and 59 of these 140 calls wrong in three runs)"
hung=0
for t in $(seq "$tries"); do
  log=$(timeout $((quiet + 60)) bash "$here/bench/stacks-if-stuck.sh" -q "$quiet" mpiexec -n 1 "$here/build/bench/petsc-gamg-twice" -n 48 2>&1)
  rc=$?
  if [ $rc -eq 124 ]; then
    hung=$((hung + 1))
    echo "  try $t: hung$(echo "$log" | grep -q cusparseSpGEMM_compute && echo ' in cusparseSpGEMM_compute()')"
  elif [ $rc -ne 0 ]; then
    echo "  try $t: failed (exit $rc)"; echo "$log" | tail -5
  else
    echo "  try $t: both set-ups and solves done"
  fi
done
echo "second GAMG set-up with GPU products: hung in $hung of $tries processes (PETSc 3.26.1 on an H200: 8 of 8)"
