#!/usr/bin/env bash
# Many clients at once on one server: 4 processes of 4 threads each (more
# threads than this machine's cores, so replies come both to spinning and to
# sleeping clients), each thread on its own CPU's register; a fifth process
# is killed in the middle of its run. Every survivor must read back exactly
# what it wrote, and the server must go on.
# Usage: many_clients.sh PMONSIM PROGRAM
set -uo pipefail
pmonsim=$1 prog=$2
work=$(mktemp -d)
server=
cleanup() { [ -n "$server" ] && kill -9 "$server" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
sock=$work/s
"$pmonsim" serve --socket "$sock" --sockets 2 --report none &
server=$!
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.05; done
[ -S "$sock" ] || fail "the server did not start"

# The victim: killed while it works.
"$pmonsim" exec --connect "$sock" -- "$prog" 16 4 100000000 > /dev/null 2>&1 &
victim=$!
pids=()
for p in 0 1 2 3; do
  timeout 120 "$pmonsim" exec --connect "$sock" -- "$prog" $(( 4 * p )) 4 3000 > "$work/out.$p" 2> "$work/err.$p" &
  pids+=($!)
done
# (Started, then 0.3 s into its run: five programs starting at once take a
# while on two cores, longer in the sanitizer build.)
for _ in $(seq 200); do pgrep -f -x "$prog 16 4 100000000" > /dev/null && break; sleep 0.05; done
sleep 0.3
pkill -9 -f -x "$prog 16 4 100000000" || fail "the victim was not running"
wait "$victim" 2>/dev/null
for p in 0 1 2 3; do
  wait "${pids[$p]}" || { cat "$work/err.$p"; fail "client $p failed"; }
  [ "$(cat "$work/out.$p")" = "ok 24000" ] || fail "client $p: $(cat "$work/out.$p")"
done
# The server still answers.
[ "$(timeout 20 "$pmonsim" exec --connect "$sock" -- rdmsr -p 3 0x186 | wc -c)" -gt 1 ] || fail "the server stopped answering"
kill -TERM "$server"; wait "$server" || fail "the server failed"; server=
echo "ok: 4 x 4 threads, 96000 checked round trips, one client killed"
