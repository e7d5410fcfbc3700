#!/usr/bin/env python3
"""Summary of the triangular-solve benchmark (bench/trisolve.c, bench/run-trisolve.sh).

    python3 bench/trisolve-summary.py [--compact] [--all] FILE.json [FILE.json ...]

Reads the JSON records (one per line: case x triangle x method), prints a table per case, then the
suite statistics and the targets of the MATHYBSF issue, each MET or MISSED with its number. One
sample is one triangle (L or U) of one case. The targets are judged over the matrices of 10^4 rows
or more (the issue's range); --all judges over every matrix, the small SuiteSparse ones included.
"auto" is what MatCreateHYBSF() picks by itself (what a user gets); "best" is the fastest of the
five SFPC variants on that sample, chosen after the fact (a bound, not something a user can pick
without measuring). Files from several GPUs are summarized per GPU.

The last section applies issue 3's floor to every triangle: a solve takes at least the larger of its
bytes (BYTES_SPMV of the triangle's own SpMV: a solve reads each value once, 8 of the 12 bytes a CSR
SpMV reads per entry, and the vectors) and its longest dependency chain times one hand-over between
warps (HOP_US, the fastest hop measured on an H200 and quoted in issue 3). The chain is the ASAP level
count in rows, divided by the point-block size where auto sweeps by point-blocks (a block's rows are
handed over together). cusparseSpSV's time over that floor is the most any solve can gain on the
triangle; its median bounds the suite's median speedup.
"""
import json
import statistics
import sys

VARIANTS = ["sfpc-csr-asap", "sfpc-csr-alap", "sfpc-hyb-asap", "sfpc-hyb-alap", "sfpc-auto"]
BASE = "cusparse-spsv"
SHORT_ROWS = 8.0  # mean off-diagonal entries per row of the triangle at most this: "short rows"
HOP_US = 0.52     # one hand-over between warps, published value as the flag (issue 3, H200)
BYTES_SPMV = 8.0 / 12.0  # the bytes floor of a solve, in SpMVs of the same triangle


def load(paths):
    """{gpu: {(case, triangle): {method: record}}}, the latest record winning on repeats."""
    runs = {}
    for path in paths:
        try:
            f = open(path)
        except OSError as e:
            sys.exit(f"trisolve-summary: {e}")
        with f:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    r = json.loads(line)
                except json.JSONDecodeError as e:
                    sys.exit(f"{path}:{n}: not JSON ({e})")
                if r.get("benchmark") != "trisolve":
                    continue
                key = (r["case"], r["triangle"])
                slot = runs.setdefault(r["gpu"], {}).setdefault(key, {})
                old = slot.get(r["method"])
                if old is None or r["date"] >= old["date"]:
                    slot[r["method"]] = r
    return runs


def a_n(r, n, prefix=""):
    """analysis + n solves (ms)"""
    return r[prefix + "analysis_ms"] + n * r[prefix + "solve_ms"]


def stats(xs):
    return (statistics.median(xs), min(xs), max(xs)) if xs else (float("nan"),) * 3


def fmt3(xs, unit="x"):
    if not xs:
        return "no samples"
    med, lo, hi = stats(xs)
    return f"median {med:7.2f}{unit}   min {lo:7.2f}{unit}   max {hi:7.2f}{unit}   ({len(xs)} samples)"


def chose(r):
    """What a SFPC method resolved to: layout/levels, or blocks<bs>/levels where its sweep went by point-blocks."""
    if not r.get("layout"):
        return ""
    bs = r.get("block_size") or 1
    return f"{'blocks' + str(bs) if bs > 1 else r['layout']}/{r['levels']}"


def case_table(case, tris):
    first = next(iter(next(iter(tris.values())).values()))
    print(f"\n{case}: {first['rows']} rows, {first['nnz']} nonzeros, {first['offdiag_per_row_A']:.2f} off-diagonal per row")
    print(f"  {'tri':3} {'method':14} {'chose':9} {'nlev':>6} {'ntasks':>8} {'analysis ms':>11} {'solve ms':>10} {'x solve':>8} {'x a+10':>7} {'x a+100':>7} {'solve/SpMV':>10} {'rel.err':>9}")
    for tri in ("L", "U"):
        ms = tris.get((case, tri), {})
        for name in [BASE] + VARIANTS:
            r = ms.get(name)
            if r is None:
                continue
            nlev = r["nlevels"] if r.get("nlevels") is not None else ""
            ntasks = r["ntasks"] if r.get("ntasks") is not None else ""
            wrong = "" if r.get("correct", True) else "  WRONG"
            print(f"  {tri:3} {name:14} {chose(r):9} {nlev:>6} {ntasks:>8} {r['analysis_ms']:11.3f} {r['solve_ms']:10.4f} {r['speedup_solve']:8.2f} {r['speedup_a10']:7.2f} {r['speedup_a100']:7.2f} {r['solve_over_spmv']:10.2f} {r['relerr']:9.2e}{wrong}")


