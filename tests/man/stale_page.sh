#!/usr/bin/env bash
# stale_page.sh CHECK_OPTIONS PAGE TOOL [SUBCOMMAND]
# The check of check_options.sh: a copy of PAGE without the last option of
# TOOL's --help (as if the option had been added after the page was made)
# must fail the check, which must name that option; the page itself passes.
set -euo pipefail
check=$1 page=$2
shift 2
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
last=$("$@" --help | grep -oE '^  --[[:alnum:]][[:alnum:]-]*' | tail -n 1 | tr -d ' ')
[ -n "$last" ] || fail "no option in '$* --help'"
troff="\\fB${last//-/\\-}\\fR"
grep -vF -- "$troff" "$page" > "$work/stale.1"
cmp -s "$page" "$work/stale.1" && fail "$page does not mention $last"
bash "$check" "$page" "$@" > /dev/null || fail "the page itself fails the check"
if out=$(bash "$check" "$work/stale.1" "$@" 2>&1); then
  fail "a page without $last passed the check: $out"
fi
grep -qF -- "lacks $last " <<<"$out" || fail "the check failed without naming $last: $out"
echo "OK: a page without $last fails the check: $out"
