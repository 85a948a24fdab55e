#!/usr/bin/env bash
# The virtual clock's fallback counts CPU time, not wall time (decisions.md
# S6): a thread that spins beside a sleeper ends the sleep once it has used
# --busy-limit of CPU; a thread that is runnable but starved of CPU (a busy
# machine) does not, however long it waits.
# Usage: busy_beside_sleeper.sh PMONSIM PROGRAM
set -euo pipefail
pmonsim=$1 program=$2
limit_ms=100
field() { awk -v k="$1" '$1 == k { print $2 }' <<<"$2"; }

# Spinning for 300 ms of CPU: one 10 ms sleep ends per 100 ms of CPU used.
out=$(timeout 60 "$pmonsim" exec --report none --busy-limit 0.1 -- "$program" busy 300)
sim=$(field simulated_ns "$out") cpu=$(field cpu_ns "$out")
most=$(( (cpu / (limit_ms * 1000000) + 1) * 10000000 ))
if (( sim < 10000000 || sim > most )); then
    echo "FAIL: spinning for $cpu ns of CPU moved simulated time $sim ns (expected 10 ms to $most ns)"; exit 1
fi
echo "ok: a busy thread ended sleeps ($sim ns of simulated time for $cpu ns of CPU)"

# Starved: everything on CPU 0 beside a hog outside the served tree, the
# spinning thread under SCHED_IDLE.
taskset -c 0 bash -c 'while :; do :; done' &
hog=$!
trap 'kill $hog 2>/dev/null || true' EXIT
out=$(timeout 60 taskset -c 0 "$pmonsim" exec --report none --busy-limit 0.1 -- "$program" starved 1000)
sim=$(field simulated_ns "$out") cpu=$(field cpu_ns "$out")
if (( cpu >= limit_ms * 1000000 )); then
    echo "FAIL: the spinning thread was not starved ($cpu ns of CPU in 1 s beside a hog)"; exit 1
fi
if (( sim != 0 )); then
    echo "FAIL: a starved thread ($cpu ns of CPU) moved simulated time $sim ns"; exit 1
fi
echo "ok: a starved thread ended no sleep ($cpu ns of CPU in 1 s of wall time)"

# Bad values are refused, naming the option.
for bad in "--busy-limit 0" "--busy-limit nan" "--busy-limit 1e6" "--clock wall --busy-limit 1"; do
    # shellcheck disable=SC2086  # (the words of $bad are separate arguments)
    err=$("$pmonsim" exec $bad -- true 2>&1) && { echo "FAIL: $bad was accepted"; exit 1; }
    grep -q -- "--busy-limit" <<<"$err" || { echo "FAIL: $bad: '$err'"; exit 1; }
done
echo "ok: bad --busy-limit values are refused"
