export PETSC_OPTIONS=""
t0=$SECONDS
for p in 1 2; do bench/gpu-run mpiexec -n $p build/bench/scaling -problem poisson7 -n 64 -ksp_rtol 1e-12 -ksp_max_it 100 -repeat 1 -json $OUT/s.json -series probe -configs bjacobi-ilu,sfilu,sip,sfdilu,sfdilu-global,afsai,afsai-gather,gamg,gamg-sfdilu,gamg-afsai 2>&1 | tail -14; done
bench/gpu-run mpiexec -n 1 build/bench/scaling -problem poisson7 -n 200 -ksp_rtol 1e-12 -ksp_max_it 100 -repeat 1 -json $OUT/s.json -series probe -configs bjacobi-ilu,sfilu,sip,sfdilu,sfdilu-global,afsai,afsai-gather 2>&1 | tail -10
echo "($((SECONDS-t0)) s)"
