#!/usr/bin/env python3
"""Generates every corpus example in every mode into one directory, so two
builds of the tool can be compared byte for byte (`diff -r`).

    scripts/generate-corpus.py OUT [--bin DIR] [--legs f,fv,rs,rj,...]
                               [--examples a,b] [--jobs N]

For each example of tests/examples/ and each of its modes this runs, in the
example's folder, what the corpus harness runs (tests/src/lib.rs,
`run_mode`):

    openad -m MODE LEG_OPTIONS OPENAD_OPTIONS --black-box F... -o OUT/EXAMPLE-LEG FILES...

A leg is a mode or, as in the harness (`leg_mode`), a mode with booster
options: rs-bb (`--preaccumulation basic-block`), rs-rc and rj-rc
(`--partials recomputed`); by default all of them. A run that fails leaves
OUT/EXAMPLE-LEG.failed holding openad's exit
status and diagnostics instead (they are compared too). Legs that
tests/examples/EXPECTED_FAILURES lists as refused by openad are skipped.
Restructurings of a stage must leave `diff -r BEFORE AFTER` empty:

    git stash; cargo build --release; scripts/generate-corpus.py /tmp/before
    git stash pop; cargo build --release; scripts/generate-corpus.py /tmp/after
    diff -r /tmp/before /tmp/after
"""

import argparse
import concurrent.futures
import os
import pathlib
import subprocess
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "tests" / "examples"
MODES = ["f", "fv", "rs", "rj"]
LEGS = {
    "f": ("f", []),
    "fv": ("fv", []),
    "rs": ("rs", []),
    "rj": ("rj", []),
    "rs-bb": ("rs", ["--preaccumulation", "basic-block"]),
    "rs-rc": ("rs", ["--partials", "recomputed"]),
    "rj-rc": ("rj", ["--partials", "recomputed"]),
}


def refused_legs():
    """(example, mode) pairs EXPECTED_FAILURES says openad refuses."""
    refused = set()
    for line in (EXAMPLES / "EXPECTED_FAILURES").read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        name, leg, reason = (line.split(None, 2) + ["", ""])[:3]
        if reason.startswith("openad"):
            refused.add((name, leg))
    return refused


def legs(selected, wanted):
    refused = refused_legs()
    for manifest in sorted(EXAMPLES.glob("*/example.toml")):
        name = manifest.parent.name
        if selected and name not in selected:
            continue
        m = tomllib.loads(manifest.read_text())
        modes = m.get("modes", MODES)
        for leg in wanted:
            if LEGS[leg][0] in modes and (name, leg) not in refused:
                yield name, leg, m


def generate(openad, out, name, leg, m):
    target = out / f"{name}-{leg}"
    mode, options = LEGS[leg]
    command = [str(openad), "-m", mode, *options, *m.get("openad_options", [])]
    for f in m.get("black_box", []):
        command += ["--black-box", f]
    command += ["-o", str(target), *m["files"]]
    run = subprocess.run(
        command, cwd=EXAMPLES / name, capture_output=True, text=True
    )
    if run.returncode != 0:
        (out / f"{name}-{leg}.failed").write_text(
            f"exit {run.returncode}\n{run.stderr}"
        )
        return f"{name} {leg}: openad failed (exit {run.returncode})"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--bin", type=pathlib.Path, default=ROOT / "target" / "release")
    parser.add_argument("--legs", default=",".join(LEGS))
    parser.add_argument("--examples", default="")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    openad = args.bin.resolve() / "openad"
    if not openad.exists():
        sys.exit(f"{openad} not found: build with `cargo build --release` first")
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    if any(out.iterdir()):
        sys.exit(f"{out} is not empty")
    selected = set(filter(None, args.examples.split(",")))
    wanted = args.legs.split(",")
    if unknown := [leg for leg in wanted if leg not in LEGS]:
        sys.exit(f"unknown legs {unknown}: choose from {', '.join(LEGS)}")
    todo = list(legs(selected, wanted))
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = pool.map(lambda leg: generate(openad, out, *leg), todo)
        failures = [r for r in results if r]
    for f in failures:
        print(f, file=sys.stderr)
    print(f"{len(todo)} legs generated into {out}, {len(failures)} refused by openad")


if __name__ == "__main__":
    main()
