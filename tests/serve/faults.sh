#!/usr/bin/env bash
# pmonsim serve under faults: a client killed in the middle of its session
# leaves the server serving the others with nothing corrupted; a server that
# has gone gives an open register file EIO, never a hang; a malformed request
# gets an error reply and a log line; a second server on the same socket is
# refused; SIGTERM ends the server with its report; --strict turns the
# software's mistakes into exit status 3.
# Usage: faults.sh PMONSIM
set -uo pipefail
pmonsim=$1
command -v rdmsr >/dev/null || { echo "SKIP: msr-tools is not installed"; exit 77; }
work=$(mktemp -d)
server=
cleanup() { [ -n "$server" ] && kill -9 "$server" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; [ -f "$work/log" ] && tail -20 "$work/log"; exit 1; }
sock=$work/pmonsim.sock

start_server() {
  "$pmonsim" serve --socket "$sock" --log "$work/log" --report csv --report-file "$work/report.csv" "$@" &
  server=$!
  for _ in $(seq 100); do [ -S "$sock" ] && return; sleep 0.05; done
  fail "the server did not start"
}
client() { timeout 20 "$pmonsim" exec --connect "$sock" -- "$@"; }

start_server --sockets 2
[ "$(stat -c %a "$sock")" = 600 ] || fail "socket mode is $(stat -c %a "$sock"), not 600"

# A second server on the same path is refused, naming the path.
out=$("$pmonsim" serve --socket "$sock" 2>&1); rc=$?
[ $rc = 2 ] && grep -q "already answers at $sock" <<<"$out" || fail "second server: rc $rc, '$out'"

# Client A writes, then is killed while connected; client B sees its write.
mkfifo "$work/hold"
client sh -c 'wrmsr -p 0 0xc10 0x400000; wrmsr -p 16 0xc11 0x400001; read x < "$1"' sh "$work/hold" &
a=$!
for _ in $(seq 100); do grep -q "0xc11 <- 0x400001" "$work/log" 2>/dev/null && break; sleep 0.05; done
pkill -9 -P "$a" sh 2>/dev/null; kill -9 "$a" 2>/dev/null; wait "$a" 2>/dev/null
exec 3> "$work/hold"; exec 3>&-  # (release the FIFO's opener, if any)
[ "$(client rdmsr -p 0 0xc10)" = 400000 ] || fail "client B does not see client A's write"
[ "$(client rdmsr -p 16 0xc11)" = 400001 ] || fail "socket 1's register lost"
grep -q "disconnected" "$work/log" || fail "no disconnection logged"

# Malformed requests: error replies (EBADMSG, EPROTO) and log lines; the server goes on.
python3 - "$sock" <<'PY' || fail "malformed requests were not answered with errors"
import socket, struct, sys
def ask(data):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(sys.argv[1]); s.send(data)
    r = s.recv(4096); s.close()
    return struct.unpack("<iIQQ", r[:24])[0]
import errno
assert ask(b"12345") == errno.EBADMSG                                    # too short
assert ask(struct.pack("<IIIIQ", 2, 0, 0xc10, 8, 0)) == errno.EPROTO       # rdmsr before hello
assert ask(struct.pack("<IIIIQ", 1, 0, 0, 0, 99 << 32)) == errno.EPROTO    # another protocol version
PY
grep -q "malformed request of 5 bytes: refused" "$work/log" || fail "no log line for the malformed request"
grep -q "before hello: refused" "$work/log" || fail "no log line for the request before hello"
[ "$(client rdmsr -p 0 0xc10)" = 400000 ] || fail "the server stopped serving after malformed requests"

# The server goes away under a client that holds a register file open: EIO at once, no hang.
mkfifo "$work/go"
client python3 -c '
import os, sys
fd = os.open("/dev/cpu/0/msr", os.O_RDONLY)
print(int.from_bytes(os.pread(fd, 8, 0xc10), "little"), flush=True)
open(sys.argv[1]).read()
try:
    os.pread(fd, 8, 0xc10); print("read after the server went")
except OSError as e:
    print("errno", e.errno)' "$work/go" > "$work/held" &
c=$!
for _ in $(seq 100); do [ -s "$work/held" ] && break; sleep 0.05; done
kill -TERM "$server"; wait "$server"; rc=$?; server=
[ $rc = 0 ] || fail "the server exited $rc on SIGTERM"
echo > "$work/go"
wait "$c"
[ "$(cat "$work/held")" = "$(printf '4194304\nerrno 5')" ] || fail "client of a gone server: $(cat "$work/held")"
[ ! -e "$sock" ] || fail "socket left behind"
# Model options with --connect are refused, not silently ignored.
out=$(timeout 20 "$pmonsim" exec --connect "$sock" --sockets 2 -- true 2>&1); rc=$?
[ $rc = 2 ] && grep -q -- "--sockets does not apply with --connect" <<<"$out" || fail "--connect with --sockets: rc $rc, '$out'"
# A process started against a server that has gone stops before touching the host.
out=$(timeout 20 "$pmonsim" exec --connect "$sock" -- true 2>&1); rc=$?
[ $rc = 1 ] && grep -q "cannot reach pmonsim serve at $sock" <<<"$out" || fail "client without a server: rc $rc, '$out'"
grep -q "^0,ubox,0,0x00400000," "$work/report.csv" && grep -q "^1,ubox,1,0x00400001," "$work/report.csv" || fail "no report of the clients' writes after SIGTERM"

# --exit-when-idle: the server ends by itself once its last client has gone, with its report.
"$pmonsim" serve --socket "$sock" --exit-when-idle --report csv --report-file "$work/idle.csv" &
server=$!
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.05; done
client wrmsr -p 0 0xc10 0x400042 || fail "client of the idle-ending server"
for _ in $(seq 100); do kill -0 "$server" 2>/dev/null || break; sleep 0.05; done
kill -0 "$server" 2>/dev/null && fail "--exit-when-idle: the server is still running"
wait "$server" || fail "--exit-when-idle: the server failed"; server=
grep -q "^0,ubox,0,0x00400042," "$work/idle.csv" || fail "--exit-when-idle: no report of the client's write"

# A tool's mistake (a reserved bit written) is diagnosed: exit 3 with --strict.
timeout 20 "$pmonsim" exec --strict --report none -- setpci -s ff:08.2 d8.L=00080000; rc=$?
[ $rc = 3 ] || fail "--strict gave $rc"
timeout 20 "$pmonsim" exec --report none -- setpci -s ff:08.2 d8.L=00080000; rc=$?
[ $rc = 0 ] || fail "without --strict: $rc"
# The command's own status comes through.
timeout 20 "$pmonsim" exec --report none -- sh -c 'exit 7'; rc=$?
[ $rc = 7 ] || fail "exit status of the command: $rc"
echo "ok: faults"
