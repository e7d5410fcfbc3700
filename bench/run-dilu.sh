#!/usr/bin/env bash
# The sfdilu smoother benchmark, on the GPU host: bench/gpu-run bash bench/run-dilu.sh [quick|order|transpose|coloring|coloring-guess|warps|layout|parts|crossing]
# Writes one JSON record per case and metric to bench/results/sfdilu-<gpu>.json (copied to $OUT
# when set) and prints the side-by-side tables (sync-free sweeps against the per-color variant).
# order: the sync-free sweeps in color and in local order (-pc_sfdilu_order) on 7-point Poisson from
# 128^3 to 256^3, to bench/results/sfdilu-order-<gpu>.json (about 4 minutes).
# transpose: a few cases of the suite (every case records the transposed apply), to
# bench/results/sfdilu-transpose-<gpu>.json (about 2 minutes).
# coloring: the grid coloring (-pc_sfdilu_coloring grid, moduli 2 and 3) against JPL in the same process, apply and
# GMRES(100) with sfdilu to 1e-8, to bench/results/sfdilu-coloring-<gpu>.json. coloring-guess: the same, modulus 3,
# with the grid read off 27-point and 2-D 5-point patterns (no DMDA), to bench/results/sfdilu-coloring-guess-<gpu>.json.
# warps: the sync-free sweeps with 4 to 64 warps per SM (-pc_sfdilu_warps_per_sm) on the suite's cases under 10^6 rows
# and one of 2*10^6, to bench/results/sfdilu-warps-<gpu>.json, and a table of the sync-free apply (about 2 minutes).
# layout: the sync-free sweeps in the hyb and csr layouts (-pc_sfdilu_layout) at 2.6*10^5-2*10^6 rows, to
# bench/results/sfdilu-layout-<gpu>.json, and a table of the sync-free apply.
# parts: the suite with the solves by parts (-pc_sfdilu_sweep parts) as a third variant, to
# bench/results/sfdilu-parts-<gpu>.json, and a table against the sync-free and per-color sweeps.
# crossing: the solves by parts against the sync-free sweeps where a part holds 250-2000 rows, on 2-D and 3-D
# multi-field grids, the driven cavity, 3-D grids and Q1 elasticity, with what auto takes and how it lays the parts out, to
# bench/results/sfdilu-crossing-<gpu>.json, and a table (bench/README.md, "Which matrices the parts pay on").
set -eu
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z ' 'a-z-')
out=bench/results/sfdilu-$gpu.json
[ "${1:-}" = order ] && out=bench/results/sfdilu-order-$gpu.json
[ "${1:-}" = transpose ] && out=bench/results/sfdilu-transpose-$gpu.json
[ "${1:-}" = coloring ] && out=bench/results/sfdilu-coloring-$gpu.json
[ "${1:-}" = warps ] && out=bench/results/sfdilu-warps-$gpu.json
[ "${1:-}" = layout ] && out=bench/results/sfdilu-layout-$gpu.json
[ "${1:-}" = parts ] && out=bench/results/sfdilu-parts-$gpu.json
[ "${1:-}" = crossing ] && out=bench/results/sfdilu-crossing-$gpu.json
[ "${1:-}" = coloring-guess ] && out=bench/results/sfdilu-coloring-guess-$gpu.json
mkdir -p bench/results; : > "$out"
b=build/bench/dilu
run() { echo "+ $b $*"; local t0=$SECONDS; $b -json "$out" "$@"; echo "  ($((SECONDS - t0)) s)"; [ -z "${takes:-}" ] || takes "$@"; }
# with takes set (a file): what -pc_sfdilu_sweep auto takes on run's case, from -ksp_view of one PC set-up, as "case sweep",
# and with takes_layout set also how the solves by parts lay out their parts there (boxes or ranges), as a third word
takes() {
  local name= args=() col=jpl sweep layout=
  while [ $# -gt 0 ]; do
    case $1 in
      -case) name=$2; shift 2 ;;
      -coloring) col=$2; shift 2 ;;
      -repeat) shift 2 ;;
      -gamg | -parts) shift ;;
      *) args+=("$1"); shift ;;
    esac
  done
  view() { build/bench/repeat "${args[@]}" -solves 1 -ksp_max_it 1 -pc_type sfdilu -pc_sfdilu_coloring "$col" -ksp_view "$@"; }
  sweep=$(view | grep -o -E 'GPU sweeps: [a-z-]+' | cut -d' ' -f3)
  [ -z "${takes_layout:-}" ] || layout=$(view -pc_sfdilu_sweep parts | grep -o -E 'boxes of the grid|ranges of consecutive rows' | tr ' ' '-')
  echo "$name $sweep $layout" >> "$takes"
}
finish() { [ -n "${OUT:-}" ] && cp "$out" "$OUT/"; exit 0; } # the records back from a device run
if [ "${1:-}" = order ]; then
  for n in 128 144 160 182 200 256; do
    for o in color local; do run -case poisson7-$n-$o -problem poisson7 -n $n -order $o -repeat 5 -warmup 1; done
  done
  finish
