#!/usr/bin/env bash
# Rewrites tests/examples/EXPECTED_FAILURES from a fresh run: every leg that
# fails now is listed with the first line of its error as the reason.
# Review the diff before committing: a leg that used to pass and now fails
# is a regression, not something to list.
set -euo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
cargo test --no-fail-fast -p openad-tests --test examples --test bad_inputs --test bench --test shipped_example 2>"$log" >/dev/null || true
{
  echo "# Legs that are known to fail: NAME MODE reason. The tests run them and"
  echo "# report them as xfail; a listed leg that passes fails the test (XPASS), and"
  echo "# so does one that fails for another reason (the reason must occur in its error)."
  echo "# Regenerate with tests/update-expected-failures.sh, then review the diff."
  grep -E '^[A-Za-z0-9_]+ +(f|fv|rs|rj|rs-bb|rj-bb|rs-rc|rj-rc|bad) +(FAIL|xfail) ' "$log" |
    sed -E 's/^([A-Za-z0-9_]+) +([a-z-]+) +(FAIL|xfail) +- +/\1 \2 /' |
    sed -E 's#/tmp/openad\.[A-Za-z0-9]+/##g; s#/[^ ]*/target[^ ]*/##g' |
    sort -u
} > tests/examples/EXPECTED_FAILURES.new
mv tests/examples/EXPECTED_FAILURES.new tests/examples/EXPECTED_FAILURES
grep -c -v '^#' tests/examples/EXPECTED_FAILURES | sed 's/$/ legs listed/'
rm -f "$log"
