#!/bin/bash
# pmonsim sweep on one machine: manifest errors, sharded and merged equals
# unsharded, --resume after a killed sweep, failing and crashing runs, the
# summary, golden comparison and JUnit XML.
# Usage: sweep_cli.sh PMONSIM SOURCE_DIR CASE
set -u
pmonsim=$1 src=$2 case=$3
manifest=$src/tests/sweep/manifest.json
tmp=$(mktemp -d /tmp/pmonsim-sweep-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp  # the work folder a killed sweep leaves goes with the rest
fail() { echo "FAIL: $*" >&2; exit 1; }
strip() { sed -E 's/,"wall_s":[^,}]*//' "$1"; }
field() {  # field FILE ID KEY: the JSON value of KEY in the line of run ID
  python3 -c 'import json,sys
for l in open(sys.argv[1]):
    r=json.loads(l)
    if r["id"]==sys.argv[2]: print(json.dumps(r[sys.argv[3]])); break' "$@"
}
drs="ivb-ep|../../traces/drs_data_transfer/packets.csv|../../traces/drs_data_transfer/program.sh"

case $case in
manifest_errors)
  # expect_error NAME JSON TEXT: exit status 2 and TEXT in the message
  expect_error() {
    printf '%s' "$2" >"$tmp/$1.json"
    "$pmonsim" sweep "$tmp/$1.json" --out "$tmp/x" 2>"$tmp/err"
    rc=$?
    [ $rc = 2 ] || fail "$1: exit status $rc, expected 2"
    grep -qF -- "$3" "$tmp/err" || fail "$1: message lacks '$3': $(cat "$tmp/err")"
    [ -e "$tmp/x" ] && fail "$1: results written"
    echo "ok $1: $(cat "$tmp/err")"
  }
  t=$src/traces/drs_data_transfer
  good='"traces": ["'$t'/packets.csv"], "scripts": ["'$t'/program.sh"], "cpus": ["ivb-ep"]'
  expect_error not_json '{"traces": [' "not valid JSON"
  expect_error not_object '[1, 2]' "expected a JSON object, got array"
  expect_error no_cpus '{"traces": ["'$t'/packets.csv"], "scripts": ["'$t'/program.sh"]}' "missing key 'cpus'"
  expect_error traces_not_list '{"traces": "a.csv", "scripts": ["'$t'/program.sh"], "cpus": ["ivb-ep"]}' \
    "key 'traces': expected a list, got string"
  expect_error empty_scripts '{"traces": ["'$t'/packets.csv"], "scripts": [], "cpus": ["ivb-ep"]}' \
    "key 'scripts': the list is empty"
  expect_error cpu_number '{"traces": ["'$t'/packets.csv"], "scripts": ["'$t'/program.sh"], "cpus": ["ivb-ep", 7]}' \
    "key 'cpus', entry 1: expected a string, got 7"
  expect_error cpu_unknown '{"traces": ["'$t'/packets.csv"], "scripts": ["'$t'/program.sh"], "cpus": ["hsw-ep"]}' \
    "key 'cpus', entry 0 (\"hsw-ep\"): unknown CPU"
  expect_error trace_missing '{"traces": ["'$t'/packets.csv", "nope.csv"], "scripts": ["'$t'/program.sh"], "cpus": ["ivb-ep"]}' \
    "key 'traces', entry 1 (\"nope.csv\"): cannot read"
  expect_error twice '{"traces": ["'$t'/packets.csv", "'$t'/packets.csv"], "scripts": ["'$t'/program.sh"], "cpus": ["ivb-ep"]}' \
    "key 'traces', entry 1"
  expect_error unknown_key "{$good, \"cpu\": \"x\"}" "unknown key 'cpu'"
  expect_error option_object "{$good, \"options\": {\"sockets\": [2]}}" "key 'options', entry 'sockets': expected a number"
  expect_error option_reserved "{$good, \"options\": {\"trace\": \"x\"}}" "key 'options', entry 'trace'"
  expect_error scripts_as "{$good, \"scripts_as\": \"shell\"}" "key 'scripts_as'"
  "$pmonsim" sweep "$manifest" --shard 3/3 2>"$tmp/err"; [ $? = 2 ] && grep -q "0 <= I < N" "$tmp/err" || fail "--shard 3/3 accepted"
  "$pmonsim" sweep "$manifest" --jobs 0 2>"$tmp/err"; [ $? = 2 ] || fail "--jobs 0 accepted"
  "$pmonsim" sweep --merge "$tmp/none.jsonl" 2>"$tmp/err"; [ $? = 2 ] && grep -q "needs --out" "$tmp/err" || fail "--merge without --out"
  # A good manifest with options, passed to every run: 1000 UCLK cycles at 2 GHz
  # are 500 000 ps of model time (the trace alone ends at 1 295 000 ps).
  printf '{%s, "scripts_as": "program", "options": {"cycles": 1000, "freeze-latency": 5, "start-frozen": false}}' "$good" >"$tmp/opt.json"
  "$pmonsim" sweep "$tmp/opt.json" --out "$tmp/opt.jsonl" 2>"$tmp/err" || fail "options sweep: $(cat "$tmp/err")"
  grep -q '"model_time_ps":500000,' "$tmp/opt.jsonl" || fail "options sweep: $(cat "$tmp/opt.jsonl")"
  echo "PASS"
  ;;