def compact_line(key, ms):
    base, auto = ms[BASE], ms["sfpc-auto"]
    best = min((ms[v] for v in VARIANTS if v in ms), key=lambda r: r["solve_ms"])
    print(f"  {key[0]:30} {key[1]} {base['rows']:>9} {base['tri_offdiag_per_row']:6.2f} {base['solve_ms']:10.4f} "
          f"{auto['speedup_solve']:7.2f} {chose(auto):9} {best['speedup_solve']:7.2f} {best['method']:14} "
          f"{auto['speedup_a10']:7.2f} {auto['solve_over_spmv']:7.2f}")


def verdict(ok):
    return "MET" if ok else "MISSED"


def floor_ms(ms):
    """Issue 3's floor of one triangle's solve (ms) and which bound sets it."""
    base, auto = ms[BASE], ms["sfpc-auto"]
    chain = ms["sfpc-csr-asap"]["nlevels"] / (auto.get("block_size") or 1)
    latency, volume = chain * HOP_US * 1e-3, BYTES_SPMV * base["spmv_ms"]
    return (latency, "chain") if latency >= volume else (volume, "bytes")


def floor_section(samples, ks):
    caps, room, inspmv, bound = [], [], [], {"chain": 0, "bytes": 0}
    for k in ks:
        f, why = floor_ms(samples[k])
        bound[why] += 1
        caps.append(samples[k][BASE]["solve_ms"] / f)
        room.append(samples[k]["sfpc-auto"]["solve_ms"] / f)
        inspmv.append(f / samples[k][BASE]["spmv_ms"])
    med_cap, med_in = stats(caps)[0], stats(inspmv)[0]
    print(f"\n--- the floor (issue 3: max(bytes {BYTES_SPMV:.2f} SpMV, chain x {HOP_US} us)), {len(ks)} triangles: chain-bound {bound['chain']}, bytes-bound {bound['bytes']} ---")
    print(f"cusparseSpSV / floor, the most a solve can gain: {fmt3(caps)}; under 5x on {sum(c < 5 for c in caps)} triangles")
    print(f"auto solve / floor:                              {fmt3(room)}")
    print(f"floor / SpMV of the same triangle:               {fmt3(inspmv, ' SpMV')}; above 2.5 on {sum(x > 2.5 for x in inspmv)} triangles")
    print(f"a median speedup of 5x is {'within' if med_cap >= 5 else 'beyond'} the floor (median {med_cap:.2f}x); "
          f"a median solve of 2.5 SpMVs is {'within' if med_in <= 2.5 else 'beyond'} it (median floor {med_in:.2f} SpMVs)")


