# Sourced by the script tests (petsc-tutorial.sh, install.sh): compares an output with its
# expected file by petscdiff and reports the result in the harness's TAP and counts formats, so
# that 'make check' counts it as one test.
# report_output LABEL EXPECTED ACTUAL TESTDIR   (PETSCDIFF from the environment)
report_output() {
  local label=$1 expected=$2 actual=$3 testdir=$4 result success failed
  if $PETSCDIFF "$expected" "$actual" > "$actual.diff" 2>&1; then
    result="ok $label"; success=1; failed=0
  else
    result="not ok $label # output differs"; success=0; failed=1
    sed 's/^/#\t/' "$actual.diff"
  fi
  echo "$result" | tee -a "$testdir/test_build_tap.log"
  printf 'total 1\nsuccess %d\nfailed %d\nfailures %s\ntime 0 0\n' $success $failed "$( [ $failed = 1 ] && echo "$label")" > "$testdir/counts/$label.counts"
}
