#!/usr/bin/env bash
# Benchmarks of openad (see docs/benchmarks.md).
#
#   bench/run.sh [SECTION...] [bench.py options]
#
# SECTION: runtime steps throughput elim (default: all four, ~10 minutes
# on 2 cores), checkpoint (binomial checkpointing of a 10,000-step loop,
# ~5 minutes, run only when named). Tables go to stdout and to $BENCH_WORK/results.md
# (default /tmp/openad-bench).
#
# The tool is built from a snapshot of a git revision (default HEAD, set
# BENCH_REV=...), not from the working tree, so uncommitted work of others
# cannot break or skew the run. Set OPENAD_BIN_DIR=DIR to use prebuilt
# binaries instead (e.g. target/release of your working tree).
#
# Examples:
#   bench/run.sh                                  # everything
#   bench/run.sh runtime --programs heat2d        # one program
#   bench/run.sh runtime --size-scale 0.1         # quick, small grids
#   bench/run.sh throughput --lines 2000 20000
#   bench/run.sh checkpoint
#   OPENAD_BIN_DIR=$PWD/target/release bench/run.sh elim
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")

if [[ -z "${OPENAD_BIN_DIR:-}" ]]; then
  rev=$(git -C "$root" rev-parse --short "${BENCH_REV:-HEAD}")
  snap=${BENCH_SRC:-/tmp/openad-src}
  export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-/work/target-bench}
  if [[ "$(cat "$snap/.bench-rev" 2>/dev/null)" != "$rev" ]]; then
    rm -rf "$snap"
    mkdir -p "$snap"
    git -C "$root" archive "$rev" | tar -x -C "$snap"
    echo "$rev" > "$snap/.bench-rev"
  fi
  echo "building $rev in $snap (target $CARGO_TARGET_DIR)" >&2
  (cd "$snap" && cargo build --release --quiet) >&2
  export OPENAD_BIN_DIR=$CARGO_TARGET_DIR/release
  export BENCH_BUILT_REV=$rev
fi
for b in openad fortran2xaif xaif-booster xaif2fortran; do
  [[ -x $OPENAD_BIN_DIR/$b ]] || { echo "missing $OPENAD_BIN_DIR/$b" >&2; exit 1; }
done
exec python3 "$here/bench.py" --bin-dir "$OPENAD_BIN_DIR" "$@"
