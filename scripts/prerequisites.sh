#!/usr/bin/env bash
# Checks that this machine has what building, running and testing openad
# needs besides Rust: gfortran (compiles the derivative code), libxml2's
# headers and pkg-config (the libxml crate), libclang (bindgen, for that
# crate), xmllint (schema checks), MPI (the MPI examples), LAPACK (the
# black-box example), Graphviz (openad explore) and Chromium (the test
# that opens an explore report). On Debian as root it installs what is
# missing; otherwise it prints the exact apt-get line and exits 1.
#
#   scripts/prerequisites.sh          # check, install as root
#   scripts/prerequisites.sh --check  # only check
set -euo pipefail

missing=()
# Whether one of the paths (glob results) exists.
exists() { for f in "$@"; do [ -e "$f" ] && return 0; done; return 1; }
command -v gfortran >/dev/null 2>&1 || missing+=(gfortran)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
# MPI programs: mpif90 builds them, mpirun runs them.
command -v mpif90 >/dev/null 2>&1 || missing+=(libopenmpi-dev)
command -v mpirun >/dev/null 2>&1 || missing+=(openmpi-bin)
if ! pkg-config --exists libxml-2.0 2>/dev/null; then missing+=(libxml2-dev); fi
command -v xmllint >/dev/null 2>&1 || missing+=(libxml2-utils)
if ! exists /usr/lib/llvm-*/lib/libclang*.so* /usr/lib/*/libclang*.so*; then
  missing+=(libclang-dev)
fi
# -llapack -lblas links need the unversioned libraries of the -dev packages.
if ! exists /usr/lib/liblapack.so /usr/lib/*/liblapack.so; then
  missing+=(liblapack-dev)
fi
if ! exists /usr/lib/libblas.so /usr/lib/*/libblas.so; then
  missing+=(libblas-dev)
fi
command -v dot >/dev/null 2>&1 || missing+=(graphviz)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v cargo >/dev/null 2>&1 || {
  echo "openad needs Rust: install it from https://rustup.rs (or apt-get install cargo), then run this again." >&2
  exit 1
}

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "${1:-}" != "--check" ] && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi
echo "openad needs: ${missing[*]}. On Debian or Ubuntu run:" >&2
echo "    sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
exit 1
