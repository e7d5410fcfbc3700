#!/usr/bin/env python3
"""The longest dependency chain of a multicolor DILU forward sweep, for a matrix in PETSc's binary format.

A row waits only for its neighbours of lower colors, so a sweep's chain is the longest path through those
dependencies, which can be shorter than the number of colors. The coloring is JPL-like (random priorities; in each
round the uncolored rows that beat all their uncolored neighbours take color 2r, those beaten by all take 2r + 1),
as SFPC's JPL is, but with numpy's random priorities, not SFPC's hash: the counts are representative, not SFPC's own.
    build/bench/repeat -host -problem elasticity -n 40 -solves 1 -ksp_max_it 1 -pc_type none -ksp_view_mat binary:A.bin
    python3 bench/experiments/dilu-chain.py A.bin [SEED]
Needs numpy.
"""
import sys
import numpy as np

with open(sys.argv[1], 'rb') as f:
    _, M, _, nnz = np.frombuffer(f.read(16), '>i4')
    lengths = np.frombuffer(f.read(4 * M), '>i4').astype(np.int64)
    cols = np.frombuffer(f.read(4 * nnz), '>i4').astype(np.int64)
rows = np.repeat(np.arange(M), lengths)
R, C = rows[cols != rows], cols[cols != rows]
R, C = np.concatenate([R, C]), np.concatenate([C, R])  # the symmetrized pattern, as the coloring sees it
o = np.lexsort((C, R))
R, C = R[o], C[o]
keep = np.ones(len(R), bool)
keep[1:] = (R[1:] != R[:-1]) | (C[1:] != C[:-1])
R, C = R[keep], C[keep]
start = np.searchsorted(R, np.arange(M + 1))
nonempty = start[1:] > start[:-1]

prio = np.random.default_rng(int(sys.argv[2]) if len(sys.argv) > 2 else 1).permutation(M).astype(np.float64)
color = np.full(M, -1)
r = 0
while (color < 0).any():
    unc = color < 0
    hi = np.full(M, -np.inf)
    lo = np.full(M, np.inf)
    hi[nonempty] = np.maximum.reduceat(np.where(unc, prio, -np.inf)[C], start[:-1][nonempty])
    lo[nonempty] = np.minimum.reduceat(np.where(unc, prio, np.inf)[C], start[:-1][nonempty])
    top = unc & (prio > hi)
    color[top] = 2 * r
    color[unc & ~top & (prio < lo)] = 2 * r + 1
    r += 1
_, color = np.unique(color, return_inverse=True)
ncolors = color.max() + 1

level = np.zeros(M, np.int64)  # level[i]: rows on the longest chain ending at row i
order = np.argsort(color, kind='stable')
cstart = np.searchsorted(color[order], np.arange(ncolors + 1))
for c in range(ncolors):
    rs = order[cstart[c]:cstart[c + 1]]
    n = start[rs + 1] - start[rs]
    first = np.repeat(np.cumsum(n) - n, n)
    nbrs = C[np.repeat(start[rs], n) + np.arange(n.sum()) - first]
    best = np.zeros(len(rs), np.int64)
    np.maximum.at(best, np.repeat(np.arange(len(rs)), n), np.where(color[nbrs] < c, level[nbrs], 0))
    level[rs] = best + 1
rowsat = np.bincount(level)
print(f"{M} rows, {ncolors} colors: longest forward chain {level.max()} rows (mean level {level.mean():.1f}); "
      f"rows at chain levels 1-5: {rowsat[1:6].tolist()}, at the last 5: {rowsat[-5:].tolist()}")
