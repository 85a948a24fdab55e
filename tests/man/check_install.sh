#!/usr/bin/env bash
# check_install.sh BUILD MAN1_PAGES MAN5_PAGES
# `cmake --install` puts every manual page, gzipped, in share/man/man1 and man5
# (where man finds it by name), and the bash completion under each command's
# name in share/bash-completion/completions (where it completes the installed
# tools).
set -euo pipefail
build=$1 man1=$2 man5=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" > /dev/null
n=0
for spec in "1:$man1" "5:$man5"; do
  section=${spec%%:*}
  for page in ${spec#*:}; do
    file=$prefix/share/man/man$section/$page.$section.gz
    [ -f "$file" ] || fail "$file is not installed"
    gzip -t "$file" || fail "$file is not gzip"
    upper=$(tr '[:lower:]' '[:upper:]' <<<"$page")
    zcat "$file" | grep -q "^\.TH \"\?$upper\"\? \"\?$section\"\?" || fail "$file: no .TH $upper $section"
    found=$(MANPATH=$prefix/share/man man -w "$section" "$page") || fail "man does not find $page($section) in $prefix"
    [ "$found" = "$file" ] || fail "man finds $page($section) at $found, not $file"
    n=$((n + 1))
  done
done
completions=$prefix/share/bash-completion/completions
for command in pmonsim pmon-stat pmonsim-gen-trace; do
  [ -f "$completions/$command" ] || fail "$completions/$command is not installed"
  registered=$(bash -c 'source "$1" && complete -p "$2"' sh "$completions/$command" "$command") ||
    fail "sourcing $completions/$command registers no completion for $command"
  [ "$registered" = "complete -F _pmonsim_complete $command" ] || fail "$command: $registered"
done
# The installed completion, on the installed pmonsim.
reply=$(bash -c '
  source "$1"
  COMP_LINE="$2 --tr" COMP_POINT=${#COMP_LINE} COMP_WORDS=("$2" --tr) COMP_CWORD=1
  _pmonsim_complete
  printf "%s\n" "${COMPREPLY[@]}"' sh "$completions/pmonsim" "$prefix/bin/pmonsim")
[ "$reply" = "--trace" ] || fail "installed: 'pmonsim --tr<TAB>' gave '$reply', not --trace"
echo "OK: $n manual pages and 3 completion files installed under $prefix"
