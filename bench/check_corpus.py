#!/usr/bin/env python3
"""Runs `openad check` on every corpus example with the manifest's x0,
options and modes; prints one line per example and a tally (exit status
0: every mode agrees). Takes about 10 minutes on 2 cores.

    python3 bench/check_corpus.py [ROOT [OPENAD [EXAMPLE,...]]]

ROOT defaults to the checkout holding this script, OPENAD to
ROOT/target/release/openad."""
import math, os, subprocess, sys, tomllib, re, json
here = os.path.dirname(os.path.abspath(__file__))
root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(here)
openad = sys.argv[2] if len(sys.argv) > 2 else os.path.join(root, "target/release/openad")
only = set(sys.argv[3].split(",")) if len(sys.argv) > 3 else None
report = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"check-corpus-{os.getpid()}.json")
ex_dir = os.path.join(root, "tests/examples")
tally = {}
for name in sorted(os.listdir(ex_dir)):
    mf = os.path.join(ex_dir, name, "example.toml")
    if not os.path.exists(mf) or (only and name not in only):
        continue
    m = tomllib.load(open(mf, "rb"))
    nx = m["nx"]
    if "x0" in m:
        x0 = m["x0"]
    else:
        f = m["x0_formula"].replace("d0", "e0")
        f = re.sub(r"dble\(", "float(", f)
        env = {"sin": math.sin, "cos": math.cos, "exp": math.exp, "float": float,
               "mod": lambda a, b: a % b, "sqrt": math.sqrt}
        x0 = [eval(f, env, {"i": i}) for i in range(1, nx + 1)]
    args = [openad, "check", "--x0", ",".join(repr(float(v)) for v in x0)]
    modes = m.get("modes", ["f", "fv", "rs", "rj"])
    args += ["-m", ",".join(modes)]
    args += m.get("openad_options", [])
    for b in m.get("black_box", []):
        args += ["--black-box", b]
    for s in m.get("link_sources", []):
        args += ["--link", os.path.join(ex_dir, name, s)]
    for l in m.get("libraries", []):
        args += ["--link", "-l" + l]
    args += ["--json", report]
    args += m["files"]
    p = subprocess.run(args, cwd=os.path.join(ex_dir, name), capture_output=True, text=True)
    try:
        j = json.load(open(report))
        verdicts = " ".join(f"{r['mode']}:{r['verdict']}" for r in j["modes"])
        os.remove(report)
    except Exception:
        verdicts = "no-json: " + (p.stderr.strip().splitlines() or [""])[-1][:150]
    print(f"{name:32s} rc={p.returncode} {verdicts}", flush=True)
    tally[p.returncode] = tally.get(p.returncode, 0) + 1
print("tally", tally)
