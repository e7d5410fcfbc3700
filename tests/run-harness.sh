#!/usr/bin/env bash
# Runs the built tests: every harness run script under TESTDIR (optionally only those whose
# test name matches GLOB), the PETSc-tutorial, install, GPU-binding and petsc4py tests, GPU-skip accounting, then the report.
# Exits nonzero if any test failed or none ran. Used by 'make check' and by bench/gpu-run.
# Usage: run-harness.sh TESTDIR SFPC_DIR HARNESS [GLOB]   (MPIEXEC, PETSCDIFF, PYTHON from the environment;
# SFPC_HARNESS_FLAGS goes to every run script, e.g. -V: under valgrind, failing on any error it reports)
set -u
testdir=$1 sfpc=$2 harness=$3 glob=${4:-*}
# under -V, valgrind (PETSc's petscmpiexec) also takes SFPC's suppressions: errors it reports in glibc's loader as CUDA's libraries load
export PETSCVALGRIND_OPTIONS="--suppressions=$sfpc/config/valgrind.supp ${PETSCVALGRIND_OPTIONS:-}"
tap=$testdir/test_build_tap.log
rm -rf "$testdir/counts" "$tap" "$testdir/test_build_err.log"
mkdir -p "$testdir/counts"; touch "$tap"
matched=0
while IFS= read -r script; do
  rel=${script#"$testdir"/}; dir=$(dirname "$rel"); name=${dir//\//_}-$(basename "$script" .sh); name=${name/-run/-}
  # shellcheck disable=SC2053
  [[ $name == $glob ]] || continue
  matched=$((matched + 1))
  printf ' %10s %s\n' TEST "$name"
  # shellcheck disable=SC2086
  (cd "$(dirname "$script")" && "./$(basename "$script")" ${SFPC_HARNESS_FLAGS:-} > /dev/null < /dev/null)
done < <(find "$testdir/tests" "$testdir/examples" -name 'run*.sh' 2>/dev/null | sort)
if [ "$matched" -eq 0 ] && [ "$glob" != "*" ]; then # a selection that names no test is a mistake, not a pass
  echo "SFPC tests: no test name matches '$glob' (names look like tests-ex6_gpu_basic, or tests-exN for a test without variants; where no GPU is visible the GPU tests have no run script)"
  exit 1
fi
if [ "$glob" = "*" ]; then
  bash "$sfpc/tests/petsc-tutorial.sh" "$testdir" "$sfpc"
  bash "$sfpc/tests/install.sh" "$testdir" "$sfpc"
  bash "$sfpc/tests/gpu-bind.sh" "$testdir" "$sfpc"
  bash "$sfpc/tests/stacks-if-stuck.sh" "$testdir" "$sfpc"
  bash "$sfpc/tests/petsc4py.sh" "$testdir" "$sfpc"
  if grep -q SFPC_HAVE_GPU "$sfpc/build/include/sfpcconf.h"; then bash "$sfpc/tests/petsc-tutorial.sh" "$testdir" "$sfpc" gpu; fi
  ${PYTHON:-python3} "$sfpc/config/gpu-skips.py" --harness "$harness" --testdir "$testdir" --conf "$sfpc/build/include/sfpcconf.h" "$sfpc/tests" "$sfpc/examples/tutorials"
fi
${PYTHON:-python3} "$harness/report_tests.py" -d "$testdir/counts" -s
# one counts file per test: it passed when nothing in it failed, and was skipped when nothing ran
read -r npass nfail nskip < <(awk '/^failed/{f[FILENAME]=$2} /^success/{s[FILENAME]=$2} /^skip/{k[FILENAME]=$2}
  END {for (x in s) { if (f[x] > 0) nf++; else if (s[x] > 0) np++; else if (k[x] > 0) ns++ } print np+0, nf+0, ns+0}' "$testdir"/counts/*.counts)
echo "SFPC tests: $npass passed, $nfail failed, $nskip skipped (TAP log: $tap)"
[ "$nfail" -eq 0 ] || grep -E '^not ok' "$tap" | head -20 # named here too: a GPU host's log goes with the machine
[ "$npass" -gt 0 ] && [ "$nfail" -eq 0 ]
