#!/usr/bin/env python3
"""Benchmarks of openad: run-time ratios of the generated code, tape sizes,
tool throughput and elimination operation counts.

Not a test: it prints tables (and writes them to WORK/results.md). Every
failing leg is a row with the first line of its error. See
docs/benchmarks.md for what the figures mean; bench/run.sh is the entry
point (it builds the tool first).

Sections (default: all):
  runtime     R_t = tangent / original, R_a = adjoint (split: taping sweep +
              reverse sweep) / original, joint adjoint, peak tape bytes;
              each derivative spot-checked against a central finite
              difference of the original (directional, <w, J xdot>)
  steps       tape bytes and adjoint time against the number of time steps
  checkpoint  binomial checkpointing of a 10,000-step time loop
              (bench/programs/nldiffusion, `!$openad CHECKPOINT BINOMIAL`):
              peak tape + snapshot bytes, plain iterations recomputed
              (against the optimum r*l - C(S+r, S+1)) and R_a for
              S = 10, 20, 50 snapshots and without the pragma, all legs
              timed interleaved in one run (not part of the default run)
  throughput  openad -m f and -m rs on generated programs, per stage wall time,
              CPU time and peak RSS, against gfortran -O0 -c of the same source
  elim        xaif-booster --stats over the XAIF of tests/examples, per
              elimination method / heuristic
"""

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")

# The benchmark programs: head(x, y) with x(nx), y(ny); the line tagged
# `! bench-size` sets the grid size, the line `nsteps = N` the time steps.
PROGRAMS = [
    dict(name="burgers1d", src="tests/bench/burgers1d/head.f90", nx=3, ny=2,
         x0=[0.5, 0.1, 0.001], size=200000, points=lambda n: n),
    dict(name="heat2d", src="tests/bench/heat2d/head.f90", nx=3, ny=2,
         x0=[1.0, 50.0, 0.5], size=316, points=lambda n: n * n),
    dict(name="shallow_water", src="tests/bench/shallow_water/head.f90", nx=3, ny=3,
         x0=[0.2, 0.1, 0.01], size=200000, points=lambda n: n),
    dict(name="tracer2d", src="bench/programs/tracer2d/head.f90", nx=4, ny=2,
         x0=[1.0, 1.0, 2.0, 0.01], size=300, points=lambda n: n * n),
    # tracer2d with its state in derived types (issue 10): should cost the same
    dict(name="tracer2d_derived", src="bench/programs/tracer2d_derived/head.f90", nx=4, ny=2,
         x0=[1.0, 1.0, 2.0, 0.01], size=300, points=lambda n: n * n),
    # compute-bound: one long straight-line block per cell (chemistry)
    dict(name="chembox", src="bench/programs/chembox/head.f90", nx=4, ny=2,
         x0=[1.0, 1.0, 0.5, 0.2], size=5000, points=lambda n: n),
    # compute-bound: one straight-line HLL flux block per face (gas dynamics)
    dict(name="hllflux", src="bench/programs/hllflux/head.f90", nx=4, ny=2,
         x0=[0.2, 0.3, 1.0, 1.4], size=100000, points=lambda n: n),
    # call tree three deep per face in a time loop (joint mode, issue 11)
    dict(name="flux_tree", src="bench/programs/flux_tree/head.f90", nx=3, ny=2,
         x0=[1.0, 0.2, 0.05], size=20000, points=lambda n: n),
    # Picard iteration around a matrix-free CG solve (call tree in loops)
    dict(name="picard_cg", src="bench/programs/picard_cg/head.f90", nx=3, ny=2,
         x0=[0.5, 4.0, 0.2], size=400, points=lambda n: n),
    # time levels of a 2-D array updated with array syntax (issue 11 part 3)
    # and the same model with DO loops: the two should cost the same
    dict(name="glacier_sections", src="bench/programs/glacier_sections/head.f90", nx=3, ny=2,
         x0=[0.01, 0.4, 1.0], size=100000, points=lambda n: n),
    dict(name="glacier_loops", src="bench/programs/glacier_loops/head.f90", nx=3, ny=2,
         x0=[0.01, 0.4, 1.0], size=100000, points=lambda n: n),
    # a periodic model in array syntax (cshift, where, maxval, sum with mask)
    # and with DO loops (issue 10 item 4): the two should cost the same
    dict(name="glacier_periodic_array", src="bench/programs/glacier_periodic_array/head.f90",
         nx=3, ny=2, x0=[0.01, 0.4, 1.0], size=100000, points=lambda n: n),
    dict(name="glacier_periodic_loops", src="bench/programs/glacier_periodic_loops/head.f90",
         nx=3, ny=2, x0=[0.01, 0.4, 1.0], size=100000, points=lambda n: n),
    # the constructs of issue 10, each with a twin in plain arrays and DO
    # loops (same arithmetic): where/elsewhere clipping, an array-valued
    # user function, associate on derived-type state, array constructors
    # with reshape/matmul/spread/dot_product, pointers to array columns
    dict(name="clip_where", src="bench/programs/clip_where/head.f90", nx=3, ny=2,
         x0=[0.5, 1.0, 1.2], size=400, points=lambda n: n * n),
    dict(name="clip_loops", src="bench/programs/clip_loops/head.f90", nx=3, ny=2,
         x0=[0.5, 1.0, 1.2], size=400, points=lambda n: n * n),
    dict(name="lapfun_array", src="bench/programs/lapfun_array/head.f90", nx=3, ny=2,
         x0=[0.8, 0.5, 1.0], size=400, points=lambda n: n * n),
    dict(name="lapfun_loops", src="bench/programs/lapfun_loops/head.f90", nx=3, ny=2,
         x0=[0.8, 0.5, 1.0], size=400, points=lambda n: n * n),
    dict(name="assoc_derived", src="bench/programs/assoc_derived/head.f90", nx=3, ny=2,
         x0=[1.0, 1.0, 0.5], size=400, points=lambda n: n * n),
    dict(name="assoc_plain", src="bench/programs/assoc_plain/head.f90", nx=3, ny=2,
         x0=[1.0, 1.0, 0.5], size=400, points=lambda n: n * n),
    dict(name="column_intrinsics", src="bench/programs/column_intrinsics/head.f90", nx=3, ny=2,
         x0=[0.5, 0.2, 1.0], size=40000, points=lambda n: 8 * n),
    dict(name="column_loops", src="bench/programs/column_loops/head.f90", nx=3, ny=2,
         x0=[0.5, 0.2, 1.0], size=40000, points=lambda n: 8 * n),
    dict(name="layers_pointer", src="bench/programs/layers_pointer/head.f90", nx=3, ny=2,
         x0=[0.5, 1.0, 1.0], size=100000, points=lambda n: 4 * n),
    dict(name="layers_plain", src="bench/programs/layers_plain/head.f90", nx=3, ny=2,
         x0=[0.5, 1.0, 1.0], size=100000, points=lambda n: 4 * n),
]

