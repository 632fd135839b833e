#!/usr/bin/env python3
"""Generates a Fortran program of about N lines for throughput benchmarks.

    python3 bench/gen_program.py LINES [SEED] > gen.f90

The program: a module `gen_state` with parameters and active module
variables; many external subroutines `sNNNN(a, b, n, s)` whose bodies mix
assignments with arithmetic and intrinsics, nested counted loops, if /
else-if chains, select case on an integer, do-while, calls to earlier
routines (a DAG, at most a few calls per routine), and reads/writes of the
module variables; a head routine with the pragmas that calls every
routine. It compiles with gfortran and computes a smooth-enough function
(the generator does not aim at meaningful numbers, only at a realistic mix
of statements for the tool).
"""

import random
import sys

UNARY = ["sin", "cos", "exp", "tanh", "sqrt", "log", "atan", "abs"]


def expr(rng, names, depth=0):
    """A real expression over `names`, short enough for one free-form line."""
    while True:
        e = expr1(rng, names, depth)
        if len(e) <= 64:
            return e


def expr1(rng, names, depth=0):
    """A random real expression over `names` (real scalars / elements)."""
    if depth > 2 or rng.random() < 0.3:
        r = rng.random()
        if r < 0.6:
            return rng.choice(names)
        return f"{rng.uniform(0.1, 2.0):.3f}d0"
    r = rng.random()
    a = expr1(rng, names, depth + 1)
    b = expr1(rng, names, depth + 1)
    if r < 0.25:
        return f"({a} + {b})"
    if r < 0.4:
        return f"({a} - {b})"
    if r < 0.65:
        return f"{a} * {b}"
    if r < 0.72:
        return f"{a} / (1.5d0 + {b} * {b})"
    if r < 0.78:
        return f"({a})**2"
    f = rng.choice(UNARY)
    if f == "sqrt":
        return f"sqrt(1.0d0 + ({a})**2)"
    if f == "log":
        return f"log(2.0d0 + ({a})**2)"
    if f == "exp":
        return f"exp(-0.1d0 * ({a})**2)"
    if f == "abs":
        return f"abs({a}) + 0.1d0"
    return f"{f}({a})"


def block(rng, depth, names, lines, indent, callees, calls_left):
    """Appends statements to `lines` (a list), returns the calls made."""
    pad = "  " * indent
    n_stmt = rng.randint(2, 5)
    for _ in range(n_stmt):
        r = rng.random()
        if r < 0.45 or depth >= 2:
            lhs = rng.choice(["t", "u", "v", "s", "a(i)", "b(i)", "g(1)", "g(2)"]
                             if "a(i)" in names else ["t", "u", "v", "s", "g(1)", "g(2)"])
            rhs = expr(rng, names)
            if lhs in ("a(i)", "b(i)", "g(1)", "g(2)", "s"):
                lines.append(f"{pad}{lhs} = 0.5d0 * {lhs} + 0.1d0 * tanh({rhs})")
            elif rng.random() < 0.5:
                lines.append(f"{pad}{lhs} = 0.9d0 * tanh({rhs})")
            else:
                lines.append(f"{pad}{lhs} = 0.5d0 * {lhs} + 0.3d0 * sin({rhs})")
        elif r < 0.62 and "a(i)" not in names:
            lines.append(f"{pad}do i = 1, n")
            inner = names + ["a(i)", "b(i)"]
            block(rng, depth + 1, inner, lines, indent + 1, callees, calls_left)
            if rng.random() < 0.4:
                lines.append(f"{pad}  do j = 1, 3")
                lines.append(f"{pad}    c(j) = 0.9d0 * c(j) + 0.1d0 * a(i) * cos({expr(rng, inner, 2)})")
                lines.append(f"{pad}  end do")
            lines.append(f"{pad}end do")
        elif r < 0.77:
            cond = rng.choice(["t > 0.5d0", "u < v", "s >= 0.0d0", "g(1) > t",
                               "abs(u) < 1.0d0", "v > 0.0d0 .and. t < 2.0d0"])
            lines.append(f"{pad}if ({cond}) then")
            block(rng, depth + 1, names, lines, indent + 1, callees, calls_left)
            if rng.random() < 0.5:
                lines.append(f"{pad}else if (u > t) then")
                block(rng, depth + 1, names, lines, indent + 1, callees, calls_left)
            lines.append(f"{pad}else")
            block(rng, depth + 1, names, lines, indent + 1, callees, calls_left)
            lines.append(f"{pad}end if")
        elif r < 0.84:
            lines.append(f"{pad}select case (mod(k, 3))")
            for case in ("case (0)", "case (1)", "case default"):
                lines.append(f"{pad}{case}")
                lines.append(f"{pad}  t = cos({expr(rng, names)})")
            lines.append(f"{pad}end select")
            lines.append(f"{pad}k = k + 1")
        elif r < 0.88:
            lines.append(f"{pad}m = 0")
            lines.append(f"{pad}do while (m < 3)")
            lines.append(f"{pad}  u = u * 0.9d0 + 0.05d0 * atan({expr(rng, names, 2)})")
            lines.append(f"{pad}  m = m + 1")
            lines.append(f"{pad}end do")
        elif callees and calls_left[0] > 0 and "a(i)" not in names:
            calls_left[0] -= 1
            lines.append(f"{pad}call {rng.choice(callees)}(b, a, n, s)")
        else:
            lines.append(f"{pad}v = max(sin({expr(rng, names, 2)}), min(u, t))")


