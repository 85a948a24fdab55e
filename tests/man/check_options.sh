#!/usr/bin/env bash
# check_options.sh PAGE TOOL [SUBCOMMAND]
# Every option that `TOOL [SUBCOMMAND] --help` lists (its long and short
# spellings) is in the generated manual page PAGE, bold as help2man writes an
# option: \fB\-\-name\fR, \fB\-x\fR. Fails naming each one that is missing.
set -euo pipefail
page=$1
shift
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -s "$page" ] || fail "$page is missing or empty"
help=$("$@" --help) || fail "'$* --help' failed"
# The option lines of Boost's help: "  -e [ --event ] arg ...", "  --cpu arg ...".
mapfile -t options < <(grep -oE '^  (-[[:alnum:]] \[ --[[:alnum:]][[:alnum:]-]* \]|--[[:alnum:]][[:alnum:]-]*)' <<<"$help" |
                       grep -oE -- '--?[[:alnum:]][[:alnum:]-]*')
# (A help without options, or one this script cannot read, checks nothing.)
[ "${#options[@]}" -ge 4 ] || fail "found only ${#options[@]} options in '$* --help'"
missing=()
for opt in "${options[@]}"; do
  troff="\\fB${opt//-/\\-}\\fR"
  grep -qF -- "$troff" "$page" || missing+=("$opt")
done
[ "${#missing[@]}" -eq 0 ] || fail "$page lacks ${missing[*]} of '$* --help' (${#options[@]} options)"
echo "OK: $page has all ${#options[@]} option spellings of '$* --help'"