NREP = 3            # best of NREP inside one driver run
FD_STEP = 1e-6      # central difference step along xdot (xdot ~ |x0|)
FD_TOL = 1e-5       # AD vs FD relative agreement called "ok"
RUN_TIMEOUT = 300   # seconds per program run / tool run
# address-space limit for every child (shared machine); BENCH_MEM_LIMIT_GB
MEM_LIMIT = int(float(os.environ.get("BENCH_MEM_LIMIT_GB", "6")) * (1 << 30))


# --------------------------------------------------------------------------
# helpers

def load():
    try:
        return open("/proc/loadavg").read().split()[0]
    except OSError:
        return "?"


def limit_child():
    resource.setrlimit(resource.RLIMIT_AS, (MEM_LIMIT, MEM_LIMIT))


class Failure(Exception):
    pass


def first_line(text):
    for line in text.splitlines():
        if line.strip():
            # gfortran: location first, message on a later `Error:` line
            if "Error:" not in line:
                for l2 in text.splitlines():
                    if l2.strip().startswith("Error:"):
                        return (line.strip() + " " + l2.strip())[:160]
            return line.strip()[:160]
    return "(no message)"


def run(cmd, what, cwd=None, timeout=RUN_TIMEOUT):
    """Runs cmd; returns (stdout, seconds wall, peak RSS bytes); raises Failure."""
    t0 = time.perf_counter()
    try:
        p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, preexec_fn=limit_child)
    except OSError as e:
        raise Failure(f"{what}: cannot start: {e}")
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise Failure(f"{what}: timed out after {timeout}s")
    wall = time.perf_counter() - t0
    # peak RSS of this child: wait4 already reaped by communicate, so use
    # the ru_maxrss of all children (a max, good enough for one child at a time)
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    if p.returncode != 0:
        raise Failure(f"{what}: {first_line(err + out)} (exit {p.returncode})")
    return out, wall, rss


def run_rusage(cmd, what, cwd=None, timeout=RUN_TIMEOUT):
    """Like run, with the child's own CPU time and peak RSS (os.wait4)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         preexec_fn=limit_child)
    deadline = t0 + timeout
    # drain pipes in threads so big stderr does not block the child
    import threading
    bufs = {"out": b"", "err": b""}

    def drain(name, f):
        bufs[name] = f.read()
    th = [threading.Thread(target=drain, args=("out", p.stdout)),
          threading.Thread(target=drain, args=("err", p.stderr))]
    for t in th:
        t.start()
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            p.kill()
            os.wait4(p.pid, 0)
            for t in th:
                t.join()
            raise Failure(f"{what}: timed out after {timeout}s")
        time.sleep(0.01)
    p.returncode = os.waitstatus_to_exitcode(status)
    for t in th:
        t.join()
    wall = time.perf_counter() - t0
    out = bufs["out"].decode(errors="replace")
    err = bufs["err"].decode(errors="replace")
    if p.returncode != 0:
        raise Failure(f"{what}: {first_line(err + out)} (exit {p.returncode})")
    return dict(out=out, err=err, wall=wall, cpu=ru.ru_utime + ru.ru_stime,
                rss=ru.ru_maxrss * 1024)


def resized(text, size=None, steps=None):
    lines = []
    for line in text.splitlines():
        if size is not None and "! bench-size" in line:
            line = re.sub(r"=\s*\d+", f"= {size}", line, count=1)
        if steps is not None and re.search(r"\bnsteps\s*=\s*\d+", line, re.I):
            line = re.sub(r"(\bnsteps\s*=\s*)\d+", rf"\g<1>{steps}", line, count=1, flags=re.I)
        lines.append(line)
    return "\n".join(lines) + "\n"


def split_top(s):
    """Splits s at commas outside parentheses."""
    parts, depth, cur = [], 0, ""
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def static_arrays(text):
    """The program with its allocatable arrays turned into explicit-shape
    local arrays (shapes from the allocate statement; allocate and
    deallocate dropped). A workaround variant for adjoint legs."""
    shapes = {}
    for m in re.finditer(r"^\s*allocate\s*\((.*)\)\s*$", text, re.M | re.I):
        for item in split_top(m.group(1)):
            name = item.split("(", 1)[0].strip().lower()
            shapes[name] = item[len(name):].strip()
    out = []
    for line in text.splitlines():
        low = line.strip().lower()
        if re.match(r"(de)?allocate\s*\(", low):
            continue
        if "allocatable" in low and "::" in line:
            decl, names = line.split("::", 1)
            decl = re.sub(r",\s*allocatable", "", decl, flags=re.I)
            items = []
            for item in split_top(names):
                name = item.split("(", 1)[0].strip().lower()
                items.append(name + shapes.get(name, item[len(name):]))
            line = decl + ":: " + ", ".join(items)
        out.append(line)
    return "\n".join(out) + "\n"


def flit(v):
    return repr(float(v)).replace("e", "d") if "e" in repr(float(v)) else repr(float(v)) + "d0"


# --------------------------------------------------------------------------
# drivers (one program per leg; the same timing loop for every mode)

def driver(prog, mode):
    nx, ny = prog["nx"], prog["ny"]
    x0 = ", ".join(flit(v) for v in prog["x0"])
    uses = {"orig": "", "f": "  use OAD_active\n",
            "rs": "  use OAD_active\n  use OAD_rev\n  use OAD_tape\n",
            "rj": "  use OAD_active\n  use OAD_rev\n  use OAD_tape\n"}[mode]
    xy = ("  double precision :: x(nx), y(ny), yp(ny), ym(ny)\n" if mode == "orig"
          else "  type(active) :: x(nx), y(ny)\n")
    head = f"""program bench_driver
{uses}  implicit none
  integer, parameter :: nx = {nx}, ny = {ny}
{xy}  double precision :: x0(nx), xdot(nx), w(ny), yv(ny), best, tf, tr, bestf, bestr, c0, c1, c2, c3, bestw, bestwarm, warmf, warmr
  integer(8) :: t0, t1, t2, t3, rate, bytes
  integer, parameter :: NREP = {NREP}
  integer :: rep, i
  x0 = (/ {x0} /)
  do i = 1, nx
    xdot(i) = abs(x0(i)) * (1.0d0 + 0.3d0 * i)
  end do
  do i = 1, ny
    w(i) = 1.0d0 / i
  end do
  call system_clock(count_rate=rate)
  best = huge(1.0d0)
  bestf = 0.0d0
  bestr = 0.0d0
  bytes = -1
  bestwarm = huge(1.0d0)
  warmf = 0.0d0
  warmr = 0.0d0
  do rep = 1, {2 * NREP if mode in ("rs", "rj") else NREP}
