#!/usr/bin/env python3
"""
Experiment (bench/README.md, sfdilu, "Where a solve by parts spends its time"): reads the timelines that a library built
with bench/experiments/parts-trace.patch writes, and prints per file the kernel's phases (medians over the blocks), the
slices' times, and per step (color) when its slices start and end. Not part of the library. The patch applies to
src/mat/hybsf/partsweep.cu as of commits 2446cc2 and 36e1f36; with it, every fifth solve by parts writes its timeline (%globaltimer,
32 ns steps) to the file named by SFPC_PARTS_TRACE:
  git apply bench/experiments/parts-trace.patch && make lib          # then restore the file and rebuild for normal use
  SFPC_PARTS_TRACE=$OUT/p7-128.bin bench/gpu-run build/bench/dilu -problem poisson7 -n 128 -repeat 10 -parts
  python3 bench/experiments/parts-trace.py p7-128.bin                 # on any machine with numpy
File: five ints (parts, steps, slices, warps a block, rows a part), the slice offsets of each (part, step) group (parts
x steps + 1 ints), then 8 uint64 a block (start, gather done, L sweep done, U sweep done, end) and a (start, end) pair
a slice, the L sweep's slices first.
"""
import struct
import sys

import numpy as np


def report(path):
    data = open(path, "rb").read()
    nparts, nsteps, nslices, warps, rows = struct.unpack("5i", data[:20])
    off = 20
    sstart = np.frombuffer(data, np.int32, nparts * nsteps + 1, off)
    off += 4 * (nparts * nsteps + 1)
    t = np.frombuffer(data, np.uint64, 8 * nparts + 4 * nslices, off).astype(np.int64)
    ev = t[: 8 * nparts].reshape(nparts, 8)
    t0 = ev[:, 0].min()
    ev = ev - t0
    sl = t[8 * nparts :].reshape(2, nslices, 2) - t0
    print(f"== {path}: {nparts} parts of {rows} rows, {nsteps} steps, {nslices / nparts:.0f} slices a part and sweep, {warps} warps a block")
    print(f"kernel {ev[:, 4].max() / 1e3:.1f} us; blocks started within {ev[:, 0].max() / 1e3:.2f} us")
    for name, a, b in (("gather", 0, 1), ("L sweep", 1, 2), ("U sweep", 2, 3), ("scatter", 3, 4)):
        d = ev[:, b] - ev[:, a]
        print(f"  {name:8s} {np.median(d) / 1e3:7.2f} us (blocks {d.min() / 1e3:.2f}-{d.max() / 1e3:.2f}), done at {np.median(ev[:, b]) / 1e3:.2f} us")
    step = np.empty(nslices, int)
    part = np.empty(nslices, int)
    for g in range(nparts * nsteps):
        step[sstart[g] : sstart[g + 1]] = g % nsteps
        part[sstart[g] : sstart[g + 1]] = g // nsteps
    for sweep, name in ((0, "L"), (1, "U")):
        start, end = sl[sweep, :, 0], sl[sweep, :, 1]
        d = end - start
        print(f" {name} sweep: a slice {np.median(d) / 1e3:.2f} us (median; p90 {np.percentile(d, 90) / 1e3:.2f}), {nslices / nparts / warps:.1f} slices a warp")
        print("   step  slices a part  first start  last end (median over parts, us)  a slice (median)")
        for k in range(nsteps):
            m = step == k
            if not m.any():
                continue
            ends = [end[m & (part == p)].max() for p in range(nparts) if (m & (part == p)).any()]
            starts = [start[m & (part == p)].min() for p in range(nparts) if (m & (part == p)).any()]
            print(f"   {k:4d} {m.sum() / nparts:14.1f} {np.median(starts) / 1e3:12.2f} {np.median(ends) / 1e3:10.2f} {np.median(d[m]) / 1e3:28.2f}")


for f in sys.argv[1:]:
    report(f)
