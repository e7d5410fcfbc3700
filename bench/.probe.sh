export PETSC_OPTIONS=""
timeout 300 bench/gpu-run bash tests/gpu-sanitize.sh > $OUT/sanitize.log 2>&1; echo "sanitize rc=$?"; grep -E "^(memcheck|racecheck|synccheck|initcheck)" $OUT/sanitize.log | awk '{print $1, $2, $NF, $(NF-1), $(NF-2)}' | sort | uniq -c
grep -E "^(memcheck|racecheck|synccheck|initcheck) +rc=[^0]" $OUT/sanitize.log | cut -c1-200
timeout 60 bench/gpu-run build/bench/dilu -problem poisson7 -n 64 -gamg -smoother 0 -log_view > $OUT/gamglog.txt 2>&1
grep -E "^(KSPSolve|PCApply|MatMult |MatResidual|SFTriSolve|PCApplyRichardson|MatSOR|VecScatter|SFDILU|MGSmooth|MGResid|MGInterp|PCSetUp|KSPSetUp) " $OUT/gamglog.txt | cut -c1-100