"""
    if mode == "orig":
        body = f"""    x = x0
    call system_clock(t0)
    call cpu_time(c0)
    call head(x, y)
    call system_clock(t1)
    call cpu_time(c1)
    if (c1 - c0 < best) then
      best = c1 - c0
      bestw = dble(t1 - t0) / dble(rate)
    end if
  end do
  yv = y
  x = x0 + {flit(FD_STEP)} * xdot
  call head(x, yp)
  x = x0 - {flit(FD_STEP)} * xdot
  call head(x, ym)
  print '(a,es24.16)', 'DS ', sum(w * (yp - ym)) / (2.0d0 * {flit(FD_STEP)})
"""
    elif mode == "f":
        body = """    x%v = x0
    x%d = xdot
    y%d = 0.0d0
    call system_clock(t0)
    call cpu_time(c0)
    call head(x, y)
    call system_clock(t1)
    call cpu_time(c1)
    if (c1 - c0 < best) then
      best = c1 - c0
      bestw = dble(t1 - t0) / dble(rate)
    end if
  end do
  yv = y%v
  print '(a,es24.16)', 'DS ', sum(w * y%d)
"""
    elif mode == "rs":
        body = """    x%v = x0
    x%d = 0.0d0
    y%d = 0.0d0
    ! cold: a fresh tape (tape_init) every evaluation; warm: the tape memory
    ! of the previous evaluation is reused (the reverse sweep emptied it)
    if (rep <= NREP) call tape_init()
    our_rev_mode%arg_store = .false.
    our_rev_mode%arg_restore = .false.
    our_rev_mode%res_store = .false.
    our_rev_mode%res_restore = .false.
    our_rev_mode%plain = .false.
    our_rev_mode%adjoint = .false.
    our_rev_mode%tape = .true.
    call system_clock(t0)
    call cpu_time(c0)
    call head(x, y)
    call system_clock(t1)
    call cpu_time(c1)
    bytes = oad_tape_bytes()
    if (rep == 1) print '(a,3i14)', 'ENTRIES ', oad_dt_ptr - 1, oad_it_ptr - 1, oad_lt_ptr - 1
    yv = y%v
    y%d = w
    our_rev_mode%tape = .false.
    our_rev_mode%adjoint = .true.
    call system_clock(t2)
    call cpu_time(c2)
    call head(x, y)
    call system_clock(t3)
    call cpu_time(c3)
    tf = c1 - c0
    tr = c3 - c2
    if (rep <= NREP .and. tf + tr < best) then
      best = tf + tr
      bestw = dble(t1 - t0 + t3 - t2) / dble(rate)
      bestf = tf
      bestr = tr
    else if (rep > NREP .and. tf + tr < bestwarm) then
      bestwarm = tf + tr
      warmf = tf
      warmr = tr
    end if
    if (rep == 1) print '(a,i18)', 'LEFT ', oad_tape_bytes()
  end do
  print '(a,es24.16)', 'DS ', sum(xdot * x%d)
"""
    else:  # rj
        body = """    x%v = x0
    x%d = 0.0d0
    y%d = w
    if (rep <= NREP) call tape_init()
    our_rev_mode%arg_store = .false.
    our_rev_mode%arg_restore = .false.
    our_rev_mode%res_store = .false.
    our_rev_mode%res_restore = .false.
    our_rev_mode%plain = .false.
    our_rev_mode%adjoint = .true.
    our_rev_mode%tape = .true.
    call system_clock(t0)
    call cpu_time(c0)
    call head(x, y)
    call system_clock(t1)
    call cpu_time(c1)
    if (rep <= NREP .and. c1 - c0 < best) then
      best = c1 - c0
      bestw = dble(t1 - t0) / dble(rate)
    else if (rep > NREP .and. c1 - c0 < bestwarm) then
      bestwarm = c1 - c0
    end if
    if (rep == 1) print '(a,i18)', 'LEFT ', oad_tape_bytes()
    yv = y%v
  end do
  print '(a,es24.16)', 'DS ', sum(xdot * x%d)
"""
    tail = """  print '(a,es14.6)', 'TIME ', best
  print '(a,es14.6)', 'WALL ', bestw
  print '(a,2es14.6)', 'SPLIT ', bestf, bestr
{warm}  print '(a,i18)', 'BYTES ', bytes
  print '(a,100es24.16)', 'Y ', yv
