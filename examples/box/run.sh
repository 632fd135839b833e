#!/usr/bin/env bash
# Differentiates the box model with openad in every mode, compiles and
# runs the results with drivers `openad check` writes itself, and prints
# each mode's derivatives next to central finite differences of the
# original program, with a verdict (exit 0: every mode agrees).
#
#   examples/box/run.sh            # modes f, fv, rs, rj
#   examples/box/run.sh f,rs       # some of them
#
# driver_tangent.f90 and driver_adjoint.f90 are what such drivers look
# like written by hand (docs/user-guide.md, "Getting started").
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
case "$target" in /*) ;; *) target="$root/$target" ;; esac
openad="$target/release/openad"

case "${1:-f,fv,rs,rj}" in
  *[!a-z,]*|"") echo "usage: $0 [MODES, e.g. f,rs]" >&2; exit 2 ;;
esac

# gfortran, libxml2, libclang: installed when missing and run as root,
# else the exact apt-get line to run is printed.
"$root/scripts/prerequisites.sh"

# Build openad and the three stages only (quick when they are up to date).
(cd "$root" && cargo build --release --quiet -p openad-driver -p fortran2xaif -p xaif-booster -p xaif2fortran)

echo "== openad check -m ${1:-f,fv,rs,rj} examples/box/head.f90"
exec "$openad" check -m "${1:-f,fv,rs,rj}" "$here/head.f90"
