#!/usr/bin/env python3
"""Back-to-back timing of two builds' tangent legs, interleaved: the
`-m f` counterpart of bench/interleave.py.

Reuses the executables that two `bench/run.sh runtime` runs left in their
work directories and runs, REPS times in turn per program, the original
(from the first directory) and the `f` leg of each build. Every driver
prints its own best-of CPU time; this prints the best over the
repetitions and R_t = that time / the original's.

    bench/interleave_tangent.py BEFORE_WORK AFTER_WORK [REPS] PROGRAM...
"""
import os
import subprocess
import sys


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
    if len(sys.argv) < 5:
        raise SystemExit(__doc__)
    before, after, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
    print("| program | original CPU [s] | R_t before | R_t after |")
    print("|---|---|---|---|")
    for prog in sys.argv[4:]:
        orig = f_before = f_after = float("inf")
        for _ in range(reps):
            orig = min(orig, cpu_time(leg_dir(before, prog, "orig")))
            f_before = min(f_before, cpu_time(leg_dir(before, prog, "f")))
            f_after = min(f_after, cpu_time(leg_dir(after, prog, "f")))
        print(f"| {prog} | {orig:.4f} | {f_before / orig:.2f} | {f_after / orig:.2f} |", flush=True)


if __name__ == "__main__":
    main()