end program bench_driver
"""
    warm = ("  print '(a,3es14.6)', 'WARM ', bestwarm, warmf, warmr\n"
            if mode in ("rs", "rj") else "")
    return head + body + tail.replace("{warm}", warm)


def parse(out):
    r = {}
    for line in out.splitlines():
        parts = line.split()
        if not parts:
            continue
        key, vals = parts[0], parts[1:]
        if key in ("TIME", "DS", "WALL"):
            r[key] = float(vals[0])
        elif key == "SPLIT":
            r["TF"], r["TR"] = float(vals[0]), float(vals[1])
        elif key == "WARM":
            r["WARM"], r["WF"], r["WR"] = (float(v) for v in vals)
        elif key == "LEFT":
            r["LEFT"] = int(vals[0])
        elif key == "BYTES":
            r["BYTES"] = int(vals[0])
        elif key == "ENTRIES":
            r["ENTRIES"] = [int(v) for v in vals]
        elif key == "Y":
            r["Y"] = [float(v) for v in vals]
    if "TIME" not in r or "DS" not in r:
        raise Failure("driver printed no TIME/DS: " + first_line(out))
    return r


def leg(prog, mode, options, work, size, steps, bins, static=False):
    """Differentiates (unless orig), compiles with -O2, runs; returns parse().
    static: allocatable arrays made explicit-shape first (static_arrays)."""
    tag = mode if not options else mode + "-" + "-".join(o.strip("-") for o in options)
    if static:
        tag += "-static"
    d = os.path.join(work, prog["name"], f"{tag}-n{size}-s{steps}")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "src"))
    text = resized(open(os.path.join(ROOT, prog["src"])).read(), size, steps)
    if static:
        text = static_arrays(text)
    src = os.path.join(d, "src", "head.f90")
    open(src, "w").write(text)
    if mode == "orig":
        sources = [src]
    else:
        out_dir = os.path.join(d, "out")
        run([os.path.join(bins, "openad"), "-m", mode, *options, "-o", out_dir, "head.f90"],
            "openad", cwd=os.path.join(d, "src"))
        sources = [os.path.join(out_dir, l.strip())
                   for l in open(os.path.join(out_dir, "SOURCES")) if l.strip()]
    drv = os.path.join(d, "driver.f90")
    open(drv, "w").write(driver(prog, mode))
    exe = os.path.join(d, "driver")
    run(["gfortran", "-O2", *sources, drv, "-o", exe], "gfortran -O2", cwd=d)
    out, _, _ = run([exe], "run", cwd=d)
    return parse(out)


def relerr(a, b):
    return abs(a - b) / max(abs(a), abs(b), 1e-300)


def fmt_t(t):
    return f"{t:.4f}" if isinstance(t, float) else str(t)


def human_bytes(b):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(b) < 1024 or unit == "GiB":
            return f"{b:.0f} {unit}" if unit == "B" else f"{b:.1f} {unit}"
        b /= 1024


# --------------------------------------------------------------------------
# sections

def tangent_variants(bins):
    """The tangent variants: default, and each --preaccumulation scope the
    tool accepts."""
    variants = [("f", [])]
    try:
        h = subprocess.run([os.path.join(bins, "openad"), "--help"], capture_output=True,
                           text=True).stdout
    except OSError:
        h = ""
    if "--preaccumulation" in h:
        variants += [("f", ["--preaccumulation", "statement"]),
                     ("f", ["--preaccumulation", "basic-block"])]
        if re.search(r"possible values:[^\]]*\bauto\b", h):
            variants += [("f", ["--preaccumulation", "auto"])]
    return variants


def section_runtime(args, bins, work, out):
    progs = [p for p in PROGRAMS if not args.programs or p["name"] in args.programs]
    variants = tangent_variants(bins) + [("rs", []), ("rj", [])]
    if args.adjoint_scopes:
        variants += [("rs", ["--preaccumulation", "statement"]),
                     ("rs", ["--preaccumulation", "basic-block"])]
    out(f"\n## Run time of the generated code (gfortran -O2, best of {NREP}, one evaluation)\n")
    out("R = derivative time / original time, measured in the same run of this script;\n"
        "split adjoint = taping sweep + reverse sweep. check = relative difference of\n"
        "<w, J xdot> against a central finite difference of the original.\n")
    hdr = f"| program | points x steps | leg | CPU [s] | wall [s] | R (CPU) | R warm tape | check vs FD | tape | load |"
    out(hdr)
    out("|" + "---|" * (hdr.count("|") - 1))
    summary = {}
    for prog in progs:
        size = prog["size"] if args.size_scale == 1 else max(8, int(prog["size"] * args.size_scale))
        steps = 40
        pts = prog["points"](size)
        try:
            orig = leg(prog, "orig", [], work, size, steps, bins)
        except Failure as e:
            out(f"| {prog['name']} | {pts} x {steps} | orig | FAIL | | | | {e} | | {load()} |")
            continue
        out(f"| {prog['name']} | {pts} x {steps} | original | {fmt_t(orig['TIME'])} | {fmt_t(orig['WALL'])} | 1 | | "
            f"FD = {orig['DS']:.6e} | | {load()} |")
        legs = [(m, o, False) for m, o in variants]
        if "allocat" in open(os.path.join(ROOT, prog["src"])).read().lower():
            legs += [("orig", [], True), ("rs", [], True), ("rj", [], True)]
        base = orig
        for mode, options, static in legs:
            name = mode + ("" if not options else " " + " ".join(options))
            if static:
                name += " (static arrays)"
            try:
                r = leg(prog, mode, options, work, size, steps, bins, static)
            except Failure as e:
                out(f"| {prog['name']} | | {name} | FAIL | | | | {e} | | {load()} |")
                summary[(prog["name"], name)] = None
                continue
            if mode == "orig":
                base = r
                out(f"| {prog['name']} | | {name} | {fmt_t(r['TIME'])} | {fmt_t(r['WALL'])} | 1 | | FD = {r['DS']:.6e} | | {load()} |")
                continue
            ratio = r["TIME"] / base["TIME"]
            err = relerr(r["DS"], base["DS"])
            yerr = max((relerr(a, b) for a, b in zip(r.get("Y", []), base.get("Y", []))), default=0)
            check = f"{err:.1e} " + ("ok" if err < FD_TOL else "**WRONG**")
            if yerr > 1e-10:
                check += f", y differs {yerr:.1e}"
            tape = ""
            warm = f"{r['WARM'] / base['TIME']:.2f}" if "WARM" in r else ""
            if r.get("LEFT"):
                check += f", {r['LEFT']} tape bytes left after the adjoint sweep"
            if mode == "rs":
                e = r.get("ENTRIES", [0, 0, 0])
                tape = (f"{human_bytes(r['BYTES'])} ({r['BYTES'] / (pts * steps):.1f} B/pt/step; "
                        f"real {e[0]}, int {e[1]}, bool {e[2]}); CPU fwd {r['TF']:.4f} s + rev {r['TR']:.4f} s, "
                        f"warm fwd {r['WF']:.4f} + rev {r['WR']:.4f}")
            out(f"| {prog['name']} | | {name} | {fmt_t(r['TIME'])} | {fmt_t(r['WALL'])} | {ratio:.2f} | {warm} | {check} | {tape} | {load()} |")
            key = name.replace(" (static arrays)", "") if static else name
            if static and summary.get((prog["name"], key)) is not None:
                continue
            summary[(prog["name"], key)] = (ratio if err < FD_TOL else None)
            if "WARM" in r:
                summary[(prog["name"], key + " warm tape")] = (
                    r["WARM"] / base["TIME"] if err < FD_TOL else None)
    out("\nMedians (an adjoint leg that fails as written counts with its static-array\n"
        "variant when that one is right):")
    names = []
    for mode, options in variants:
        name = mode + ("" if not options else " " + " ".join(options))
        names += [name] + ([name + " warm tape"] if mode in ("rs", "rj") else [])
    for name in names:
        vals = sorted(v for (p, n), v in summary.items() if n == name and v is not None)
        fails = sum(1 for (p, n), v in summary.items() if n == name and v is None)
        if vals:
            med = vals[len(vals) // 2] if len(vals) % 2 else (vals[len(vals) // 2 - 1] + vals[len(vals) // 2]) / 2
            out(f"- median R over {len(vals)} programs, {name}: {med:.2f}"
                + (f" ({fails} failed)" if fails else ""))
        else:
            out(f"- {name}: no successful program ({fails} failed)")


def section_steps(args, bins, work, out):
    out("\n## Tape size against the number of time steps (-m rs)\n")
    cases = [("tracer2d", 100), ("burgers1d", 20000)]
    hdr = ("| program | points | steps | tape bytes | bytes/step | orig CPU [s] | fwd+rev CPU [s] | R_a | "
           "R_a warm tape | check | load |")
    out(hdr)
    out("|" + "---|" * (hdr.count("|") - 1))
    for name, size in cases:
        prog = next(p for p in PROGRAMS if p["name"] == name)
        pts = prog["points"](size)
        static = False
        for steps in (10, 20, 40, 80):
            try:
                orig = leg(prog, "orig", [], work, size, steps, bins, static)
                try:
                    r = leg(prog, "rs", [], work, size, steps, bins, static)
                except Failure as e:
                    if static:
                        raise
                    out(f"| {name} | {pts} | {steps} | FAIL as written | | | | | | {e} | {load()} |")
                    static = True
                    orig = leg(prog, "orig", [], work, size, steps, bins, static)
                    r = leg(prog, "rs", [], work, size, steps, bins, static)
            except Failure as e:
                out(f"| {name} | {pts} | {steps} | FAIL | | | | | | {e} | {load()} |")
                continue
            err = relerr(r["DS"], orig["DS"])
            label = name + (" (static arrays)" if static else "")
            out(f"| {label} | {pts} | {steps} | {r['BYTES']} ({human_bytes(r['BYTES'])}) | "
                f"{r['BYTES'] / steps:.0f} | {orig['TIME']:.4f} | {r['TIME']:.4f} | "
                f"{r['TIME'] / orig['TIME']:.2f} | {r['WARM'] / orig['TIME']:.2f} | {err:.1e} {'ok' if err < FD_TOL else '**WRONG**'} | {load()} |")


# Binomial checkpointing (section `checkpoint`).
CHECKPOINT_PROGRAM = dict(name="nldiffusion", src="bench/programs/nldiffusion/head.f90",
                          nx=3, ny=2, x0=[0.5, 2.0, 5.0], size=1000, points=lambda n: n)
CHECKPOINT_SNAPSHOTS = [10, 20, 50]
CHECKPOINT_REPS = 3


def optimal_forward_steps(l, s):
    """The fewest plain iterations reversing l iterations with s snapshots:
    r*l - C(s+r, s+1), r the least with C(s+r, s) >= l."""
    from math import comb
    if l <= 1:
        return 0
    r = 0
    while comb(s + r, s) < l:
        r += 1
    return r * l - comb(s + r, s + 1)


def checkpoint_driver(prog, mode):
    """One evaluation: the original (orig) or one split adjoint (rs: the
    taping sweep, then the reverse sweep), timed; rs also reports the peak
    of the tapes and checkpoint stacks (sampled by the runtime at every
    snapshot and turn, and here after the taping sweep) and the plain
    iterations the checkpointed loops recomputed."""
    nx, ny = prog["nx"], prog["ny"]
    x0 = ", ".join(flit(v) for v in prog["x0"])
    if mode == "orig":
        return f"""program checkpoint_driver
  implicit none
  integer, parameter :: nx = {nx}, ny = {ny}
  double precision :: x(nx), xdot(nx), y(ny), yp(ny), ym(ny), w(ny), c0, c1
  integer :: i
  x = (/ {x0} /)
  do i = 1, nx
    xdot(i) = abs(x(i)) * (1.0d0 + 0.3d0 * i)
  end do
  do i = 1, ny
    w(i) = 1.0d0 / i
  end do
  call cpu_time(c0)
  call head(x, y)
  call cpu_time(c1)
  print '(a,es14.6)', 'TIME ', c1 - c0
  x = (/ {x0} /) + {flit(FD_STEP)} * xdot
  call head(x, yp)
  x = (/ {x0} /) - {flit(FD_STEP)} * xdot
  call head(x, ym)
  print '(a,es24.16)', 'DS ', sum(w * (yp - ym)) / (2.0d0 * {flit(FD_STEP)})
