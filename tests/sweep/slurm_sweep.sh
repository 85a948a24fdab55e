#!/bin/bash
# A real one-node Slurm cluster on localhost (private munged, slurmctld and
# slurmd: own key, socket, ports and state folders; everything stopped again on
# exit, failure included), a sweep of 112 runs submitted with
# scripts/slurm/submit as an array of 4 tasks plus the afterany merge, and the
# merged result compared run by run with the same sweep in one process.
# If Slurm cannot start, the test fails saying why (it does not skip).
# Usage: slurm_sweep.sh PMONSIM SOURCE_DIR
set -u
pmonsim=$1 src=$2
manifest=$src/tests/sweep/manifest.json
tmp=$(mktemp -d /tmp/pmonsim-slurm.XXXXXX)
chmod 755 "$tmp"
export SLURM_CONF=$tmp/slurm.conf
fail() { echo "FAIL: $*" >&2; for f in "$tmp"/*.log; do [ -f "$f" ] && { echo "--- $f" >&2; tail -15 "$f" >&2; }; done; exit 1; }
stop_all() {
  for p in slurmd slurmctld munged; do
    [ -f "$tmp/$p.pid" ] && kill "$(cat "$tmp/$p.pid")" 2>/dev/null
  done
  sleep 1
  for p in slurmd slurmctld munged; do
    [ -f "$tmp/$p.pid" ] && kill -9 "$(cat "$tmp/$p.pid")" 2>/dev/null
  done
  rm -rf "$tmp"
}
trap stop_all EXIT

for tool in munged slurmctld slurmd sbatch squeue scontrol sinfo; do
  command -v "$tool" >/dev/null || fail "$tool not found (Debian packages slurm-wlm and munge; scripts/setup-debian.sh)"
done
free_port() {  # a TCP port nobody listens on
  local p
  while :; do
    p=$((20000 + RANDOM % 30000))
    ss -ltn 2>/dev/null | grep -q ":$p " || { echo "$p"; return; }
  done
}
ctl_port=$(free_port); d_port=$(free_port)
while [ "$d_port" = "$ctl_port" ]; do d_port=$(free_port); done
node=$(hostname -s)
cpus=$(nproc)
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/out"

# munge: a key of our own, a socket of our own.
dd if=/dev/urandom of="$tmp/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge.key"
munged --key-file="$tmp/munge.key" --socket="$tmp/munge.sock" --pid-file="$tmp/munged.pid" \
  --log-file="$tmp/munged.log" --seed-file="$tmp/munged.seed" --force ||
  fail "munged did not start"

cat >"$SLURM_CONF" <<CONF
ClusterName=pmonsimtest
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctl_port
SlurmdPort=$d_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge.sock
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SlurmctldTimeout=30
SlurmdTimeout=30
MinJobAge=600
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=sweep Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF

slurmctld -f "$SLURM_CONF" -i || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" -N "$node" || fail "slurmd did not start"
for ((i = 0; i < 60; i++)); do
  state=$(sinfo -h -N -o %t 2>/dev/null | head -1)
  [ "$state" = idle ] && break
  sleep 0.5
done
[ "$state" = idle ] || fail "the node did not become idle (state '$state')"
echo "slurm up: node $node, $cpus CPUs, ports $ctl_port/$d_port"

ids=$("$src/scripts/slurm/submit" "$manifest" "$tmp/out" 4 --pmonsim "$pmonsim") || fail "submit failed: $ids"
echo "$ids"
array=$(awk '$1 == "array" {print $2}' <<<"$ids")
merge=$(awk '$1 == "merge" {print $2}' <<<"$ids")
[ -n "$array" ] && [ -n "$merge" ] || fail "submit printed no job ids: $ids"
for ((i = 0; i < 240; i++)); do
  [ -z "$(squeue -h -j "$array,$merge" 2>/dev/null)" ] && break
  sleep 0.5
done
[ -z "$(squeue -h -j "$array,$merge" 2>/dev/null)" ] && echo "jobs done after $((i / 2)) s" || fail "jobs still queued after 120 s"
mstate=$(scontrol show job "$merge" | grep -o 'JobState=[A-Z]*')
tasks=$(scontrol show job "$array" | grep -c 'JobState=COMPLETED')
mexit=$(scontrol show job "$merge" | grep -o ' ExitCode=[0-9:]*')
echo "merge: $mstate$mexit; array tasks completed: $tasks"
# The manifest holds failing runs on purpose: the merge exits 3 (FAILED, ExitCode=3:0).
[ "$mexit" = " ExitCode=3:0" ] || fail "merge job: expected exit status 3 (failed runs reported), got$mexit"
[ "$tasks" = 4 ] || fail "expected 4 completed array tasks, got $tasks"
for i in 0 1 2 3; do [ -s "$tmp/out/shard-$i.jsonl" ] || fail "shard $i wrote nothing"; done
[ -s "$tmp/out/results.jsonl" ] || fail "the merge job wrote no results.jsonl"
cat "$tmp/out/summary.txt" | head -8

# The same sweep in one process, compared run by run (all but the wall time).
"$pmonsim" sweep "$manifest" --out "$tmp/one.jsonl" 2>/dev/null
strip() { sed -E 's/,"wall_s":[^,}]*//' "$1"; }
n=$(wc -l <"$tmp/one.jsonl")
[ "$n" -ge 100 ] || fail "the sweep has $n runs, expected >= 100"
diff <(strip "$tmp/one.jsonl") <(strip "$tmp/out/results.jsonl") >"$tmp/diff.log" || fail "merged != one process: $(head -5 "$tmp/diff.log")"
grep -q "^runs  *$n\$" "$tmp/out/summary.txt" || fail "summary does not count $n runs"
grep -q "^missing  *0\$" "$tmp/out/summary.txt" || fail "summary reports missing runs"
xmllint --noout "$tmp/out/junit.xml" || fail "junit.xml is not well-formed"
[ "$(grep -c '<testcase ' "$tmp/out/junit.xml")" = "$n" ] || fail "junit.xml lacks test cases"
echo "PASS: $n runs on Slurm (4 array tasks + merge) equal the one-process sweep"
