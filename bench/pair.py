#!/usr/bin/env python3
"""Back-to-back timing of two programs of one `bench/run.sh runtime` run,
interleaved: the same model written two ways (glacier_sections with array
syntax, glacier_loops with DO loops) should cost the same.

Reuses the executables the run left in its work directory and runs, REPS
times, in turn: the original, -m f, -m rs and -m rj of program A, then the
same of program B. Every driver prints its own best-of CPU time; this
prints the best over the repetitions, R_t = f / original, R_a = rs (or rj)
/ original, and per leg the time of A over the time of B. Interleaving
puts both programs under the same load, which a shared machine changes
from minute to minute.

    bench/pair.py WORK PROGRAM_A PROGRAM_B [REPS]
"""
import os
import subprocess
import sys

LEGS = ["orig", "f", "rs", "rj"]


def leg_dir(root, prog, mode):
    d = os.path.join(root, prog)
    return [os.path.join(d, x) for x in sorted(os.listdir(d)) if x.startswith(mode + "-n")][0]


def cpu_time(d):
    out = subprocess.run([os.path.join(d, "driver")], cwd=d, capture_output=True,
                         text=True, timeout=600).stdout
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "TIME":
            return float(f[1])
    raise SystemExit(f"{d}: driver printed no TIME")


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    work, progs = sys.argv[1], sys.argv[2:4]
    reps = int(sys.argv[4]) if len(sys.argv) > 4 else 7
    best = {(p, m): float("inf") for p in progs for m in LEGS}
    for _ in range(reps):
        for p in progs:
            for m in LEGS:
                best[(p, m)] = min(best[(p, m)], cpu_time(leg_dir(work, p, m)))
    a, b = progs
    print(f"best CPU time over {reps} interleaved repetitions (each itself a best of 3)\n")
    print(f"| leg | {a} [s] | R {a} | {b} [s] | R {b} | {a} / {b} |")
    print("|---|---|---|---|---|---|")
    for m in LEGS:
        ta, tb = best[(a, m)], best[(b, m)]
        ra, rb = ta / best[(a, "orig")], tb / best[(b, "orig")]
        print(f"| {m} | {ta:.4f} | {ra:.2f} | {tb:.4f} | {rb:.2f} | {ta / tb:.3f} |")


if __name__ == "__main__":
    main()