end program checkpoint_driver
"""
    return f"""program checkpoint_driver
  use OAD_active
  use OAD_rev
  use OAD_tape
  use OAD_snapshots
  implicit none
  integer, parameter :: nx = {nx}, ny = {ny}
  type(active) :: x(nx), y(ny)
  double precision :: x0(nx), xdot(nx), w(ny), c0, c1, c2
  integer :: i
  x0 = (/ {x0} /)
  do i = 1, nx
    xdot(i) = abs(x0(i)) * (1.0d0 + 0.3d0 * i)
  end do
  do i = 1, ny
    w(i) = 1.0d0 / i
  end do
  x%v = x0
  x%d = 0.0d0
  y%d = 0.0d0
  call tape_init()
  call oad_snapshot_counters_reset()
  call OAD_revTape()
  call cpu_time(c0)
  call head(x, y)
  call cpu_time(c1)
  call oad_tape_sample()
  y%d = w
  call OAD_revAdjoint()
  call head(x, y)
  call cpu_time(c2)
  print '(a,es14.6)', 'TIME ', c2 - c0
  print '(a,2es14.6)', 'SPLIT ', c1 - c0, c2 - c1
  print '(a,i18)', 'HIGH ', oad_tape_high_water()
  print '(a,i18)', 'FORWARD ', oad_snapshot_forward_steps()
  print '(a,i18)', 'LEFT ', oad_tape_bytes()
  print '(a,es24.16)', 'DS ', sum(xdot * x%d)
