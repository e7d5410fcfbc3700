#!/usr/bin/env bash
# Runs GPU test commands twice, on PETSc's default stream and with -root_device_context_stream_type nonblocking
# (work not issued on PETSc's current stream is then unordered with it), and prints where the outputs differ;
# a run silent for 40 s gets its stacks (bench/stacks-if-stuck.sh). SFPC_NB_FILE=file: the cases from a file,
# one "ranks|command" a line ($t: the tests' directory, $lib: libsfpc.so).
# Run on the GPU host through bench/gpu-run: bench/gpu-run bash tests/gpu-nonblocking.sh
# What it found (H200, 2026-11-29, README "Known problems"): PETSc's own Jacobi-CG on 2 ranks (ex8 -bjacobi -cg, its
# jacobi_ KSP) diverges; SFPC's fused Richardson from a nonzero guess (ex11, ex5: SIP) gives NaN and ICC under GMRES
# with the symmetric side hangs; all of them pass with CUDA_LAUNCH_BLOCKING=1. Why (bench/stream-trace.sh, 2026-11-30):
# with the option PETSc runs VecAXPY()/VecAYPX()/VecMAXPY()/VecSet() and aijcusparse's MatMult() on the legacy stream,
# the rest on the root one, unordered (bench/petsc-reports.md, section 9).
set -u
lib=$PWD/lib/libsfpc.so
t=build/tests/tests
if [ -n "${SFPC_NB_FILE:-}" ]; then mapfile -t cases < <(sed -e "s|\$t|$t|g; s|\$lib|$lib|g" "$SFPC_NB_FILE"); else
cases=(
  "1|$t/ex12 -device -attach pc -pcs jacobi,ilu,none,sfilu_hyb,sfilu_grid,sfdilu,afsai"
  "1|$t/ex11 -device -nx 23 -ny 45 -nz 7 -dirichlet"
  "1|$t/ex11 -device -nx 23 -ny 45 -nz 7 -dirichlet -fact sip"
  "1|$t/ex5 -device -alphas 0,0.5,0.92 -nx 24 -ny 1 -nz 9 -alphas 0.92 -sip_pc_sfilu_sip_variant levelsync"
  "1|$t/ex1 -dll_append $lib -device -icc -problem poisson7 -n 20 -refactor"
  "1|$t/ex1 -dll_append $lib -device -icc -symmetric_check -problem poisson7 -n 20"
  "1|$t/ex1 -dll_append $lib -device -icc -ksp_pc_side symmetric -problem poisson7 -n 20"
  "1|$t/ex8 -mat_type aijcusparse -problem poisson7 -n 9 -cg"
)
fi
for c in "${cases[@]}"; do
  np=${c%%|*} cmd=${c#*|}
  echo "=== np $np: $cmd"
  timeout 60 mpiexec -n "$np" $cmd > /tmp/default.out 2>&1; echo "default rc $?"
  bash bench/stacks-if-stuck.sh -q 40 mpiexec -n "$np" $cmd -root_device_context_stream_type nonblocking > /tmp/nonblocking.out 2>&1; echo "nonblocking rc $?"; grep -m16 -E "^#[0-9]+ .*(sfpc|SFPC|SFILU|SFDILU|Sweep|Kernel|cuda|Cuda|Mat|Vec|KSP|PC)" /tmp/nonblocking.out
  diff /tmp/default.out /tmp/nonblocking.out | head -${DIFFLINES:-12}
done
