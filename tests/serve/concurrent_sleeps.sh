#!/usr/bin/env bash
# Virtual time with several threads (decisions.md S6): two threads sleeping
# 10 x 1 ms at the same time take 10 ms of simulated time, not 20; one
# thread's sleeps add up.
# Usage: concurrent_sleeps.sh PMONSIM PROGRAM
set -euo pipefail
out=$(timeout 60 "$1" exec --report none -- "$2")
expected="two_threads_ns 10000000
one_thread_ns 10000000"
[ "$out" = "$expected" ] || { echo "FAIL: got"; echo "$out"; exit 1; }
echo "ok: concurrent sleeps overlap"