end program checkpoint_driver
"""


def section_checkpoint(args, bins, work, out):
    prog = CHECKPOINT_PROGRAM
    size = prog["size"] if args.size_scale == 1 else max(8, int(prog["size"] * args.size_scale))
    text = resized(open(os.path.join(ROOT, prog["src"])).read(), size)
    steps = int(re.search(r"\bnsteps\s*=\s*(\d+)", text, re.I).group(1))
    pragma = re.compile(r"^\s*!\$openad\s+checkpoint\s+binomial\s*\(\s*snapshots\s*=\s*\d+\s*\)\s*$",
                        re.I | re.M)
    if not pragma.search(text):
        raise Failure(f"{prog['src']}: no CHECKPOINT BINOMIAL pragma line")
    out(f"\n## Binomial checkpointing of a time loop ({prog['name']}: {size} cells, {steps} steps, -m rs)\n")
    out("peak = highest bytes on the tapes and checkpoint stacks (snapshots and the\n"
        "loop's entry state included), sampled after the taping sweep, at every\n"
        "snapshot and at every turn; plain iterations = iterations the reversal ran\n"
        "without taping (optimum r*l - C(S+r, S+1)); R_a = (taping + reverse sweep\n"
        f"CPU) / original CPU, every leg run {CHECKPOINT_REPS} times interleaved with the others,\n"
        "best time kept; check = <xdot, adjoint> against a central finite difference.\n")
    variants = [("orig", None)] + [("rs", s) for s in CHECKPOINT_SNAPSHOTS] + [("rs", None)]
    exes = {}
    for mode, snaps in variants:
        tag = "orig" if mode == "orig" else (f"rs-S{snaps}" if snaps else "rs-plain")
        d = os.path.join(work, "checkpoint", tag)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(os.path.join(d, "src"))
        if snaps:
            variant = pragma.sub(f"  !$openad CHECKPOINT BINOMIAL(snapshots={snaps})", text)
        else:
            variant = pragma.sub("", text)
        src = os.path.join(d, "src", "head.f90")
        open(src, "w").write(variant)
        try:
            if mode == "orig":
                sources = [src]
            else:
                out_dir = os.path.join(d, "out")
                run([os.path.join(bins, "openad"), "-m", "rs", "-o", out_dir, "head.f90"],
                    "openad", cwd=os.path.join(d, "src"))
                sources = [os.path.join(out_dir, l.strip())
                           for l in open(os.path.join(out_dir, "SOURCES")) if l.strip()]
            drv = os.path.join(d, "driver.f90")
            open(drv, "w").write(checkpoint_driver(prog, mode))
            exe = os.path.join(d, "driver")
            run(["gfortran", "-O2", *sources, drv, "-o", exe], "gfortran -O2", cwd=d)
            exes[tag] = (exe, d, snaps)
        except Failure as e:
            out(f"- {tag}: FAIL {e}")
    best = {}
    for rep in range(CHECKPOINT_REPS):
        for tag, (exe, d, snaps) in exes.items():
            try:
                text_out, _, _ = run([exe], "run", cwd=d, timeout=3 * RUN_TIMEOUT)
                r = parse(text_out)
                for line in text_out.splitlines():
                    f = line.split()
                    if f and f[0] in ("HIGH", "FORWARD", "LEFT"):
                        r[f[0]] = int(f[1])
            except Failure as e:
                best[tag] = e
                continue
            if not isinstance(best.get(tag), Exception) and (
                    tag not in best or r["TIME"] < best[tag]["TIME"]):
                best[tag] = r
    orig = best.get("orig")
    if not isinstance(orig, dict):
        out(f"original: FAIL {orig}")
        return
    hdr = ("| leg | snapshots | peak tape + snapshots | plain iterations | optimum | "
           "orig CPU [s] | adjoint CPU [s] (taping + reverse) | R_a | check | load |")
    out(hdr)
    out("|" + "---|" * (hdr.count("|") - 1))
    out(f"| original | | | | | {orig['TIME']:.3f} | | 1 | FD = {orig['DS']:.6e} | {load()} |")
    for tag, (exe, d, snaps) in exes.items():
        if tag == "orig":
            continue
        r = best.get(tag)
        label = f"{snaps}" if snaps else "none (no pragma)"
        if not isinstance(r, dict):
            out(f"| rs | {label} | FAIL | | | | | | {r} | {load()} |")
            continue
        err = relerr(r["DS"], orig["DS"])
        check = f"{err:.1e} " + ("ok" if err < FD_TOL else "**WRONG**")
        if r.get("LEFT"):
            check += f", {r['LEFT']} bytes left on the stacks"
        optimum = optimal_forward_steps(steps, snaps) if snaps else 0
        if r.get("FORWARD") != optimum:
            check += ", **not the optimal schedule**"
        out(f"| rs | {label} | {r['HIGH']} ({human_bytes(r['HIGH'])}) | {r.get('FORWARD')} | {optimum} | "
            f"{orig['TIME']:.3f} | {r['TIME']:.3f} ({r['TF']:.3f} + {r['TR']:.3f}) | "
            f"{r['TIME'] / orig['TIME']:.1f} | {check} | {load()} |")


def stage_commands(bins, mode, d, src):
    """The three stage commands (ARCHITECTURE.md), as openad runs them."""
    booster_mode = "adjoint" if mode in ("rs", "rj") else "tangent"
    return [
        ("fortran2xaif", [os.path.join(bins, "fortran2xaif"), "-o", f"{d}/P.xaif",
                          "--canon", f"{d}/P.canon.f90", "--locations", f"{d}/P.loc",
                          "--declarations", f"{d}/P.decl", "--interface", f"{d}/P.iface", src]),
        ("xaif-booster", [os.path.join(bins, "xaif-booster"), "-m", booster_mode,
                          "--locations", f"{d}/P.loc", "-o", f"{d}/P.xb.xaif", f"{d}/P.xaif"]),
        ("xaif2fortran", [os.path.join(bins, "xaif2fortran"), "-m", mode, "--canon",
                          f"{d}/P.canon.f90", "--locations", f"{d}/P.loc",
                          "--declarations", f"{d}/P.decl", "-o", f"{d}/out", f"{d}/P.xb.xaif"]),
    ]


def section_throughput(args, bins, work, out):
    out("\n## Tool throughput: openad on generated programs, against gfortran -O0 -c\n")
    out("Generated by bench/gen_program.py (seeded): external subroutines with nested\n"
        "loops, if/else-if chains, select case, intrinsics, calls to earlier routines,\n"
        "module variables; a head routine with the pragmas calls them all. The three\n"
        "stage binaries run one after the other with openad's command lines (openad =\n"
        "their sum; `--with-openad` also times openad itself); `gfortran -O0 -c` of the\n"
        "same source is the yardstick. Per stage: wall / CPU seconds and peak RSS (the\n"
        "child's own ru_maxrss). Ratios: openad wall / gfortran wall, openad CPU /\n"
        "gfortran CPU, and the largest stage's peak RSS / gfortran's.\n")
    hdr = ("| lines | mode | fortran2xaif wall/CPU [s], RSS | xaif-booster wall/CPU [s], RSS | "
           "xaif2fortran wall/CPU [s], RSS | openad wall/CPU [s] | gfortran -O0 -c wall/CPU [s], RSS | "
           "wall ratio | CPU ratio | RSS ratio | KiB/line (peak) | XAIF, boosted XAIF [B/line] | load |")
    out(hdr)
    out("|" + "---|" * (hdr.count("|") - 1))
    sys.path.insert(0, BENCH)
    import gen_program
    for nlines in args.lines:
        d = os.path.join(work, "throughput", str(nlines))
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        src = os.path.join(d, "gen.f90")
        text, nsubs = gen_program.generate(nlines, seed=nlines)
        open(src, "w").write(text)
        real_lines = text.count("\n")
        try:
            gf = run_rusage(["gfortran", "-O0", "-c", "-o", os.path.join(d, "gen.o"), src],
                            "gfortran -O0 -c", cwd=d, timeout=args.timeout)
            gf_cell = f"{gf['wall']:.2f} / {gf['cpu']:.2f}, {human_bytes(gf['rss'])}"
        except Failure as e:
            gf, gf_cell = None, f"FAIL: {e}"
        for mode in args.modes:
            st = os.path.join(d, mode)
            os.makedirs(st)
            row = f"| {real_lines} | {mode} |"
            wall = cpu = 0.0
            rss, failed, cells = 0, None, 0
            for stage, cmd in stage_commands(bins, mode, st, src):
                cells += 1
                try:
                    s = run_rusage(cmd, stage, cwd=d, timeout=args.timeout)
                    row += f" {s['wall']:.2f} / {s['cpu']:.2f}, {human_bytes(s['rss'])} |"
                    wall += s["wall"]
                    cpu += s["cpu"]
                    rss = max(rss, s["rss"])
                except Failure as e:
                    failed = str(e)
                    row += " FAIL |"
                    break
            row += " |" * (3 - cells)
            if failed:
                out(row + f" | {gf_cell} | | | | | | {load()} |")
                out(f"  - stage failure: {failed}")
                continue
            if args.with_openad:
                try:
                    r = run_rusage([os.path.join(bins, "openad"), "-m", mode, "-o",
                                    os.path.join(st, "openad-out"), src], "openad", cwd=d,
                                   timeout=args.timeout)
                    ocell = f"{r['wall']:.2f} / {r['cpu']:.2f}"
                except Failure as e:
                    ocell = f"FAIL: {e}"
            else:
                ocell = f"({wall:.2f} / {cpu:.2f})"
            ratio_t = f"{wall / gf['wall']:.2f}" if gf else "-"
            ratio_c = f"{cpu / gf['cpu']:.2f}" if gf else "-"
            ratio_m = f"{rss / gf['rss']:.2f}" if gf else "-"
            sizes = [os.path.getsize(os.path.join(st, f)) / real_lines for f in ("P.xaif", "P.xb.xaif")]
            out(row + f" {ocell} | {gf_cell} | {ratio_t} | {ratio_c} | {ratio_m} | {rss / 1024 / real_lines:.1f} | "
                f"{sizes[0]:.0f}, {sizes[1]:.0f} | {load()} |")
            if not args.keep_outputs:
                shutil.rmtree(st, ignore_errors=True)


def section_elim(args, bins, work, out):
    out("\n## Elimination operation counts over tests/examples (xaif-booster --stats)\n")
    booster = os.path.join(bins, "xaif-booster")
    h = subprocess.run([booster, "--help"], capture_output=True, text=True).stdout
    if "--stats" not in h:
        out("xaif-booster has no --stats option: skipped.")
        return
    exdir = os.path.join(ROOT, "tests", "examples")
    xdir = os.path.join(work, "elim")
    shutil.rmtree(xdir, ignore_errors=True)
    os.makedirs(xdir)
    # 1. the XAIF of every example (fortran2xaif, as openad runs it)
    import tomllib
    xaifs, skipped = [], []
    for name in sorted(os.listdir(exdir)):
        ed = os.path.join(exdir, name)
        man = os.path.join(ed, "example.toml")
        if not os.path.isfile(man):
            continue
        m = tomllib.load(open(man, "rb"))
        files = m.get("files", ["head.f90"])
        d = os.path.join(xdir, name)
        os.makedirs(d)
        try:
            run([os.path.join(bins, "fortran2xaif"), "-o", f"{d}/P.xaif", "--canon",
                 f"{d}/P.canon.f90", *files], "fortran2xaif", cwd=ed)
            xaifs.append((name, f"{d}/P.xaif"))
        except Failure as e:
            skipped.append((name, str(e)))
    out(f"{len(xaifs)} examples with XAIF, {len(skipped)} rejected by the front end "
        f"(not counted): {', '.join(n for n, _ in skipped)}\n")
    configs = [("statement", "vertex", None), ("statement", "edge", None), ("statement", "face", None),
               ("statement", "best", None),
               ("basic-block", "vertex", None), ("basic-block", "edge", None),
               ("basic-block", "face", None), ("basic-block", "best", None),
               ("basic-block", "vertex", "markowitz"), ("basic-block", "vertex", "forward"),
               ("basic-block", "vertex", "reverse"), ("basic-block", "vertex", "markowitz,reverse"),
               ("basic-block", "edge", "markowitz"), ("basic-block", "face", "markowitz")]
    # the benchmark programs (compute-heavy loops), counted separately
    bench_xaifs = []
    for src in [p["src"] for p in PROGRAMS]:
        name = "bench-" + os.path.basename(os.path.dirname(src))
        d = os.path.join(xdir, name)
        os.makedirs(d)
        try:
            run([os.path.join(bins, "fortran2xaif"), "-o", f"{d}/P.xaif", "--canon",
                 f"{d}/P.canon.f90", os.path.join(ROOT, src)], "fortran2xaif", cwd=d)
            bench_xaifs.append((name, f"{d}/P.xaif"))
        except Failure as e:
            out(f"- {name}: front end failed: {e}")
    hdr = ("| preaccumulation | elimination | heuristic | multiplications | additions | other counters | "
           "failures | benchmark programs: mults / adds | load |")
    out(hdr)
    out("|" + "---|" * (hdr.count("|") - 1))
    def count(group, pre, method, heur):
        totals, fails, first_err = {}, 0, ""
        for name, x in group:
            cmd = [booster, "-m", "tangent", "--preaccumulation", pre, "--elimination", method,
                   "--stats", "-o", os.path.join(xdir, name, "P.xb.xaif"), x]
            if heur:
                cmd[1:1] = ["--heuristic", heur]
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                                   preexec_fn=limit_child)
            except subprocess.TimeoutExpired:
                fails += 1
                first_err = first_err or f"{name}: timeout"
                continue
            if p.returncode != 0:
                fails += 1
                first_err = first_err or f"{name}: {first_line(p.stderr)}"
                continue
            for k, v in parse_stats(p.stdout + "\n" + p.stderr).items():
                totals[k] = totals.get(k, 0) + v
        return totals, fails, first_err

    for pre, method, heur in configs:
        totals, fails, first_err = count(xaifs, pre, method, heur)
        btot, bfails, berr = count(bench_xaifs, pre, method, heur)
        mults = totals.pop("multiplications", totals.pop("mul", "?"))
        adds = totals.pop("additions", totals.pop("add", "?"))
        other = ", ".join(f"{k} {v}" for k, v in sorted(totals.items()))
        bench_col = f"{btot.get('multiplications', '?')} / {btot.get('additions', '?')}"
        if bfails:
            bench_col += f" ({bfails} failed: {berr})"
        out(f"| {pre} | {method} | {heur or 'default'} | {mults} | {adds} | {other} | "
            f"{fails}{(' (' + first_err + ')') if first_err else ''} | {bench_col} | {load()} |")


def parse_stats(text):
    """Sums `key: number` / `key=number` / `number key` fields of --stats output.
    Adjusted to the booster's format in parse_stats_lines below."""
    return parse_stats_lines(text)