def routine(rng, name, callees):
    lines = [f"subroutine {name}(a, b, n, s)",
             "  use gen_state",
             "  implicit none",
             "  integer, intent(in) :: n",
             "  double precision, intent(inout) :: a(n), b(n), s",
             "  double precision :: t, u, v, c(3)",
             "  integer :: i, j, k, m",
             "  t = a(1) + 0.5d0 * s",
             "  u = b(n) * g(3)",
             "  v = 0.25d0",
             "  c = 0.0d0",
             "  k = 1"]
    names = ["t", "u", "v", "s", "g(1)", "g(3)", "c(2)"]
    calls_left = [rng.choice([0, 1, 1, 2])]
    for _ in range(rng.randint(3, 6)):
        block(rng, 0, names, lines, 1, callees, calls_left)
    lines += ["  s = s + 0.01d0 * (t + u + v + c(1))",
              f"end subroutine {name}", ""]
    return lines


def generate(nlines, seed=1):
    """Returns (program text, number of subroutines) of about nlines lines."""
    rng = random.Random(seed)
    out = ["! Generated by bench/gen_program.py: throughput benchmark input.",
           "module gen_state",
           "  implicit none",
           "  integer, parameter :: nv = 8",
           "  double precision :: g(3)",
           "end module gen_state", ""]
    names = []
    head_reserve = 30
    while len(out) < nlines - head_reserve - 3 * len(names):
        name = f"s{len(names) + 1:05d}"
        # callees: a few recent routines (keeps the call DAG shallow-ish)
        callees = names[-8:]
        out += routine(rng, name, callees)
        names.append(name)
    out += ["subroutine head(x, y)",
            "  use gen_state",
            "  implicit none",
            "  double precision :: x(4), y(2)",
            "  double precision :: a(nv), b(nv), s",
            "  integer :: i",
            "  !$openad INDEPENDENT(x)",
            "  ! (not g(1) = ... first: the front end takes that for a statement",
            "  ! function definition, see docs/benchmarks.md)",
            "  s = x(4)",
            "  g(1) = x(1)",
            "  g(2) = x(2)",
            "  g(3) = 0.5d0 * x(3)",
            "  do i = 1, nv",
            "    a(i) = x(1) + 0.1d0 * i * x(2)",
            "    b(i) = x(3) - 0.05d0 * i * x(4)",
            "  end do"]
    for name in names:
        out += [f"  call {name}(a, b, nv, s)",
                "  a = a / (1.0d0 + abs(a))",
                "  b = b / (1.0d0 + abs(b))"]
    out += ["  y(1) = s + sum(a)",
            "  y(2) = g(1) * g(2) + sum(b)",
            "  !$openad DEPENDENT(y)",
            "end subroutine head", ""]
    return "\n".join(out), len(names)


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else n
    text, _ = generate(n, seed)
    sys.stdout.write(text)
