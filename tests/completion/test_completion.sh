#!/usr/bin/env bash
# test_completion.sh COMPLETION_FILE TOOLS_DIR
# The bash completion of pmonsim, pmon-stat and pmonsim-gen-trace, with plain
# bash (no bash-completion package): each case sets COMP_LINE/COMP_POINT (and
# COMP_WORDS/COMP_CWORD) as bash does for a TAB at the end of the line, calls
# the completion function and checks COMPREPLY.
set -uo pipefail
completion=$1 bin=$2
source "$completion" || { echo "FAIL: cannot source $completion"; exit 1; }
pmonsim=$bin/pmonsim stat=$bin/pmon-stat gen=$bin/pmonsim-gen-trace
default_breaks=$' \t\n"\'@><=;|&(:'
COMP_WORDBREAKS=$default_breaks
failures=0 cases=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# complete LINE: COMPREPLY for a TAB at the end of LINE (one reply a line in $reply).
complete_line() {
  COMP_LINE=$1
  COMP_POINT=${#COMP_LINE}
  read -ra COMP_WORDS <<<"$COMP_LINE"
  COMP_CWORD=${#COMP_WORDS[@]}
  [[ $COMP_LINE == *" " ]] || COMP_CWORD=$((COMP_CWORD - 1))
  COMPREPLY=()
  _pmonsim_complete 2>/dev/null
  reply=$(printf '%s\n' "${COMPREPLY[@]}" | sort)
  cases=$((cases + 1))
}
# exactly LINE WORD...: the replies are exactly these words.
exactly() {
  local line=$1
  shift
  complete_line "$line"
  local want
  want=$(printf '%s\n' "$@" | sort)
  [ "$reply" = "$want" ] || fail "'$line<TAB>': got [${reply//$'\n'/ }], want [$*]"
}
# contains LINE WORD...: the replies include these words (and all start like the word typed).
contains() {
  local line=$1 w
  shift
  complete_line "$line"
  for w in "$@"; do
    grep -qxF -- "$w" <<<"$reply" || fail "'$line<TAB>': no '$w' among ${#COMPREPLY[@]} replies [$(head -c 300 <<<"${reply//$'\n'/ }")]"
  done
}
# none LINE: no reply.
none() {
  complete_line "$1"
  [ -z "$reply" ] || fail "'$1<TAB>': got [${reply//$'\n'/ }], want nothing"
}

# Registration.
for c in pmonsim pmon-stat pmonsim-gen-trace; do
  [ "$(complete -p "$c" 2>/dev/null)" = "complete -F _pmonsim_complete $c" ] || fail "no completion registered for $c"
done

# Options and subcommands.
exactly "$pmonsim --tr" --trace
exactly "$pmonsim --vcd-" --vcd-signals --vcd-window
exactly "$pmonsim " convert exec serve sweep
exactly "$pmonsim convert --q" --qpi-gts --qpi-ports
exactly "$pmonsim exec --cl" --clock
contains "$pmonsim serve --" --socket --exit-when-idle --trace
contains "$stat -" -e --event -M --metric --list --target
exactly "$gen --s" --seed --sockets
# Every option of each --help is offered, and nothing else (one text).
check_all_options() {
  local line=$1 help
  shift
  help=$("$@" --help | grep -oE '^  (-[[:alnum:]] \[ --[[:alnum:]-]+ \]|--[[:alnum:]-]+)' | grep -oE -- '--[[:alnum:]-]+' | sort -u)
  complete_line "$line"
  [ -n "$help" ] && [ "$reply" = "$help" ] ||
    fail "'$line<TAB>' offers [${reply//$'\n'/ }], --help lists [${help//$'\n'/ }]"
}
check_all_options "$pmonsim --" "$pmonsim"
check_all_options "$pmonsim convert --" "$pmonsim" convert
check_all_options "$pmonsim exec --" "$pmonsim" exec
check_all_options "$pmonsim serve --" "$pmonsim" serve
check_all_options "$stat --" "$stat"
check_all_options "$gen --" "$gen"

# Option values.
cpus=(snb-ep ivb-ep nhm-ep wsm-ep)
exactly "$pmonsim --cpu " "${cpus[@]}"
exactly "$pmonsim --cpu i" ivb-ep
exactly "$pmonsim --cpu=n" nhm-ep               # (readline replaces what follows '=')
exactly "$pmonsim convert --cpu " "${cpus[@]}"  # (from pmonsim's help: convert's does not list them)
exactly "$pmonsim exec --cpu w" wsm-ep
exactly "$stat --cpu " "${cpus[@]}"
exactly "$pmonsim --report " table csv json none
exactly "$pmonsim serve --report j" json
exactly "$stat --target " sim hw
exactly "$pmonsim exec --clock " virtual wall wall=
none "$pmonsim exec --clock wall="              # (SCALE is a number)
exactly "$gen --dirs " rx tx rx,tx
none "$pmonsim --sockets "
none "$stat --socket "          # pmon-stat's --socket is a number
none "$stat --interval "

# Files where a file is expected.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/traces"
touch "$work/trace-a.csv" "$work/trace-b.bin" "$work/prog.sh" "$work/other"
exactly "$pmonsim --trace $work/tra" "$work/trace-a.csv" "$work/trace-b.bin" "$work/traces"
exactly "$pmonsim --trace=$work/trace-" "$work/trace-a.csv" "$work/trace-b.bin"
exactly "$pmonsim --program $work/pr" "$work/prog.sh"
exactly "$pmonsim --script $work/pr" "$work/prog.sh"
exactly "$pmonsim --config $work/o" "$work/other"
exactly "$pmonsim --vcd $work/o" "$work/other"
exactly "$pmonsim --report-file $work/o" "$work/other"
exactly "$pmonsim convert $work/trace-a" "$work/trace-a.csv"
exactly "$pmonsim convert --cpu nhm-ep $work/trace-a.csv $work/trace-b" "$work/trace-b.bin"
exactly "$pmonsim exec --log $work/o" "$work/other"
exactly "$pmonsim serve --socket $work/o" "$work/other"
exactly "$gen -o $work/o" "$work/other"
exactly "$gen --output $work/o" "$work/other"
exactly "$stat --trace $work/trace-b" "$work/trace-b.bin"
exactly "$stat --hw-root $work/tr" "$work/traces"
# After "--": a command, then its arguments.
contains "$pmonsim exec -- l" ls
exactly "$pmonsim exec --sockets 2 -- sh $work/pr" "$work/prog.sh"

# pmon-stat's events, as perf completes them: BOX/EVENT.UMASK of the CPU on the line.
contains "$stat -e qpi0/RxL_FL" qpi0/RxL_FLITS_G1.DRS_DATA qpi0/RxL_FLITS_G0.DATA qpi0/RxL_FLITS_G2.NCB_DATA
exactly "$stat -e qpi0/RxL_FLITS_G1.DRS_D" qpi0/RxL_FLITS_G1.DRS_DATA
exactly "$stat --event qpi1/RxL_FLITS_G1.DRS_D" qpi1/RxL_FLITS_G1.DRS_DATA
exactly "$stat --event=qpi1/RxL_FLITS_G1.DRS_D" qpi1/RxL_FLITS_G1.DRS_DATA
# QPI ports: 2 by default (pmon-stat's --qpi-ports default), or as the line says,
# and any port the word names (a real machine may have more).
complete_line "$stat -e qpi"
grep -q '^qpi1/RxL_FLITS_G1.DRS_DATA$' <<<"$reply" && ! grep -q '^qpi2/' <<<"$reply" ||
  fail "'pmon-stat -e qpi<TAB>': not the events of qpi0 and qpi1 alone"
contains "$stat --qpi-ports 3 -e qpi" qpi2/RxL_FLITS_G1.DRS_DATA qpi0/CTO_COUNT:DRS.AnyDataC qpi2/CTO_COUNT:NCB.AnyInt
exactly "$stat -e qpi2/RxL_FLITS_G1.DRS_D" qpi2/RxL_FLITS_G1.DRS_DATA
contains "$stat -e ubox/EVENT_MSG." ubox/EVENT_MSG.MSI_RCVD ubox/EVENT_MSG.IPI_RCVD
contains "$stat -e r2pcie/RING_AD_USED.C" r2pcie/RING_AD_USED.CW r2pcie/RING_AD_USED.CW_VR0_EVEN
exactly "$stat -e ubox_f" ubox_fixed/UCLK
contains "$stat --cpu nhm-ep -e uncore/QMC_N" uncore/QMC_NORMAL_READS.CH0 uncore/QMC_NORMAL_READS.ANY
contains "$stat --cpu=wsm-ep -e uncore/QMC_N" uncore/QMC_NORMAL_READS.CH0
none "$stat --cpu nhm-ep -e qpi0/RxL_FL"          # no QPI boxes on nhm-ep
none "$stat -e uncore/QMC_N"                      # ... nor an uncore box on ivb-ep (the default)
# After a comma: the next event, or a modifier of this one.
exactly "$stat -e qpi0/RxL_FLITS_G1.SNP,qpi1/RxL_FLITS_G1.DRS_D" qpi0/RxL_FLITS_G1.SNP,qpi1/RxL_FLITS_G1.DRS_DATA
exactly "$stat -e qpi0/RxL_FLITS_G1.SNP,th" qpi0/RxL_FLITS_G1.SNP,thresh=
exactly "$stat -e qpi0/RxL_FLITS_G1.SNP,ed" qpi0/RxL_FLITS_G1.SNP,edge
# CTO_COUNT with a filter preset; readline replaces what follows ':' ...
contains "$stat -e qpi1/CTO_COUNT:DRS.Data" DRS.DataC_M DRS.DataC_E
# ... unless ':' is not a word break.
COMP_WORDBREAKS=${default_breaks//:/}
contains "$stat -e qpi1/CTO_COUNT:DRS.Data" qpi1/CTO_COUNT:DRS.DataC_M
COMP_WORDBREAKS=$default_breaks
# Every event of `pmon-stat --list` is offered for an empty word.
complete_line "$stat --cpu snb-ep -e "
listed=$("$stat" --list --cpu snb-ep | awk '/^Events of/ {e = 1; next} /^[^ ]/ {e = 0} e {print $1}' | sort -u)
missing=$(comm -23 <(echo "$listed") <(echo "$reply"))
[ -n "$listed" ] && [ -z "$missing" ] || fail "'pmon-stat --cpu snb-ep -e <TAB>' lacks [$(head -c 300 <<<"${missing//$'\n'/ }")]"
# Metrics.
contains "$stat -M " qpi_data_bw qpi_link_util drs_data_from_qpi
exactly "$stat --metric qpi_l" qpi_link_util

echo "$cases cases, $failures failed"
[ "$failures" -eq 0 ]
