#!/usr/bin/env python3
"""MPI benchmark (docs/benchmarks.md, "MPI programs").

For each program of bench/programs/mpi_*/head.f90 and each process count
(1, 2, 4), times the original `head` and its tangent (-m f; -m fv with
one direction per independent seeded, 4) and adjoint (-m rs, one forward
and one reverse sweep; -m rj too) at the same count,
and counts the bytes each version hands to MPI send operations, summed
over the ranks. Ratios: R_t = t(f) / t(original), R_a = t(rs) / t(original);
volume = bytes(derivative code) / bytes(original).

Time: the smallest of --reps calls of the whole `head` (all sweeps for the
adjoint), each the slowest rank's (MPI_Wtime around the call, reduced
with mpi_max after a barrier). Bytes: an LD_PRELOAD library
(bench/mpi_count_bytes.c) interposes the PMPI send entry points that
OpenMPI's Fortran bindings call and adds up count x type size of what
this rank sends (point-to-point sends to a real peer; for collectives
what this rank contributes), printed at MPI_Finalize; the program is
called once for this count.

    OPENAD_BIN_DIR=$PWD/target/release python3 bench/mpi_bench.py [--reps 5] [--procs 1 2 4]
        [--modes f fv rs rj] [--programs mpi_halo2d]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "bench" / "programs"
MPIRUN = ["mpirun", "--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])

TIMER = """
module bench_timer
  use mpi
  implicit none
contains
  ! The slowest rank's time since t0.
  double precision function slowest(t0)
    double precision, intent(in) :: t0
    double precision :: mine
    integer :: ierr
    mine = mpi_wtime() - t0
    call mpi_allreduce(mine, slowest, 1, mpi_double_precision, mpi_max, mpi_comm_world, ierr)
  end function slowest
end module bench_timer
"""

# {decl}: declarations of x, y; {call}: one evaluation; {reset}: before it.
DRIVER = """
program bench_driver
  use mpi
  use bench_timer
{uses}
  implicit none
  integer, parameter :: nx = {nx}, ny = {ny}
{decl}
  double precision :: x0(nx), best, t0, t
  integer :: rep, reps, ierr, rank
  character(len=16) :: arg
  call mpi_init(ierr)
  call mpi_comm_rank(mpi_comm_world, rank, ierr)
  call get_command_argument(1, arg)
  read(arg, *) reps
  x0 = (/ {x0} /)
  best = huge(1.0d0)
  do rep = 1, reps
{reset}
    call mpi_barrier(mpi_comm_world, ierr)
    t0 = mpi_wtime()
{call}
    t = slowest(t0)
    best = min(best, t)
  end do
  if (rank == 0) write(*, '(a,es14.6)') 'TIME ', best
{check}
  call mpi_finalize(ierr)
contains
{contains}
end program bench_driver
"""

SET_REV_MODE = """
  subroutine set_rev_mode(plain, tape, adjoint)
    logical, intent(in) :: plain, tape, adjoint
    our_rev_mode%arg_store = .false.
    our_rev_mode%arg_restore = .false.
    our_rev_mode%res_store = .false.
    our_rev_mode%res_restore = .false.
    our_rev_mode%plain = plain
    our_rev_mode%tape = tape
    our_rev_mode%adjoint = adjoint
  end subroutine set_rev_mode
