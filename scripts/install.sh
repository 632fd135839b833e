#!/usr/bin/env bash
# Builds openad and its three stage programs and copies them (with the
# `xaif` tool) into PREFIX/bin (default ~/.local/bin): openad finds the
# stages next to itself, so that directory on PATH is all it takes.
#
#   scripts/install.sh             # into ~/.local/bin
#   scripts/install.sh /usr/local  # into /usr/local/bin
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
prefix=${1:-$HOME/.local}
"$root/scripts/prerequisites.sh"
(cd "$root" && cargo build --release --quiet -p openad-driver -p fortran2xaif -p xaif-booster -p xaif2fortran -p xaif-schema)
target=${CARGO_TARGET_DIR:-$root/target}
case "$target" in /*) ;; *) target="$root/$target" ;; esac
mkdir -p "$prefix/bin"
for program in openad fortran2xaif xaif-booster xaif2fortran xaif; do
  install -m 755 "$target/release/$program" "$prefix/bin/$program"
done
echo "installed openad, fortran2xaif, xaif-booster, xaif2fortran and xaif into $prefix/bin"
case ":$PATH:" in
  *":$prefix/bin:"*) ;;
  *) echo "add it to PATH: export PATH=\"$prefix/bin:\$PATH\"" ;;
esac
