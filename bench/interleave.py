#!/usr/bin/env python3
"""Back-to-back timing of two builds' adjoint legs, interleaved.

Reuses the executables that two `bench/run.sh runtime` runs left in their
work directories (one per build, e.g. BENCH_WORK=/tmp/bench-before and
/tmp/bench-after) and runs them in turn, REPS times each: per program the
original (from the first directory), then rs and rj of each build. Every
driver prints its own best-of CPU time; this prints the best over the
repetitions and R = that time / the original's. Interleaving puts both
builds under the same load, which a shared machine changes from minute
to minute (docs/benchmarks.md, 23 Nov 2026).

    bench/interleave.py BEFORE_WORK AFTER_WORK [REPS] [PROGRAM...]
"""
import os
import subprocess
import sys

PROGRAMS = ["burgers1d", "heat2d", "shallow_water", "tracer2d", "chembox", "hllflux"]


def leg_dir(root, prog, mode):
    d = os.path.join(root, prog)
    return [os.path.join(d, x) for x in sorted(os.listdir(d)) if x.startswith(mode + "-n")][0]


def run(d):
    out = subprocess.run([os.path.join(d, "driver")], cwd=d, capture_output=True,
                         text=True, timeout=600).stdout
    r = {}
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "TIME":
            r["T"] = float(f[1])
        elif f and f[0] == "SPLIT":
            r["F"], r["R"] = float(f[1]), float(f[2])
    return r


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    before, after = sys.argv[1], sys.argv[2]
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    progs = sys.argv[4:] or PROGRAMS
    legs = [("orig", before, "orig"), ("rs before", before, "rs"), ("rs after", after, "rs"),
            ("rj before", before, "rj"), ("rj after", after, "rj")]
    print("| program | original CPU [s] | R_a rs before | R_a rs after | fwd + rev before | fwd + rev after | R_a rj before | R_a rj after | load |")
    print("|---|---|---|---|---|---|---|---|---|")
    for p in progs:
        best = {}
        for _ in range(reps):
            for name, root, mode in legs:
                for key, v in run(leg_dir(root, p, mode)).items():
                    best[(name, key)] = min(v, best.get((name, key), v))
        o = best[("orig", "T")]
        r = {n: best[(n, "T")] / o for n, _, _ in legs[1:]}
        split = {n: f"{best[(n, 'F')]:.4f} + {best[(n, 'R')]:.4f}" for n in ("rs before", "rs after")}
        load = open("/proc/loadavg").read().split()[0]
        print(f"| {p} | {o:.4f} | {r['rs before']:.2f} | {r['rs after']:.2f} | {split['rs before']} | "
              f"{split['rs after']} | {r['rj before']:.2f} | {r['rj after']:.2f} | {load} |", flush=True)


if __name__ == "__main__":
    main()
