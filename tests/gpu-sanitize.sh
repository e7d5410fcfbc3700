#!/usr/bin/env bash
# compute-sanitizer (memcheck, racecheck, synccheck, initcheck) over SFPC's GPU paths on small
# cases: analysis (ASAP and ALAP; the polling pass and the ready queue), sync-free ILU(0) (both ways of matching U's columns, and by point-blocks:
# 4 fields a point (and the block sweep options or the match changed on the same pattern), blocks of 8 permuted rows, a NaN and a shifted zero pivot, dense blocks of 5 fields in 3-D and of elasticity's nodes; sweeps by point-blocks of 8 permuted rows, of 3 fields, of 5 fields in 3-D and of Q1 elasticity's nodes, 81 entries a row, their columns from slabs or, past 8 slots a lane, the CSR) and ILU(k) (A's values scattered into the fill pattern), both solves in both layouts, refactorization,
# a failing pivot and a NaN; ICC through the solver type (the mirrored values, grid layout and ILU(1)); MATHYBSF triangles (build, single sweeps, refill, a refill refused for an Inf; auto on a grid read from the pattern and by point-blocks) with rows of 0 to
# 3000 entries; SIP's GPU factorization, sync-free and level-synchronous, on a non-cubic grid, and with a zero pivot; the
# grid layout's sweeps (ILU(0) and SIP, two tile lines per plane, Dirichlet rows, chunks of 4 and 2, blocks of 8 and 2 planes, a block of 8 planes and one of 3; the 27-point
# box's, two tile lines per plane, past the skew's wrap at plane 30, and as MATHYBSF triangles, with the residual and the product A x fused into its L sweep; its factorization by hyperplanes with a zero pivot and a NaN) and its
# Eisenstat form of sfilu (ex15: its operator with the grid layout, two tile lines a plane, and hyb, the pattern check,
# the product with Q; and sfdilu's, in color order); the
# Richardson iteration with the residual fused into the forward sweep (tile tasks, flags, norm partial sums); the
# GPU multicolor DILU (JPL, greedy and grid colorings, by point-blocks (ex19: Q1 elasticity by parts, asked for and by auto, 3 fields sync-free, a zero block, auto on a pattern without whole blocks; ex14: a 2-D grid of 3 fields with its points colored by the grid), the three sweep variants (by parts: a nonsymmetric 7-point and a 27-point one, 4 lanes a row, with GAMG's fused Richardson steps, Q1 elasticity, 16 lanes a row, and a 2-D grid of 4 fields as boxes of its plane), the csr and hyb layouts, the local order, a nonsymmetric pattern, a zero
# pivot with shifts, the weight in the apply's scatter, the fused Richardson step under GAMG, the transposed applies of ex13 in color and local order and of a failed E); the GPU adaptive FSAI set-up (search
# variants with the filter and the row limit, a NaN, a Cholesky breakdown, the values-only re-set-up and one with other search steps, the split apply);
# the gathered aFSAI set-up on mpiaijcusparse (one rank); host vectors through each GPU PC's device copies (ex12); on 2 ranks (mpicases, each rank under its own
# sanitizer) the global DILU across ranks on the GPU (transposed too), the gathered aFSAI and the Eisenstat form's operator
# with the couplings between ranks; and each PC on matrices with no structure (-problem random: rows of 0 to 1000 entries).
# Run on the GPU host through bench/gpu-run: bench/gpu-run bash tests/gpu-sanitize.sh [PATTERN]
# (PATTERN: only the cases whose command line matches it, e.g. ex6; SANITIZE_TOOLS="memcheck racecheck": only those tools).
set -u
lib=$PWD/lib/libsfpc.so
ex11=build/tests/tests/ex11 ex12=build/tests/tests/ex12 ex1=build/tests/tests/ex1 ex2=build/tests/tests/ex2 ex4=build/tests/tests/ex4 ex5=build/tests/tests/ex5 ex6=build/tests/tests/ex6 ex7=build/tests/tests/ex7 ex8=build/tests/tests/ex8 ex9=build/tests/tests/ex9 ex13=build/tests/tests/ex13 ex14=build/tests/tests/ex14 ex15=build/tests/tests/ex15 ex16=build/tests/tests/ex16 ex19=build/tests/tests/ex19
dilu="-device -dilu_ksp_type gmres -dilu_pc_type sfdilu"
cases=(
  "$ex15 -dll_append $lib -device -problem poisson7 -n 6 -steps 3"
  "$ex15 -dll_append $lib -device -problem convdiff -n 6 -peclet 10 -ksp_type bcgs -pc_sfilu_layout hyb -steps 3"
  "$ex15 -dll_append $lib -device -problem convdiff -n 33 -peclet 3 -ksp_type bcgs -pc_sfilu_layout grid -steps 2 -ksp_max_it 3"
  "$ex15 -dll_append $lib -device -pc sfdilu -pc_sfdilu_coloring jpl -problem convdiff -n 6 -peclet 10 -ksp_type bcgs -steps 3"
  "$ex1 -dll_append $lib -device -problem poisson7 -n 6 -refactor"
  "$ex1 -dll_append $lib -device -problem poisson7 -n 6 -refactor -pc_sfilu_layout hyb -pc_sfilu_levels alap"
  "$ex1 -dll_append $lib -device -problem convdiff -n 5 -peclet 10 -permute 3"
  "$ex1 -dll_append $lib -device -problem convdiff -n 5 -peclet 10 -permute 3 -pc_sfilu_layout csr -pc_sfilu_levels alap"
  "$ex1 -dll_append $lib -device -problem poisson27 -n 5 -permute 3 -refactor -pc_sfilu_factor_match search"
  "$ex1 -dll_append $lib -device -problem convdiff -n 6 -peclet 5 -hub 5 -refactor"
  "$ex1 -dll_append $lib -device -problem convdiff -n 6 -peclet 5 -hub 5 -refactor -fill_levels 2"
  "$ex1 -dll_append $lib -device -problem poisson27 -n 5 -permute 3 -refactor -fill_levels 1 -matsolver"
  "$ex1 -dll_append $lib -device -icc -ksp_type cg -problem poisson7 -n 6 -refactor"
  "$ex1 -dll_append $lib -device -icc -ksp_type cg -problem poisson27 -n 5 -permute 3 -refactor -fill_levels 1"
  "$ex2 -dll_append $lib -mat_type aijcusparse -case zeropivot -pc_sfilu_shift_type nonzero"
  "$ex2 -dll_append $lib -mat_type aijcusparse -case zeropivot -pc_sfilu_shift_type nonzero -pc_sfilu_factor_match search"
  "$ex2 -dll_append $lib -mat_type aijcusparse -case nan"
  "$ex1 -dll_append $lib -device -problem fields -n 6 -dof 4 -peclet 2 -refactor -expect_view blocks"
  "$ex1 -dll_append $lib -device -problem fields -n 6 -dof 4 -peclet 2 -refactor -refactor_options pc_sfilu_block_sweeps=false"
  "$ex1 -dll_append $lib -device -problem poisson7 -n 6 -permute 7 -refactor -pc_sfilu_block_size 4 -pc_sfilu_factor_match search -refactor_options pc_sfilu_factor_match=map"
  "$ex1 -dll_append $lib -device -problem poisson7 -n 6 -permute 3 -refactor -pc_sfilu_block_size 8 -pc_sfilu_block_sweeps true -expect_view blocks,point-blocks"
  "$ex1 -dll_append $lib -device -problem fields -n 6 -dof 3 -peclet 2 -pc_sfilu_layout hyb -expect_view point-blocks"
  "$ex1 -dll_append $lib -device -problem fields -dim 3 -n 4 -dof 5 -peclet 2 -pc_sfilu_layout csr -refactor -expect_view dense,point-blocks"
  "$ex1 -dll_append $lib -device -problem elasticity -n 3 -refactor -expect_view dense,point-blocks"
  "$ex1 -dll_append $lib -device -problem elasticity -n 3 -pc_sfilu_block_slabs true -expect_view point-blocks"
  "$ex1 -dll_append $lib -device -problem convdiff -n 10 -peclet 5 -hub 7 -pc_sfilu_block_size 2 -pc_sfilu_block_sweeps true -pc_sfilu_block_slabs true -expect_view point-blocks"
  "$ex2 -dll_append $lib -mat_type aijcusparse -problem fields -dim 3 -n 4 -dof 5 -case zeropivot -pc_sfilu_shift_type nonzero"
  "$ex2 -dll_append $lib -mat_type aijcusparse -problem fields -n 5 -dof 4 -case nan"
  "$ex2 -dll_append $lib -mat_type aijcusparse -problem fields -n 5 -dof 4 -case zeropivot -pc_sfilu_shift_type nonzero"
  "$ex4 -mat_type aijcusparse -case random -n 300"
  "$ex4 -mat_type aijcusparse -case rowlengths -triangle upper"
  "$ex4 -mat_type aijcusparse -case random -n 50 -triangle lower -unit 0 -bad nonfinite_reuse"
  "$ex4 -mat_type aijcusparse -case random -n 300 -sfpc_analysis_queue_rows 0"
  "$ex4 -mat_type aijcusparse -case rowlengths -triangle upper -sfpc_analysis_queue_rows 0"
  "$ex4 -mat_type aijcusparse -case problem -problem convdiff -n 6 -values original -mat_hybsf_grid 6,6,6"
  "$ex4 -mat_type aijcusparse -case problem -problem poisson7 -n 7 -values original -auto_grid"
  "$ex4 -mat_type aijcusparse -case problem -problem fields -dim 2 -n 9 -dof 4 -values original -auto_blocks"
  "$ex5 -device -nx 7 -ny 5 -nz 4 -alphas 0,0.92"
  "$ex5 -device -nx 7 -ny 5 -nz 4 -zero_row 100 -alphas 0.92"
  "$ex11 -device -nx 9 -ny 37 -nz 4 -dirichlet"
  "$ex11 -device -nx 5 -ny 7 -nz 3 -d_pc_sfilu_grid_chunk 2"
  "$ex11 -device -nx 6 -ny 35 -nz 5 -d_pc_sfilu_grid_planes 2"
  "$ex11 -device -nx 6 -ny 35 -nz 11 -d_pc_sfilu_grid_planes 8 -dr_pc_sfilu_grid_planes 8"
  "$ex11 -device -nx 9 -ny 7 -nz 4 -dirichlet -nodm -layout auto -fact ilu0"
  "$ex11 -device -nx 6 -ny 35 -nz 11 -dirichlet -ba -d_pc_sfilu_ba_fused true -d_pc_sfilu_grid_planes 8"
  "$ex11 -device -nx 9 -ny 37 -nz 4 -dirichlet -box -corners -fact ilu0 -ba -d_pc_sfilu_ba_fused true"
  "$ex11 -device -nx 5 -ny 37 -nz 33 -box -corners -fact ilu0"
  "$ex2 -dll_append $lib -mat_type aijcusparse -problem poisson27 -n 5 -pc_sfilu_layout grid -pc_sfilu_grid 5,5,5 -case zeropivot -pc_sfilu_shift_type nonzero"
  "$ex2 -dll_append $lib -mat_type aijcusparse -problem poisson27 -n 5 -pc_sfilu_layout grid -pc_sfilu_grid 5,5,5 -case nan"
  "$ex4 -mat_type aijcusparse -case problem -problem poisson27 -n 6 -values original -mat_hybsf_grid 6,6,6"
  "$ex12 -device -n 6 -attach pc -applies -pcs sfilu_hyb,sfilu_grid,sfdilu,afsai"
  "$ex6 -dll_append $lib $dilu -problem convdiff -n 5 -peclet 20 -asymmetric -dilu_pc_sfdilu_coloring jpl"
  "$ex6 -dll_append $lib $dilu -problem convdiff -n 5 -peclet 20 -asymmetric -dilu_pc_sfdilu_coloring jpl -dilu_pc_sfdilu_order local -dilu_pc_sfdilu_local_window 64"
  "$ex6 -dll_append $lib $dilu -problem poisson27 -n 5 -permute 3 -dilu_pc_sfdilu_coloring greedy -dilu_pc_sfdilu_sweep percolor"
  "$ex6 -dll_append $lib $dilu -problem poisson27 -n 5 -permute 3 -dilu_pc_sfdilu_coloring jpl -dilu_pc_sfdilu_layout csr"
  "$ex6 -dll_append $lib $dilu -problem convdiff -n 5 -peclet 20 -dilu_pc_sfdilu_coloring grid -dilu_pc_sfdilu_grid_modulus 3"
  "$ex6 -dll_append $lib $dilu -problem convdiff -n 5 -peclet 20 -noref -dilu_pc_sfdilu_coloring jpl -dilu_pc_sfdilu_omega 0.7 -dilu_pc_sfdilu_warps_per_sm 32"
  "$ex6 -dll_append $lib $dilu -problem convdiff -n 9 -peclet 20 -asymmetric -noref -dilu_pc_sfdilu_coloring jpl -dilu_pc_sfdilu_sweep parts -dilu_pc_sfdilu_omega 0.7"
  "$ex6 -dll_append $lib $dilu -problem poisson27 -n 9 -noref -dilu_pc_sfdilu_coloring jpl -dilu_pc_sfdilu_sweep parts -gamg -gamg_dilu_richardson_ksp_type gmres -gamg_dilu_richardson_pc_type gamg -gamg_dilu_richardson_mg_levels_ksp_type richardson -gamg_dilu_richardson_mg_levels_pc_type sfdilu -gamg_dilu_richardson_mg_levels_pc_sfdilu_sweep parts"
  "$ex6 -dll_append $lib $dilu -problem elasticity -n 6 -noref -dilu_pc_sfdilu_coloring jpl -dilu_pc_sfdilu_sweep parts"
  "$ex6 -dll_append $lib $dilu -problem fields -dim 2 -dof 4 -n 12 -noref -dilu_pc_sfdilu_coloring jpl -dilu_pc_sfdilu_sweep parts -dilu_ksp_view"
  "$ex19 -device -dilu_ksp_type gmres -dilu_pc_sfdilu_blocks -problem elasticity -n 3 -dilu_pc_sfdilu_coloring jpl -dilu_pc_sfdilu_sweep parts"
  "$ex19 -device -dilu_ksp_type gmres -dilu_pc_sfdilu_blocks -problem fields -dim 3 -dof 3 -n 5 -peclet 20 -dilu_pc_sfdilu_sweep syncfree"
  "$ex19 -device -dilu_ksp_type gmres -dilu_pc_sfdilu_blocks -problem elasticity -n 2 -zero"
  "$ex19 -device -dilu_ksp_type gmres -problem elasticity -n 3 -dilu_pc_sfdilu_sweep parts"
  "$ex19 -device -dilu_ksp_type gmres -problem poisson7 -n 4 -block_size 2"
  "$ex14 -dim 3 -n 28 -periodic -auto -dm_mat_type aijcusparse -dm_vec_type cuda"
  "$ex14 -dim 3 -n 9 -dof 2 -dilu_pc_sfdilu_parallel -dm_mat_type aijcusparse -dm_vec_type cuda"
  "$ex14 -dim 2 -n 12 -dof 3 -box -dilu_pc_sfdilu_blocks true -dm_mat_type aijcusparse -dm_vec_type cuda"
  "$ex13 -device -problem convdiff -n 5 -peclet 5 -asymmetric -bicg_ksp_type bicg -bicg_pc_type sfdilu -bicg_pc_sfdilu_coloring jpl -dilu_pc_sfdilu_coloring jpl"
  "$ex13 -device -problem convdiff -n 8 -peclet 5 -asymmetric -bicg_ksp_type bicg -bicg_pc_type sfdilu -bicg_pc_sfdilu_order local -bicg_pc_sfdilu_local_window 64 -dilu_pc_sfdilu_order local -dilu_pc_sfdilu_local_window 64"
  "$ex6 -dll_append $lib $dilu -problem poisson7 -n 5 -zero -dilu_pc_sfdilu_coloring greedy -dilu_pc_sfdilu_shift_type nonzero -dilu_pc_sfdilu_shift_amount 1e-2"
  "$ex13 -device -problem poisson7 -n 5 -zero -bicg_ksp_type bicg -bicg_pc_type sfdilu -bicg_pc_sfdilu_coloring greedy -dilu_pc_sfdilu_coloring greedy"
  "$ex8 -mat_type aijcusparse -problem poisson27 -n 5 -jitter -compare_setup -afsai_pc_afsai_steps 4 -afsai_pc_afsai_step_size 3"
  "$ex8 -mat_type aijcusparse -problem poisson7 -n 6 -jitter -compare_setup -afsai_pc_afsai_steps 8 -afsai_pc_afsai_step_size 2 -afsai_pc_afsai_max_nnz_row 6 -afsai_pc_afsai_filter 0.05"
  "$ex8 -mat_type aijcusparse -problem poisson7 -n 4 -nan_row 37"
  "$ex8 -mat_type aijcusparse -breakdown -afsai_pc_afsai_tol 0.01"
  "$ex8 -mat_type aijcusparse -problem poisson7 -n 5 -reuse -reuse_steps 2"
  "$ex8 -mat_type aijcusparse -problem poisson7 -n 5 -split"
  "$ex9 -mat_type mpiaijcusparse -problem poisson7 -n 6 -gathers 2 -compare_setup"
  "$ex9 -mat_type mpiaijcusparse -problem poisson7 -n 6 -gathers 2 -reuse"
  "$ex16 -problem poisson7 -n 6 -mat_type aijcusparse"
  "$ex1 -dll_append $lib -device -problem random -n 10 -random_seed 3 -random_dominance 0.7 -refactor -pc_sfilu_layout hyb"
  "$ex1 -dll_append $lib -device -problem random -n 10 -random_seed 4 -refactor -pc_sfilu_layout csr -pc_sfilu_levels alap"
  "$ex6 -dll_append $lib $dilu -problem random -n 8 -random_seed 3 -dilu_pc_sfdilu_coloring jpl"
  "$ex8 -mat_type aijcusparse -problem random -random_spd -n 8 -random_seed 3 -compare_setup"
  "$ex6 -dll_append $lib $dilu -problem poisson7 -n 10 -noref -gamg -gamg_dilu_richardson_ksp_type cg -gamg_dilu_richardson_pc_type gamg -gamg_dilu_richardson_mg_levels_ksp_type richardson -gamg_dilu_richardson_mg_levels_pc_type sfdilu"
)
mpicases=(
  "$ex7 -mat_type aijcusparse -n 6 -global -asymmetric -compare_host"
  "$ex7 -mat_type aijcusparse -n 6 -global -nan_row 100"
  "$ex13 -device -problem convdiff -n 6 -peclet 5 -asymmetric -bicg_ksp_type bicg -bicg_pc_type sfdilu -bicg_pc_sfdilu_parallel -dilu_pc_sfdilu_parallel"
  "$ex9 -mat_type mpiaijcusparse -problem poisson7 -n 6 -gathers 2 -compare_setup"
  "$ex9 -mat_type mpiaijcusparse -problem poisson7 -n 6 -gathers 2 -reuse"
  "$ex15 -dll_append $lib -device -problem poisson7 -n 8 -zslabs -steps 3"
)
only=${1:-}
status=0
for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}; do
  for c in "${mpicases[@]}"; do
    [[ -z $only || $c == *"$only"* ]] || continue
    filt=""; [ $tool = racecheck ] && filt="--kernel-name-exclude kns=cusparse" # PETSc's MatMult (GMRES): see below
    out=$(mpiexec -n 2 compute-sanitizer --tool $tool $filt --error-exitcode 9 $c -use_gpu_aware_mpi 0 2>&1); rc=$?
    summary=$(echo "$out" | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | sort | uniq -c | tr -s ' ' | tr '\n' ';')
    printf '%-10s rc=%d np=2 %-40s %s\n' "$tool" $rc "$(echo "$c" | sed 's|build/tests/tests/||')" "$summary"
    [ $rc -eq 0 ] || { status=1; echo "$out" | grep -v "^=========     Host Frame" | head -40; }
  done