shards)
  "$pmonsim" sweep "$manifest" --out "$tmp/all.jsonl" --junit "$tmp/all.xml" 2>"$tmp/summary"
  rc=$?
  [ $rc = 3 ] || fail "exit status $rc, expected 3 (the manifest has failing runs)"
  n=$(wc -l <"$tmp/all.jsonl")
  [ "$n" = 112 ] || fail "$n runs, expected 7 traces x 8 scripts x 2 cpus = 112"
  # Real values: the drs_data_transfer example's hand-checked counts.
  [ "$(field "$tmp/all.jsonl" "$drs" counts)" = '{"s0.qpi0.0": 800, "s0.qpi0.1": 160, "s0.qpi0.2": 100, "s0.qpi0.3": 100}' ] ||
    fail "drs counts: $(field "$tmp/all.jsonl" "$drs" counts)"
  [ "$(field "$tmp/all.jsonl" "$drs" model_time_ps)" = 1295000 ] || fail "drs model time"
  [ "$(field "$tmp/all.jsonl" "$drs" exit_status)" = 0 ] || fail "drs exit status"
  for N in 1 2 3 5; do
    files=()
    for ((i = 0; i < N; i++)); do
      "$pmonsim" sweep "$manifest" --shard "$i/$N" --jobs 2 --out "$tmp/s$N-$i.jsonl" 2>/dev/null
      m=$(wc -l <"$tmp/s$N-$i.jsonl")
      # balanced: 112/N rounded down or up
      [ "$m" -ge $((112 / N)) ] && [ "$m" -le $(((112 + N - 1) / N)) ] || fail "shard $i/$N has $m runs"
      files+=("$tmp/s$N-$i.jsonl")
    done
    "$pmonsim" sweep --merge "${files[@]}" --manifest "$manifest" --out "$tmp/m$N.jsonl" >"$tmp/msum$N" 2>&1
    [ $? = 3 ] || fail "merge of $N shards: exit status (expected 3: failing runs)"
    diff <(strip "$tmp/all.jsonl") <(strip "$tmp/m$N.jsonl") >/dev/null || fail "$N shards merged != unsharded"
    grep -q "^missing  *0$" "$tmp/msum$N" && grep -q "^duplicates  *0$" "$tmp/msum$N" || fail "merge $N: $(cat "$tmp/msum$N")"
    echo "ok $N shards merged == unsharded"
  done
  # Same summary either way.
  diff <(head -7 "$tmp/summary") <(head -7 "$tmp/msum5") || fail "summaries differ"
  # Missing and duplicate runs are reported.
  "$pmonsim" sweep --merge "$tmp/s3-0.jsonl" "$tmp/s3-1.jsonl" "$tmp/s3-1.jsonl" "$tmp/s3-2-absent.jsonl" \
    --manifest "$manifest" --out "$tmp/partial.jsonl" --junit "$tmp/partial.xml" >"$tmp/psum" 2>"$tmp/perr"
  missing=$((112 - $(wc -l <"$tmp/s3-0.jsonl") - $(wc -l <"$tmp/s3-1.jsonl")))
  grep -q "^missing  *$missing$" "$tmp/psum" || fail "missing not $missing: $(cat "$tmp/psum")"
  grep -q "^duplicates  *$(wc -l <"$tmp/s3-1.jsonl")$" "$tmp/psum" || fail "duplicates: $(cat "$tmp/psum")"
  grep -q "does not exist" "$tmp/perr" && grep -q "missing run " "$tmp/perr" && grep -q "duplicate run .*same result" "$tmp/perr" ||
    fail "merge messages: $(head -3 "$tmp/perr")"
  # JUnit: well-formed, one test case per run, counts as in the summary.
  for x in all partial; do
    if command -v xmllint >/dev/null; then xmllint --noout "$tmp/$x.xml" || fail "$x.xml not well-formed"; fi
  done
  [ "$(grep -c '<testcase ' "$tmp/all.xml")" = 112 ] || fail "all.xml test cases"
  [ "$(grep -c '<testcase ' "$tmp/partial.xml")" = 112 ] || fail "partial.xml: missing runs are test cases too"
  failed=$(awk 'NR <= 7 && $1 == "failed" {print $2}' "$tmp/summary") errors=$(awk 'NR <= 7 && $1 == "errors" {print $2}' "$tmp/summary")
  grep -q "<testsuite name=\"pmonsim sweep\" tests=\"112\" failures=\"$failed\" errors=\"$errors\"" "$tmp/all.xml" ||
    fail "junit counts: $(grep '<testsuite ' "$tmp/all.xml")"
  [ "$(grep -c '<failure ' "$tmp/all.xml")" = "$failed" ] && [ "$(grep -c '<error ' "$tmp/all.xml")" = "$errors" ] ||
    fail "junit elements"
  # Golden: itself gives 0 differences; one changed count gives 1.
  "$pmonsim" sweep --merge "$tmp/m2.jsonl" --out "$tmp/g.jsonl" --expected "$tmp/all.jsonl" >"$tmp/gsum" 2>&1
  grep -q "^differences  *0$" "$tmp/gsum" || fail "golden of itself: $(cat "$tmp/gsum")"
  sed 's/"s0.qpi0.0":800,"s0.qpi0.1":160,"s0.qpi0.2":100,"s0.qpi0.3":100}/"s0.qpi0.0":801,"s0.qpi0.1":160,"s0.qpi0.2":100,"s0.qpi0.3":100}/' \
    "$tmp/all.jsonl" >"$tmp/golden.jsonl"
  [ "$(grep -c '"s0.qpi0.0":801' "$tmp/golden.jsonl")" = 1 ] || fail "golden edit"
  "$pmonsim" sweep --merge "$tmp/m2.jsonl" --out "$tmp/g.jsonl" --expected "$tmp/golden.jsonl" --junit "$tmp/g.xml" >"$tmp/gsum" 2>&1
  grep -q "^differences  *1$" "$tmp/gsum" && grep -q "differs  $drs" "$tmp/gsum" || fail "golden diff: $(cat "$tmp/gsum")"
  grep -q 'counts: expected {&quot;s0.qpi0.0&quot;:801' "$tmp/g.xml" || fail "junit golden failure text"
  echo "PASS"
  ;;
