export PETSC_OPTIONS=""
t0=$SECONDS
b=build/bench/scaling
for pn in 1:271 2:342 4:431; do
  p=${pn%:*}; n=${pn#*:}
  echo "== $p ranks n=$n at $((SECONDS-t0)) s"
  timeout 110 bench/gpu-run mpiexec -n $p $b -json $OUT/s.json -repeat 1 -series weak -problem poisson7 -n $n -rtol 1e-12 -max_it 100 -configs bjacobi-ilu,sfilu,sip,sfdilu,afsai 2>&1 | grep -v "^WARNING\|^There \|^Option left" | tail -8
done
echo "($((SECONDS-t0)) s)"
