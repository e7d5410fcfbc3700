#!/usr/bin/env python3
"""Table of bench/scaling.c's JSON records: per series, problem family and configuration, the time per
iteration, iterations and set-up on each number of ranks, and the parallel efficiency against one rank
(weak: t_iter(1) / t_iter(p); strong and strong-boxes: t_iter(1) / (p * t_iter(p)), with the 1-rank run of
the same problem, size and configuration from another series closest in time)."""
import json, sys
from datetime import datetime

recs = [json.loads(l) for f in sys.argv[1:] for l in open(f) if l.strip()]
def family(r): return r["case"].split()[0] + (" " + r["case"].split(", ")[1] if ", " in r["case"] else "")
rows = {}
for r in recs:
    rows.setdefault((r["series"], family(r), r["config"]), {})[r["ranks"]] = r
one = {}
for r in recs:
    if r["ranks"] == 1: one.setdefault((family(r), r["rows"], r["config"]), []).append(r)
def nearest(cands, r): # the 1-rank run closest in time to r: the same day's kernels
    t = lambda x: datetime.fromisoformat(x["date"].replace("Z", "+00:00")).timestamp()
    return min(cands, key=lambda c: abs(t(c) - t(r))) if cands else None
print(f"{'series':7} {'problem':16} {'config':14} {'ranks':>5} {'rows/rank':>10} {'setup s':>8} {'its':>4} {'ms/it':>8} {'eff':>6}  reason")
for (series, fam, config), byp in sorted(rows.items()):
    for p in sorted(byp):
        r = byp[p]
        base = byp.get(1) if not series.startswith("strong") else nearest(one.get((fam, r["rows"], config)), r)
        eff = ""
        if base and base["iteration_s"] > 0 and r["iteration_s"] > 0:
            e = base["iteration_s"] / r["iteration_s"] / (p if series.startswith("strong") else 1)
            eff = f"{100 * e:5.0f}%"
        print(f"{series:7} {fam:16} {config:14} {p:5d} {r['rows'] / p:10.3g} {r['setup_s']:8.2f} {r['its']:4d} {1e3 * r['iteration_s']:8.3f} {eff:>6}  {r['reason']}")