resume)
  "$pmonsim" sweep "$manifest" --out "$tmp/all.jsonl" 2>/dev/null
  # Kill a sweep in the middle (SIGKILL: no clean-up of its own).
  "$pmonsim" sweep "$manifest" --out "$tmp/r.jsonl" 2>/dev/null &
  pid=$!
  for ((i = 0; i < 400; i++)); do
    [ -f "$tmp/r.jsonl.part" ] && [ "$(wc -l <"$tmp/r.jsonl.part")" -ge 20 ] && break
    sleep 0.02
  done
  kill -9 $pid; wait $pid 2>/dev/null
  [ -e "$tmp/r.jsonl" ] && fail "a killed sweep left a results file"
  kept=$(python3 -c 'import json,sys
n=0
for l in open(sys.argv[1]):
    try: json.loads(l); n+=1
    except Exception: pass
print(n)' "$tmp/r.jsonl.part")
  [ "$kept" -ge 20 ] && [ "$kept" -lt 112 ] || fail "killed at $kept runs"
  head -n "$kept" "$tmp/r.jsonl.part" >"$tmp/before"
  "$pmonsim" sweep "$manifest" --out "$tmp/r.jsonl" --resume 2>"$tmp/err"
  grep -q "^pmonsim sweep: $kept runs kept, $((112 - kept)) to run$" "$tmp/err" || fail "resume: $(head -1 "$tmp/err")"
  [ -e "$tmp/r.jsonl.part" ] && fail "journal left behind"
  # The kept runs were not run again: their lines, wall time included, are unchanged.
  while read -r line; do grep -qxF -- "$line" "$tmp/r.jsonl" || fail "a kept run was run again"; done <"$tmp/before"
  diff <(strip "$tmp/all.jsonl") <(strip "$tmp/r.jsonl") >/dev/null || fail "resumed != one go"
  # Resuming a complete sweep runs nothing and keeps it whole.
  cp "$tmp/r.jsonl" "$tmp/r.before"
  "$pmonsim" sweep "$manifest" --out "$tmp/r.jsonl" --resume 2>"$tmp/err"
  grep -q "112 runs kept, 0 to run" "$tmp/err" && cmp -s "$tmp/r.jsonl" "$tmp/r.before" || fail "second resume"
  echo "PASS: killed after $kept runs, resumed $((112 - kept))"
  ;;
failing)
  t=$src/traces
  cat >"$tmp/m.json" <<JSON
{"traces": ["$t/drs_data_transfer/packets.csv", "$t/snoop_storm/packets.csv"],
 "scripts": ["$src/tests/cli/inputs/bad_script.sh", "$t/drs_data_transfer/program.sh", "$src/tests/cli/inputs/failing_access.sh"],
 "cpus": ["ivb-ep"], "scripts_as": "program"}