"""


def driver(mode, nx, ny, x0):
    x0_text = ", ".join(f"{v:.17g}d0" for v in x0)
    if mode == "orig":
        return DRIVER.format(
            uses="", nx=nx, ny=ny, x0=x0_text,
            decl="  double precision :: x(nx), y(ny)",
            reset="    x = x0\n    y = 0",
            call="    call head(x, y)",
            check="  if (rank == 0) write(*, '(a,es24.16)') 'Y1 ', y(1)",
            contains="",
        )
    tangent = mode in ("f", "fv")
    uses = "  use OAD_active" if tangent else "  use OAD_active\n  use OAD_rev\n  use OAD_tape"
    reset = "    x%v = x0\n    x%d = 1.0d0\n    y%v = 0\n    y%d = 0"
    if mode == "fv":
        # direction i seeds x(i): the Jacobian in one call
        reset = ("    do rep_i = 1, nx\n      x(rep_i)%v = x0(rep_i)\n      x(rep_i)%d = 0\n"
                 "      x(rep_i)%d(rep_i) = 1.0d0\n    end do\n"
                 "    do rep_i = 1, ny\n      y(rep_i)%v = 0\n      y(rep_i)%d = 0\n    end do")
    if tangent:
        call = "    call head(x, y)"
    elif mode == "rs":
        reset = "    x%v = x0\n    x%d = 0\n    y%v = 0\n    y%d = 0"
        call = ("    call set_rev_mode(.false., .true., .false.)\n    call head(x, y)\n"
                "    y%d = 1.0d0\n    call set_rev_mode(.false., .false., .true.)\n    call head(x, y)")
    else:  # rj: the top routine taped and reversed in one call
        reset = "    x%v = x0\n    x%d = 0\n    y%v = 0\n    y%d = 1.0d0"
        call = "    call set_rev_mode(.false., .true., .true.)\n    call head(x, y)"
    return DRIVER.format(
        uses=uses, nx=nx, ny=ny, x0=x0_text,
        decl="  type(active) :: x(nx), y(ny)\n  integer :: rep_i",
        reset=reset, call=call,
        check="  if (rank == 0) write(*, '(a,es24.16)') 'Y1 ', y(1)%v",
        contains="" if tangent else SET_REV_MODE,
    )


def run(cmd, cwd, env=None):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))}: {r.stderr.strip()[:400]}")
    return r


def build(program, mode, work, bindir):
    leg = work / program.name / mode
    shutil.rmtree(leg, ignore_errors=True)
    leg.mkdir(parents=True)
    src = program / "head.f90"
    sources = [str(src)]
    if mode != "orig":
        run([str(bindir / "openad"), "-m", mode, "-o", "out", str(src)], leg)
        sources = [str(leg / "out" / s) for s in (leg / "out" / "SOURCES").read_text().split()]
    (leg / "timer.f90").write_text(TIMER)
    (leg / "driver.f90").write_text(driver(mode, 4, 3, [0.7, 0.4, 0.9, 0.5]))
    run(["mpif90", "-O2", "-o", "bench", "timer.f90", *sources, "driver.f90"], leg)
    return leg


def measure(leg, procs, reps, shim):
    out = run(MPIRUN + ["-np", str(procs), "./bench", str(reps)], leg).stdout
    seconds = float(re.search(r"TIME\s+(\S+)", out).group(1))
    env = dict(os.environ, LD_PRELOAD=str(shim))
    counted = run(MPIRUN + ["-np", str(procs), "-x", "LD_PRELOAD", "./bench", "1"], leg, env)
    sent = sum(int(m) for m in re.findall(r"MPI_BYTES_SENT \d+ (\d+)", counted.stderr))
    return seconds, sent


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--procs", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--modes", nargs="+", default=["f", "fv", "rs", "rj"])
    ap.add_argument("--programs", nargs="+", default=None)
    args = ap.parse_args()
    bindir = Path(os.environ.get("OPENAD_BIN_DIR", ROOT / "target" / "release"))
    work = Path(os.environ.get("BENCH_WORK", "/tmp/openad-bench")) / "mpi"
    work.mkdir(parents=True, exist_ok=True)
    shim = work / "libmpi_count_bytes.so"
    run(["mpicc", "-O2", "-shared", "-fPIC", "-o", str(shim),
         str(ROOT / "bench" / "mpi_count_bytes.c"), "-ldl"], work)
    programs = sorted(p for p in PROGRAMS.glob("mpi_*") if (p / "head.f90").exists())
    if args.programs:
        programs = [p for p in programs if p.name in args.programs]
    lines = ["| program | procs | original (s) | original bytes sent | "
             + " | ".join(f"R {m} | bytes {m} / orig" for m in args.modes) + " |",
             "|---|---|---|---|" + "---|---|" * len(args.modes)]
    for program in programs:
        legs = {}
        for mode in ["orig"] + args.modes:
            try:
                legs[mode] = build(program, mode, work, bindir)
            except RuntimeError as e:
                print(f"{program.name} {mode}: {e}", file=sys.stderr)
        for procs in args.procs:
            row = {}
            for mode, leg in legs.items():
                try:
                    row[mode] = measure(leg, procs, args.reps, shim)
                except (RuntimeError, AttributeError) as e:
                    print(f"{program.name} {mode} np{procs}: {e}", file=sys.stderr)
            if "orig" not in row:
                continue
            t0, b0 = row["orig"]
            cells = [program.name, str(procs), f"{t0:.4f}", str(b0)]
            for m in args.modes:
                if m in row:
                    t, b = row[m]
                    cells += [f"{t / t0:.2f}", f"{b / b0:.2f}" if b0 else "-"]
                else:
                    cells += ["fail", "fail"]
            lines.append("| " + " | ".join(cells) + " |")
            print(lines[-1], flush=True)
    print("\n".join(lines))
    (work / "results.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