def summarize(gpu, samples, judge_all, compact):
    keys = sorted(samples, key=lambda k: (samples[k][BASE]["rows"] if BASE in samples[k] else 0, k))
    wrong = [(k, m) for k in keys for m, r in samples[k].items() if not r.get("correct", True)]
    # a wrong solve's time means nothing: its triangle is left out of the statistics, and listed
    complete = [k for k in keys if BASE in samples[k] and all(v in samples[k] for v in VARIANTS) and k not in {w[0] for w in wrong}]
    partial = [k for k in keys if BASE not in samples[k] or not all(v in samples[k] for v in VARIANTS)]
    print(f"=== {gpu}: {len(set(k[0] for k in keys))} cases, {len(keys)} triangles ===")
    if compact:
        print(f"  {'case':30} T {'rows':>9} {'off/row':>6} {'cuSP ms':>10} {'x auto':>7} {'auto':9} {'x best':>7} {'best':14} {'a+10':>7} {'S/SpMV':>7}")
        for k in complete:
            compact_line(k, samples[k])
    else:
        for case in dict.fromkeys(k[0] for k in keys):
            case_table(case, {k: samples[k] for k in keys if k[0] == case})
    if partial:
        print(f"\nincomplete (a method missing, left out of the statistics): {', '.join(f'{c} {t}' for c, t in partial)}")
    if wrong:
        print(f"WRONG solves (rel.err or backward error above 1e-8; their triangles are left out of the statistics): {', '.join(f'{c} {t} {m}' for (c, t), m in wrong)}")

    def group(ks):
        auto = [samples[k]["sfpc-auto"] for k in ks]
        base = [samples[k][BASE] for k in ks]
        best_solve = [min((samples[k][v] for v in VARIANTS), key=lambda r: r["solve_ms"]) for k in ks]
        g = {"n": len(ks)}
        g["solve_auto"] = [r["speedup_solve"] for r in auto]
        g["solve_best"] = [r["speedup_solve"] for r in best_solve]
        for n in (10, 100):
            best_n = [min((samples[k][v] for v in VARIANTS), key=lambda r: a_n(r, n)) for k in ks]
            g[f"a{n}_auto_total"] = sum(a_n(r, n) for r in base) / sum(a_n(r, n) for r in auto) if ks else float("nan")
            g[f"a{n}_best_total"] = sum(a_n(r, n) for r in base) / sum(a_n(r, n) for r in best_n) if ks else float("nan")
            g[f"a{n}_auto"] = [r[f"speedup_a{n}"] for r in auto]
        short = [k for k in ks if samples[k][BASE]["tri_offdiag_per_row"] <= SHORT_ROWS]
        g["nshort"] = len(short)
        g["hyb_over_csr"] = [min(samples[k]["sfpc-csr-asap"]["solve_ms"], samples[k]["sfpc-csr-alap"]["solve_ms"]) /
                             min(samples[k]["sfpc-hyb-asap"]["solve_ms"], samples[k]["sfpc-hyb-alap"]["solve_ms"]) for k in short]
        g["spmv_auto"] = [r["solve_over_spmv"] for r in auto]
        g["spmv_best"] = [r["solve_over_spmv"] for r in best_solve]
        g["spmv_cusparse"] = [r["solve_over_spmv"] for r in base]
        return g

    inrange = [k for k in complete if samples[k][BASE]["rows"] >= 10000]
    small = [k for k in complete if k not in inrange]
    judged = complete if judge_all else inrange
    for label, ks in (("matrices of 10^4 rows or more", inrange), ("matrices under 10^4 rows (SuiteSparse)", small)):
        if not ks:
            continue
        g = group(ks)
        print(f"\n--- suite statistics, {label}: {len(set(k[0] for k in ks))} cases, {len(ks)} triangles ---")
        print(f"solve alone, speedup vs cusparseSpSV   auto: {fmt3(g['solve_auto'])}")
        print(f"                                       best: {fmt3(g['solve_best'])}")
        for n in (10, 100):
            print(f"analysis + {n:3} solves, suite total     auto: {g[f'a{n}_auto_total']:6.2f}x   best: {g[f'a{n}_best_total']:6.2f}x   "
                  f"(per triangle, auto: {fmt3(g[f'a{n}_auto'])})")
        print(f"hyb over csr (csr solve / hyb solve, best levels each), triangles with <= {SHORT_ROWS:g} off-diagonal entries per row: {fmt3(g['hyb_over_csr'])}")
        print(f"solve time / SpMV time of the same triangle   auto: {fmt3(g['spmv_auto'], ' SpMV')}")
        print(f"                                              best: {fmt3(g['spmv_best'], ' SpMV')}")
        print(f"                                      cusparseSpSV: {fmt3(g['spmv_cusparse'], ' SpMV')}")

    g = group(judged)
    if not judged:
        print("\nno complete samples to judge the targets on")
        return
    med_auto, min_auto, _ = stats(g["solve_auto"])
    med_best, min_best, _ = stats(g["solve_best"])
    med_hc = stats(g["hyb_over_csr"])[0]
    med_sp_auto, med_sp_best = stats(g["spmv_auto"])[0], stats(g["spmv_best"])[0]
    scope = "all matrices" if judge_all else "matrices of 10^4 rows or more"
    print(f"\n--- targets ({scope}, {len(judged)} triangles; auto decides, best for reference) ---")
    print(f"solve alone median >= 5x:       {verdict(med_auto >= 5)} auto {med_auto:.2f}x   (best {med_best:.2f}x {verdict(med_best >= 5)})")
    print(f"solve alone min >= 0.9x:        {verdict(min_auto >= 0.9)} auto {min_auto:.2f}x   (best {min_best:.2f}x {verdict(min_best >= 0.9)})")
    print(f"analysis+10 total >= 3x:        {verdict(g['a10_auto_total'] >= 3)} auto {g['a10_auto_total']:.2f}x   (best {g['a10_best_total']:.2f}x {verdict(g['a10_best_total'] >= 3)})")
    print(f"hyb/csr median >= 1.2x, short rows: {verdict(med_hc >= 1.2)} {med_hc:.2f}x over {g['nshort']} triangles (csr time / hyb time)")
    print(f"median solve <= 2.5 SpMV:       {verdict(med_sp_auto <= 2.5)} auto {med_sp_auto:.2f}   (best {med_sp_best:.2f} {verdict(med_sp_best <= 2.5)})")
    print(f"(analysis+100 total, for information: auto {g['a100_auto_total']:.2f}x, best {g['a100_best_total']:.2f}x)")
    floor_section(samples, judged)


def main(argv):
    flags = {a for a in argv if a.startswith("--")}
    paths = [a for a in argv if not a.startswith("--")]
    if not paths or flags - {"--compact", "--all", "--help"} or "--help" in flags:
        print(__doc__.strip())
        return 0 if "--help" in flags else 2
    runs = load(paths)
    if not runs:
        print("no trisolve records in " + ", ".join(paths))
        return 1
    for gpu, samples in runs.items():
        summarize(gpu, samples, "--all" in flags, "--compact" in flags)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
