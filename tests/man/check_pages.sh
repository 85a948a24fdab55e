#!/usr/bin/env bash
# check_pages.sh PAGE...
# Each manual page is clean for `man --warnings -l` (groff prints nothing on
# stderr), renders with the sections a page of its section must have, and
# names itself in NAME.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v man > /dev/null || fail "man is not installed (Debian package man-db)"
export MANWIDTH=80 LC_ALL=C.UTF-8
unset MAN_KEEP_FORMATTING
for page in "$@"; do
  [ -s "$page" ] || fail "$page is missing or empty"
  warnings=$(man --warnings -l "$page" 2>&1 > /dev/null)
  [ -z "$warnings" ] || fail "man --warnings -l $page:"$'\n'"$warnings"
  text=$(man -l "$page" 2> /dev/null)
  name=$(basename "$page")
  name=${name%.gz}
  section=${name##*.}
  name=${name%.*}
  case $section in
  1) sections=(NAME SYNOPSIS DESCRIPTION "EXIT STATUS" FILES EXAMPLES "SEE ALSO") ;;
  5) sections=(NAME DESCRIPTION EXAMPLES "SEE ALSO") ;;
  *) fail "$page: unexpected section $section" ;;
  esac
  for s in "${sections[@]}"; do
    grep -qx -- "$s" <<<"$text" || fail "$page has no $s section"
  done
  grep -A1 -x NAME <<<"$text" | grep -qE "^ +$name +- +[[:alpha:]]" || fail "$page: NAME does not start with '$name - '"
  echo "OK: $page (${#text} characters, sections ${sections[*]})"
done
