#!/usr/bin/env bash
# gen-man.sh HELP2MAN OUT PAGE INCLUDE TOOL [SUBCOMMAND]
#
# Writes the section-1 page PAGE (pmonsim, pmonsim-convert, pmon-stat, ...) to
# OUT: help2man turns the tool's own `--help` text into SYNOPSIS, DESCRIPTION
# and the options, and INCLUDE (a man/*.h2m file) adds the prose sections.
# The option descriptions therefore exist once, in the C++ that prints --help.
#
# Two things are adapted for help2man, neither changing a word of the text:
# - Boost.Program_options leaves a single space between a long option column
#   and its description ("--cpus-per-socket arg (=16) logical CPUs ..."); help2man
#   needs two to tell them apart, so such lines get a second space. A usage
#   line continued on the next, indented line is joined into one.
# - help2man names the page after the first word of --version; a subcommand's
#   page is named "pmonsim-convert" and so on, and the version shown is the
#   release number alone (no git commit: the page documents the release).
set -euo pipefail
if [ $# -lt 5 ] || [ $# -gt 6 ]; then
  echo "usage: gen-man.sh HELP2MAN OUT PAGE INCLUDE TOOL [SUBCOMMAND]" >&2
  exit 2
fi
help2man=$1 out=$2 page=$3 include=$4 tool=$5
sub=("${@:6}")

work=$(mktemp -d "${out}.XXXXXX")
trap 'rm -rf "$work"' EXIT

if ! "$tool" "${sub[@]}" --help > "$work/help.raw"; then
  echo "gen-man.sh: '$tool ${sub[*]} --help' failed" >&2
  exit 1
fi
if ! "$tool" "${sub[@]}" --version > "$work/version.raw"; then
  echo "gen-man.sh: '$tool ${sub[*]} --version' failed" >&2
  exit 1
fi
# "pmonsim 0.1.0 (git ...)" or "pmonsim convert 0.1.0": the first word that
# is a version number.
version=$(head -n 1 "$work/version.raw" | tr ' ' '\n' | grep -m 1 -E '^[0-9]+(\.[0-9]+)+$' || true)
if [ -z "$version" ]; then
  echo "gen-man.sh: no version number in the first line of '$tool ${sub[*]} --version'" >&2
  exit 1
fi

# Whitespace only: an option line (two spaces, "-x [ --name ]" or "--name",
# maybe " arg" and a default " (=...)") with one space before its description
# gets two; a usage line continued on indented lines becomes one line.
perl -0pe '
  s/^(  (?>(?:-\w \[ --[\w-]+ \]|--[\w-]+)(?: arg(?: \(=[^)]*\))?)?)) (?=\S)/$1  /mg;
  1 while s/^(Usage: .*)\n {8,}(?=\S)/$1 /m;
' "$work/help.raw" > "$work/help.txt"
printf '%s %s\n' "$page" "$version" > "$work/version.txt"

# help2man runs "PROGRAM --help" and "PROGRAM --version"; this one prints the
# two texts above.
cat > "$work/$page" <<SCRIPT
#!/bin/sh
case "\$1" in
  --help) cat '$work/help.txt' ;;
  --version) cat '$work/version.txt' ;;
  *) exit 2 ;;
esac
SCRIPT
chmod +x "$work/$page"

"$help2man" --no-info --section=1 --source="pmonsim $version" --manual="pmonsim manual" \
  --include="$include" --output="$work/page.1" "$work/$page"
mv "$work/page.1" "$out"