def parse_stats_lines(text):
    """`# subroutine block vertices edges multiplications additions` table;
    the `total - V E M A` line."""
    totals = {}
    cols = None
    for line in text.splitlines():
        f = line.split()
        if f[:1] == ["#"]:
            cols = f[1:]
        elif cols and f and f[0] == "total" and len(f) == len(cols):
            for k, v in zip(cols[2:], f[2:]):
                totals[k] = totals.get(k, 0) + int(v)
    if totals:
        return totals
    return parse_stats_generic(text)


def parse_stats_generic(text):
    totals = {}
    for line in text.splitlines():
        for k, v in re.findall(r"([A-Za-z_][A-Za-z_ ]*?)\s*[=:]\s*(\d+)\b", line):
            k = k.strip().lower().replace(" ", "_")
            totals[k] = totals.get(k, 0) + int(v)
    return totals


# --------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sections", nargs="*", default=["runtime", "steps", "throughput", "elim"])
    ap.add_argument("--bin-dir", default=os.environ.get("OPENAD_BIN_DIR"),
                    help="directory with openad and the stage binaries")
    ap.add_argument("--work", default=os.environ.get("BENCH_WORK", "/tmp/openad-bench"))
    ap.add_argument("--programs", nargs="*", help="subset of the runtime programs")
    ap.add_argument("--adjoint-scopes", action="store_true",
                    help="runtime: also rs with statement-level and basic-block preaccumulation")
    ap.add_argument("--size-scale", type=float, default=1.0,
                    help="scale the grid size parameter (quick runs)")
    ap.add_argument("--lines", type=int, nargs="*", default=[2000, 5000, 10000, 20000])
    ap.add_argument("--modes", nargs="*", default=["f", "rs"],
                    help="throughput: openad modes to measure")
    ap.add_argument("--with-openad", action="store_true",
                    help="throughput: also time openad itself (besides its three stages)")
    ap.add_argument("--keep-outputs", action="store_true",
                    help="throughput: keep the stages' files under WORK/throughput")
    ap.add_argument("--timeout", type=int, default=1800,
                    help="throughput: seconds allowed per tool run")
    args = ap.parse_args()
    bins = args.bin_dir or os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release")
    os.makedirs(args.work, exist_ok=True)
    results = open(os.path.join(args.work, "results.md"), "w")

    def out(s):
        print(s, flush=True)
        results.write(s + "\n")
        results.flush()

    rev = os.environ.get("BENCH_BUILT_REV", "HEAD")
    head = subprocess.run(["git", "-C", ROOT, "log", "-1", "--format=%h %s", rev], capture_output=True,
                          text=True).stdout.strip()
    if "BENCH_BUILT_REV" not in os.environ:
        head += " (working tree HEAD; binaries given with --bin-dir may differ)"
    out(f"# openad benchmarks, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    out(f"commit {head}; binaries {bins}; {os.cpu_count()} cores; load at start: "
        f"{open('/proc/loadavg').read().strip()}")
    gf = subprocess.run(["gfortran", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    out(f"{gf}")
    for s in args.sections:
        t0 = time.perf_counter()
        {"runtime": section_runtime, "steps": section_steps, "throughput": section_throughput,
         "elim": section_elim, "checkpoint": section_checkpoint}[s](args, bins, args.work, out)
        print(f"[{s}: {time.perf_counter() - t0:.0f} s]", file=sys.stderr)
    out(f"\nload at end: {open('/proc/loadavg').read().strip()}")


if __name__ == "__main__":
    main()