done
for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}; do
  for c in "${cases[@]}"; do
    [[ -z $only || $c == *"$only"* ]] || continue
    # racecheck: PETSc's MatMult and GAMG's coarse ILU run cuSPARSE kernels (cusparse*, csrilu02*) whose
    # shared-memory use racecheck flags; check ours only. initcheck: PETSc's own GAMG set-up copies
    # uninitialized host memory (MatAXPY in MatCreateGraph), not ours, so the GAMG case skips it.
    filt=""; [ $tool = racecheck ] && filt="--kernel-name-exclude kns=cusparse --kernel-name-exclude kns=csrilu02"
    [[ $tool == initcheck && $c == *-gamg* ]] && continue
    # (ex8's factor check forms G A G^T on host copies: under initcheck cuSPARSE's SpGEMM reported reads of
    # uninitialized memory inside its own cub scan, cusparseSpGEMM_compute, H100 2026-11-22)
    out=$(compute-sanitizer --tool $tool $filt --error-exitcode 9 $c -use_gpu_aware_mpi 0 2>&1); rc=$?
    summary=$(echo "$out" | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | tail -1)
    printf '%-10s rc=%d %-40s %s\n' "$tool" $rc "$(echo "$c" | sed 's/-dll_append [^ ]* //; s|build/tests/tests/||')" "$summary"
    [ $rc -eq 0 ] || { status=1; echo "$out" | grep -v "^=========     Host Frame" | head -40; }
  done
done
exit $status
