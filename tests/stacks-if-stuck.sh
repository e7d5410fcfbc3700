#!/usr/bin/env bash
# bench/stacks-if-stuck.sh on this machine: a command that ends keeps its output and status; one that stops
# printing gets the native stacks of its processes (a frame of the call it is stuck in), is ended, and the
# script exits 124. Compared with tests/output/stacks-if-stuck.out.
# Usage: stacks-if-stuck.sh TESTDIR SFPC_DIR   (PETSCDIFF from the environment)
set -u
. "$(dirname "$0")/report-output.sh"
testdir=$1 sfpc=$2
run=$sfpc/bench/stacks-if-stuck.sh
if ! command -v eu-stack > /dev/null; then # config/deps.sh installs it; a user's own PETSC_DIR skips deps.sh
  echo "ok stacks-if-stuck # SKIP no eu-stack (Debian package elfutils)" | tee -a "$testdir/test_build_tap.log"
  printf 'total 1\nsuccess 0\nfailed 0\nfailures \nskip 1\ntime 0 0\n' > "$testdir/counts/stacks-if-stuck.counts"
  exit 0
fi
mkdir -p "$testdir/stacks-if-stuck"
out=$testdir/stacks-if-stuck/stacks-if-stuck.out
{
  echo "# a command that ends"
  bash "$run" -q 5 bash -c 'echo first; sleep 1; echo second; exit 3'; echo "exit $?"
  echo "# a command that stops printing"
  bash "$run" -q 2 bash -c 'echo start; exec sleep 300' > "$out.stuck" 2>&1; echo "exit $?"
  head -2 "$out.stuck"
  pid=$(sed -n 's/^== pid \([0-9]*\): .*/\1/p' "$out.stuck")
  if grep -q "nanosleep" "$out.stuck"; then echo "a nanosleep frame in its stack"; else echo "no nanosleep frame"; fi
  kill -0 "$pid" 2>/dev/null && echo "pid still running" || echo "ended"
} 2>&1 | sed 's/stacks of [0-9]*/stacks of PID/' > "$out"
report_output stacks-if-stuck "$sfpc/tests/output/stacks-if-stuck.out" "$out" "$testdir"
