export PETSC_OPTIONS=""
timeout 330 bench/gpu-run check > $OUT/check.log 2>&1; echo "check rc=$?"; grep -E "^# (FAILED|success|failed)|SFPC tests" $OUT/check.log
find build/tests -name '*.tmp' -newer build/gpu-pack.tar.xz | tar -cf $OUT/tmp.tar -T - 2>/dev/null
timeout 250 bench/gpu-run bash tests/gpu-sanitize.sh > $OUT/sanitize.log 2>&1; echo "sanitize rc=$?"; grep -E "^(memcheck|racecheck|synccheck|initcheck)" $OUT/sanitize.log | awk '{print $1, $2, $NF, $(NF-1), $(NF-2)}' | sort | uniq -c
