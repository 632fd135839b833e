#!/usr/bin/env bash
# Differentiates the box model with openad in tangent mode and in adjoint
# (split) mode, compiles each result with its driver, runs it and prints
# the derivatives next to central finite differences.
#
#   examples/box/run.sh          # both modes
#   examples/box/run.sh f        # tangent only
#   examples/box/run.sh rs       # adjoint only
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
case "$target" in /*) ;; *) target="$root/$target" ;; esac
openad="$target/release/openad"

# gfortran, libxml2, libclang: installed when missing and run as root,
# else the exact apt-get line to run is printed.
"$root/scripts/prerequisites.sh"

# Build openad and the three stages only (quick when they are up to date).
(cd "$root" && cargo build --release --quiet -p openad-driver -p fortran2xaif -p xaif-booster -p xaif2fortran)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run_mode() {
  local mode=$1 driver=$2
  echo "== openad -m $mode -o $work/$mode head.f90"
  "$openad" -m "$mode" -o "$work/$mode" "$here/head.f90"
  echo "== gfortran \$(sed \"s|^|$work/$mode/|\" $work/$mode/SOURCES) $driver"
  (cd "$work" && gfortran $(sed "s|^|$work/$mode/|" "$work/$mode/SOURCES") "$here/$driver" -o "$work/$mode.exe")
  "$work/$mode.exe"
}

status=0
for mode in ${1:-f rs}; do
  case "$mode" in
    f) run_mode f driver_tangent.f90 || status=1 ;;
    rs) run_mode rs driver_adjoint.f90 || status=1 ;;
    *) echo "usage: $0 [f|rs]" >&2; exit 2 ;;
  esac
  echo
done
exit $status