JSON
  # A stand-in for pmonsim that crashes (SIGSEGV) on the snoop_storm trace,
  # and notes each run's --threads (the cores shared out between the 2 jobs).
  cat >"$tmp/crashy" <<SH
#!/bin/bash
echo "\$*" | grep -o -- '--threads [0-9]*' >> "$tmp/threads"
case "\$*" in *snoop_storm*bad_script*) echo "about to crash" >&2; kill -SEGV \$\$ ;; esac
exec "$pmonsim" "\$@"
SH
  chmod +x "$tmp/crashy"
  PMONSIM_SWEEP_EXE=$tmp/crashy "$pmonsim" sweep "$tmp/m.json" --jobs 2 --out "$tmp/f.jsonl" --junit "$tmp/f.xml" 2>"$tmp/sum"
  [ $? = 3 ] || fail "exit status, expected 3"
  [ "$(wc -l <"$tmp/f.jsonl")" = 6 ] || fail "not every run recorded"
  want=$(( $(nproc) / 2 > 1 ? $(nproc) / 2 : 1 ))
  [ "$(sort -u "$tmp/threads")" = "--threads $want" ] && [ "$(wc -l <"$tmp/threads")" = 6 ] \
    || fail "each run's threads with --jobs 2: $(sort "$tmp/threads" | uniq -c)"
  bad="ivb-ep|$t/drs_data_transfer/packets.csv|$src/tests/cli/inputs/bad_script.sh"
  [ "$(field "$tmp/f.jsonl" "$bad" exit_status)" = 2 ] || fail "bad script exit status"
  field "$tmp/f.jsonl" "$bad" error | grep -q "bad_script.sh:3: wrmsr" || fail "bad script error: $(field "$tmp/f.jsonl" "$bad" error)"
  crash="ivb-ep|$t/snoop_storm/packets.csv|$src/tests/cli/inputs/bad_script.sh"
  [ "$(field "$tmp/f.jsonl" "$crash" signal)" = 11 ] && [ "$(field "$tmp/f.jsonl" "$crash" exit_status)" = null ] || fail "crash not recorded"
  field "$tmp/f.jsonl" "$crash" error | grep -q "killed by signal 11 .*about to crash" || fail "crash error"
  fa="ivb-ep|$t/drs_data_transfer/packets.csv|$src/tests/cli/inputs/failing_access.sh"
  [ "$(field "$tmp/f.jsonl" "$fa" exit_status)" = 4 ] || fail "failing access"
  [ "$(field "$tmp/f.jsonl" "$fa" output)" = '"before\n"' ] || fail "script output: $(field "$tmp/f.jsonl" "$fa" output)"
  good="ivb-ep|$t/drs_data_transfer/packets.csv|$t/drs_data_transfer/program.sh"
  [ "$(field "$tmp/f.jsonl" "$good" counts)" = '{"s0.qpi0.0": 800, "s0.qpi0.1": 160, "s0.qpi0.2": 100, "s0.qpi0.3": 100}' ] || fail "good run"
  grep -q "^passed  *2$" "$tmp/sum" && grep -q "^failed  *2$" "$tmp/sum" && grep -q "^errors  *2$" "$tmp/sum" || fail "summary: $(cat "$tmp/sum")"
  if command -v xmllint >/dev/null; then xmllint --noout "$tmp/f.xml" || fail "junit"; fi
  grep -q 'tests="6" failures="2" errors="2"' "$tmp/f.xml" || fail "junit counts"
  echo "PASS"
  ;;