fi
if [ "${1:-}" = coloring ]; then # the grid coloring (moduli 2, 3) against JPL: sync-free apply, GMRES(100) iterations and time
  for p in "poisson7-128:-problem poisson7 -n 128" "convdiff-128-pe100:-problem convdiff -n 128 -peclet 100" "aniso-128:-problem anisotropic -n 128 -aniso 0.001"; do
    for m in 2 3; do run -case ${p%%:*}-grid$m ${p#*:} -coloring grid -pc_sfdilu_grid_modulus $m -versus jpl -repeat 10; done
  done
  run -case poisson7-256-grid2 -problem poisson7 -n 256 -coloring grid -pc_sfdilu_grid_modulus 2 -versus jpl -repeat 5 -warmup 1
  finish
fi
# One option of the sync-free sweeps over values (the first: the default's), each case and value in its own process:
# sweep_option OPTION "VALUES" CASE... (CASE: name:arguments); prints the sync-free apply (us) by value.
sweep_option() {
  local opt=$1 vals=$2 p v; shift 2
  for p in "$@"; do
    for v in $vals; do run -case "${p%%:*}/$v" ${p#*:} -pc_sfdilu_$opt $v > /dev/null; done
  done
  python3 - "$out" "$opt" $vals <<'PY'
import json, sys, collections
opt, vals = sys.argv[2], sys.argv[3:]
t = collections.defaultdict(dict)
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["metric"] != "apply_s": continue
    case, v = r["case"].rsplit("/", 1)
    t[case][v] = (r["sfpc"], r["baseline"])
print(f"sync-free apply, us, by -pc_sfdilu_{opt} ({vals[0]}: the default); per-color apply of the default's run")
print(f"{'case':22s}" + "".join(f"{v:>9s}" for v in vals) + f"{'per-color':>11s}")
for case, d in t.items():
    print(f"{case:22s}" + "".join(f"{1e6 * d[v][0]:9.1f}" if v in d else f"{'-':>9s}" for v in vals) + f"{1e6 * d[vals[0]][1]:11.1f}")
PY
}
if [ "${1:-}" = coloring-guess ]; then # the grid coloring of a grid read off the pattern (no DMDA) against JPL: 27-point and 2-D 5-point grids
  for p in "poisson27-64:-problem poisson27 -n 64" "poisson27-128:-problem poisson27 -n 128 -repeat 10" \
    "fields2d-1-512-pe10:-problem fields -dim 2 -dof 1 -n 512 -peclet 10" "fields2d-1-724-pe10:-problem fields -dim 2 -dof 1 -n 724 -peclet 10"; do
    run -case ${p%%:*} ${p#*:} -coloring grid -versus jpl
  done
  finish
fi
if [ "${1:-}" = warps ]; then
  build/tests/petsc-tutorials/ex19 -da_grid_x 256 -da_grid_y 256 -snes_max_it 1 -ksp_max_it 1 -pc_type none -ksp_view_mat binary:/tmp/sfpc-cavity256.bin > /dev/null 2>&1
  sweep_option warps_per_sm "-1 4 8 16 32 64" "poisson7-32:-problem poisson7 -n 32" "poisson7-64:-problem poisson7 -n 64" "poisson27-64:-problem poisson27 -n 64" \
    "convdiff-64-pe20:-problem convdiff -n 64 -peclet 20" "poisson7-64-permuted:-problem poisson7 -n 64 -permute 1" \
    "elasticity-40:-problem elasticity -n 40 -repeat 10" "ex19-cavity-256:-problem file -f /tmp/sfpc-cavity256.bin -repeat 10" \
    "poisson7-128:-problem poisson7 -n 128 -repeat 10"
  finish
fi
if [ "${1:-}" = layout ]; then
  sweep_option layout "auto hyb csr" "poisson7-64:-problem poisson7 -n 64" "poisson27-64:-problem poisson27 -n 64" \
    "poisson7-128:-problem poisson7 -n 128 -repeat 10" "poisson27-128:-problem poisson27 -n 128 -repeat 10" \
    "convdiff-128-pe100:-problem convdiff -n 128 -peclet 100 -repeat 10" "elasticity-64:-problem elasticity -n 64 -repeat 10"
  finish
fi
if [ "${1:-}" = transpose ]; then
  run -case poisson7-128 -problem poisson7 -n 128 -repeat 10
  run -case convdiff-128-pe100 -problem convdiff -n 128 -peclet 100 -repeat 10
  run -case poisson27-128 -problem poisson27 -n 128 -repeat 10
  run -case poisson7-64-permuted -problem poisson7 -n 64 -permute 1
  run -case poisson7-256 -problem poisson7 -n 256 -repeat 5 -warmup 1
  finish
fi
# The suite, each case with the arguments given. GAMG's coarse levels are small: the smoother at 32^3 and 64^3 as well as 128^3
suite() {
  run -case poisson7-32 -problem poisson7 -n 32 "$@"
  run -case poisson7-64 -problem poisson7 -n 64 -gamg "$@"
  run -case poisson7-128 -problem poisson7 -n 128 -repeat 10 "$@"
  run -case poisson7-128-greedy -problem poisson7 -n 128 -repeat 10 -coloring greedy "$@"
  run -case poisson27-64 -problem poisson27 -n 64 "$@"
  run -case poisson27-128 -problem poisson27 -n 128 -repeat 10 "$@"
  run -case aniso-128 -problem anisotropic -n 128 -aniso 0.001 -repeat 10 "$@"
  run -case convdiff-64-pe20 -problem convdiff -n 64 -peclet 20 -gamg "$@"
  run -case convdiff-128-pe100 -problem convdiff -n 128 -peclet 100 -repeat 10 "$@"
  run -case poisson7-64-permuted -problem poisson7 -n 64 -permute 1 "$@"
  run -case poisson27-64-permuted -problem poisson27 -n 64 -permute 1 "$@"
  # Q1 elasticity as PETSc's KSP ex56 (3 dof a node, 81 entries a row): 2*10^5 and 8*10^5 rows
  run -case elasticity-40 -problem elasticity -n 40 -repeat 10 "$@"
  run -case elasticity-64 -problem elasticity -n 64 -repeat 10 "$@"
  # the driven cavity of PETSc's SNES ex19 (4 fields): its first Newton Jacobian
  build/tests/petsc-tutorials/ex19 -da_grid_x 256 -da_grid_y 256 -snes_max_it 1 -ksp_max_it 1 -pc_type none -ksp_view_mat binary:/tmp/sfpc-cavity256.bin > /dev/null 2>&1
  run -case ex19-cavity-256 -problem file -f /tmp/sfpc-cavity256.bin -repeat 10 "$@"
}
if [ "${1:-}" = crossing ]; then # parts against sync-free at 250-2000 rows a part, about where auto changes from one to the other
  takes=/tmp/sfpc-crossing.txt takes_layout=1; : > "$takes"
  build/tests/petsc-tutorials/ex19 -da_grid_x 256 -da_grid_y 256 -snes_max_it 1 -ksp_max_it 1 -pc_type none -ksp_view_mat binary:/tmp/sfpc-cavity256.bin > /dev/null 2>&1
  for p in "ex19-cavity-256:-problem file -f /tmp/sfpc-cavity256.bin" "fields2d-4-256:-problem fields -dim 2 -dof 4 -n 256" \
    "fields2d-4-362:-problem fields -dim 2 -dof 4 -n 362" "fields2d-3-300:-problem fields -dim 2 -dof 3 -n 300" \
    "fields2d-2-362:-problem fields -dim 2 -dof 2 -n 362" "fields2d-1-512:-problem fields -dim 2 -dof 1 -n 512" \
    "fields2d-1-724:-problem fields -dim 2 -dof 1 -n 724" "fields2d-4-200:-problem fields -dim 2 -dof 4 -n 200" \
    "fields3d-4-40:-problem fields -dim 3 -dof 4 -n 40" "poisson7-64:-problem poisson7 -n 64" "poisson27-64:-problem poisson27 -n 64" \
    "fields2d-1-300:-problem fields -dim 2 -dof 1 -n 300" "fields2d-2-200:-problem fields -dim 2 -dof 2 -n 200" \
    "poisson7-40:-problem poisson7 -n 40" "poisson7-48:-problem poisson7 -n 48" "poisson7-48-permuted:-problem poisson7 -n 48 -permute 1" \
    "poisson27-40:-problem poisson27 -n 40" "elasticity-24:-problem elasticity -n 24"; do
    run -case "${p%%:*}" ${p#*:} -parts -repeat 10 > /dev/null
  done
  python3 - "$out" "$takes" <<'PY'
import json, sys
rows = {}
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["metric"] == "apply_s": rows.setdefault(r["case"], {})[r["benchmark"]] = r
auto = {l.split()[0]: l for l in open(sys.argv[2])}
print(f"{'case':18s}{'rows':>9s}{'colors':>7s}{'parts':>28s}{'sync-free us':>13s}{'parts us':>10s}{'sf/parts':>9s}{'auto takes':>11s}")
for case, d in rows.items():
    a, b, l = d["sfdilu"], d["sfdilu-parts"], auto.get(case, "").split()
    print(f"{case:18s}{a['rows']:9d}{a['colors']:7d}{l[2] if len(l) > 2 else '?':>28s}{1e6 * a['sfpc']:13.1f}{1e6 * b['sfpc']:10.1f}{a['sfpc'] / b['sfpc']:9.2f}{l[1] if len(l) > 1 else '?':>11s}")
PY
  finish
fi
if [ "${1:-}" = parts ]; then # the solves by parts beside the sync-free and per-color sweeps, and a table
  takes=/tmp/sfpc-takes.txt; : > "$takes"
  suite -parts
  python3 - "$out" "$takes" <<'PY'
import json, statistics, sys
rows = {}
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["metric"] == "apply_s": rows.setdefault(r["case"], {})[r["benchmark"]] = r
auto = dict(l.split() for l in open(sys.argv[2]) if len(l.split()) == 2)
print(f"{'case':24s}{'rows':>9s}{'colors':>7s}{'per-color us':>13s}{'sync-free us':>13s}{'parts us':>10s}{'pc/sf':>7s}{'pc/parts':>9s}{'auto takes':>11s}{'pc/auto':>8s}{'SpMVs':>7s}")
sf, pa, au, within = [], [], [], 0
for case, d in rows.items():
    a, b = d["sfdilu"], d["sfdilu-parts"]
    t = auto.get(case, "?")
    c = b if t == "parts" else a  # the record of the sweeps auto takes (their time, the same per-color baseline)
    sf.append(a["ratio"]); pa.append(b["ratio"]); au.append(c["ratio"]); within += c["sfpc"] / c["spmv_s"] <= 2.5
    print(f"{case:24s}{a['rows']:9d}{a['colors']:7d}{1e6 * a['baseline']:13.1f}{1e6 * a['sfpc']:13.1f}{1e6 * b['sfpc']:10.1f}{a['ratio']:7.2f}{b['ratio']:9.2f}{t:>11s}{c['ratio']:8.2f}{c['sfpc'] / c['spmv_s']:7.2f}")
print(f"mean per-color/sync-free {statistics.mean(sf):.2f}, per-color/parts {statistics.mean(pa):.2f}")
print(f"with auto: mean per-color/auto {statistics.mean(au):.2f}, median {statistics.median(au):.2f}, {min(au):.2f}-{max(au):.2f}, {within} of {len(au)} within 2.5 SpMVs")
PY
  finish
fi
suite
[ "${1:-}" = quick ] || run -case poisson7-256 -problem poisson7 -n 256 -repeat 5 -warmup 1
finish
