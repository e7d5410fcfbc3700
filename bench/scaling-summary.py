#!/usr/bin/env python3
"""Table of bench/scaling.c's JSON records: per series, problem family and configuration, the time per
iteration, iterations and set-up on each number of ranks, and the parallel efficiency against one rank
(weak: t_iter(1) / t_iter(p); strong: t_iter(1) / (p * t_iter(p)), with the 1-rank run of the weak
series at the same size when the strong series has none)."""
import json, sys

recs = [json.loads(l) for f in sys.argv[1:] for l in open(f) if l.strip()]
def family(r): return r["case"].split()[0] + (" " + r["case"].split(", ")[1] if ", " in r["case"] else "")
rows = {}
for r in recs:
    rows.setdefault((r["series"], family(r), r["config"]), {})[r["ranks"]] = r
one = {(family(r), r["rows"], r["config"]): r for r in recs if r["ranks"] == 1}
print(f"{'series':7} {'problem':16} {'config':14} {'ranks':>5} {'rows/rank':>10} {'setup s':>8} {'its':>4} {'ms/it':>8} {'eff':>6}  reason")
for (series, fam, config), byp in sorted(rows.items()):
    for p in sorted(byp):
        r = byp[p]
        base = byp.get(1) if series != "strong" else one.get((fam, r["rows"], config))
        eff = ""
        if base and base["iteration_s"] > 0 and r["iteration_s"] > 0:
            e = base["iteration_s"] / r["iteration_s"] / (p if series == "strong" else 1)
            eff = f"{100 * e:5.0f}%"
        print(f"{series:7} {fam:16} {config:14} {p:5d} {r['rows'] / p:10.3g} {r['setup_s']:8.2f} {r['its']:4d} {1e3 * r['iteration_s']:8.3f} {eff:>6}  {r['reason']}")