commands)
  # Commands run under `pmonsim exec`: msr-tools program the UBox of the model
  # (tests/sweep/ubox_counter.sh), beside a script of the same trace.
  for tool in rdmsr wrmsr; do command -v $tool >/dev/null || fail "$tool not found (Debian package msr-tools)"; done
  cm=$src/tests/sweep/commands.json
  tr=../../traces/ubox_lock_msg/events.csv
  "$pmonsim" sweep "$cm" --out "$tmp/c.jsonl" --junit "$tmp/c.xml" 2>"$tmp/sum"
  [ $? = 3 ] || fail "exit status, expected 3 (snb-ep has no UBox MSRs): $(cat "$tmp/sum")"
  [ "$(wc -l <"$tmp/c.jsonl")" = 6 ] || fail "$(wc -l <"$tmp/c.jsonl") runs, expected 1 trace x 2 cpus x (1 script + 2 commands)"
  ub="ivb-ep|$tr|-- sh ubox_counter.sh"
  # 10 us at UCLK 2 GHz: 20 000 = 0x4e20 cycles; 75 MSIs/IPIs in the trace by then.
  [ "$(field "$tmp/c.jsonl" "$ub" output)" = '"4e20\n75\n"' ] || fail "command output: $(field "$tmp/c.jsonl" "$ub" output)"
  [ "$(field "$tmp/c.jsonl" "$ub" counts)" = '{"s0.ubox.0": 75, "s0.ubox_fixed.0": 20000}' ] ||
    fail "command counts: $(field "$tmp/c.jsonl" "$ub" counts)"
  [ "$(field "$tmp/c.jsonl" "$ub" model_time_ps)" = 10000000 ] || fail "command model time"
  [ "$(field "$tmp/c.jsonl" "$ub" exit_status)" = 0 ] && [ "$(field "$tmp/c.jsonl" "$ub" error)" = null ] || fail "command status"
  [ "$(field "$tmp/c.jsonl" "$ub" command)" = '"sh ubox_counter.sh"' ] || fail "command text"
  # The string form, split on whitespace: the fixed counter never enabled reads 0.
  rd="ivb-ep|$tr|-- rdmsr -p 0 -x 0xc09"
  [ "$(field "$tmp/c.jsonl" "$rd" output)" = '"0\n"' ] && [ "$(field "$tmp/c.jsonl" "$rd" counts)" = '{}' ] ||
    fail "rdmsr run: $(grep -F "$rd" "$tmp/c.jsonl")"
  # snb-ep has no UBox global control: wrmsr fails (status 4), the model diagnoses it.
  sn="snb-ep|$tr|-- sh ubox_counter.sh"
  [ "$(field "$tmp/c.jsonl" "$sn" exit_status)" = 4 ] || fail "snb-ep command status"
  field "$tmp/c.jsonl" "$sn" diagnostics | grep -q '"register": "MSR 0xc00"' || fail "snb-ep diagnostics"
  field "$tmp/c.jsonl" "$sn" error | grep -q "wrmsr: CPU 0 cannot set MSR 0x00000c00" || fail "snb-ep error"
  # The script of the same trace, as before.
  [ "$(field "$tmp/c.jsonl" "ivb-ep|$tr|../../traces/ubox_lock_msg/program.sh" counts)" = \
    '{"s0.ubox.0": 75, "s0.ubox.1": 10, "s0.ubox_fixed.0": 9530}' ] || fail "script run"
  grep -q "^passed  *4$" "$tmp/sum" && grep -q "^failed  *2$" "$tmp/sum" && grep -q "^errors  *0$" "$tmp/sum" ||
    fail "summary: $(cat "$tmp/sum")"
  grep -q 'tests="6" failures="2" errors="0"' "$tmp/c.xml" || fail "junit counts"
  # Sharded and merged equals one go.
  for i in 0 1; do "$pmonsim" sweep "$cm" --shard $i/2 --jobs 2 --out "$tmp/c$i.jsonl" 2>/dev/null; done
  "$pmonsim" sweep --merge "$tmp/c0.jsonl" "$tmp/c1.jsonl" --manifest "$cm" --out "$tmp/cm.jsonl" >/dev/null 2>&1
  diff <(strip "$tmp/c.jsonl") <(strip "$tmp/cm.jsonl") >/dev/null || fail "2 shards merged != unsharded"
  # Bad commands are manifest errors naming the entry.
  t=$src/traces/ubox_lock_msg
  for bad in '["no-such-tool-here 1"]:entry 0 ("no-such-tool-here 1"): no-such-tool-here is neither' \
             '["rdmsr 0xc09", ["rdmsr", "0xc09"]]:entry 1 ("rdmsr 0xc09"): listed twice' \
             '[["rdmsr", 7]]:entry 0: expected a string or a list of strings' \
             '["  "]:entry 0: empty command line' '[]:the list is empty'; do
    printf '{"traces": ["%s/events.csv"], "cpus": ["ivb-ep"], "commands": %s}' "$t" "${bad%%:*}" >"$tmp/bad.json"
    "$pmonsim" sweep "$tmp/bad.json" --out "$tmp/x" 2>"$tmp/err"; rc=$?
    [ $rc = 2 ] && grep -qF -- "key 'commands'" "$tmp/err" && grep -qF -- "${bad#*:}" "$tmp/err" || fail "$bad: $rc $(cat "$tmp/err")"
  done
  echo "PASS"
  ;;
*) fail "unknown case $case" ;;
esac
