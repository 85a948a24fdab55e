// A connection to `pmonsim serve` (serve/protocol.h): blocking calls, one at a
// time. Used by the interposer (one connection per thread), the benchmark
// and the tests. No exceptions and no allocation: it runs inside interposed
// system calls. A server that has gone gives EIO, never a hang.
#pragma once
#include <cstddef>
#include <cstdint>

#include "serve/channel.h"
#include "serve/protocol.h"

namespace pmonsim::interpose {

// The calls on a bare socket descriptor (a thread's connection in the
// interposer lives in a plain thread-local int, usable in a signal handler).
// open_fd: connects and says hello (protocol version, the caller's tid),
// filling `m` if given; returns 0 or an errno value. call_fd: one request
// (with `payload` of rq.size bytes for note and pci_block_write) and its
// reply, whose payload lands in `out` (at most `out_cap` bytes); returns 0,
// or EIO when the server cannot be reached (fd is then closed and set to
// -1); the reply's own error is in rp.error.
int open_fd(int& fd, const char* socket_path, uint32_t tid, wire::machine* m);
int call_fd(int& fd, const wire::request& rq, const void* payload, wire::reply& rp, void* out, size_t out_cap);
void close_fd(int& fd);

// The same over the shared-memory channel (serve/channel.h) when the server
// accepts one at hello, else over the socket alone. A plain struct: the
// interposer keeps one per thread in thread-local storage.
struct server_link {
    int fd = -1;
    wire::channel* ch = nullptr;
    const wire::server_page* sp = nullptr;
};
int open_link(server_link& l, const char* socket_path, uint32_t tid, wire::machine* m);
int call_link(server_link& l, const wire::request& rq, const void* payload, wire::reply& rp, void* out, size_t out_cap);
void close_link(server_link& l);
// A forked child's copy of its parent's link: closed without a word to the server.
void drop_link(server_link& l);

class connection {
public:
    connection() = default;
    ~connection() { close(); }
    connection(const connection&) = delete;
    connection& operator=(const connection&) = delete;

    int open(const char* socket_path, uint32_t tid, wire::machine* m = nullptr) {
        return open_fd(fd_, socket_path, tid, m);
    }
    bool is_open() const { return fd_ >= 0; }
    int call(const wire::request& rq, const void* payload, wire::reply& rp, void* out = nullptr, size_t out_cap = 0) {
        return call_fd(fd_, rq, payload, rp, out, out_cap);
    }
    void close() { close_fd(fd_); }
    int fd() const { return fd_; }

private:
    int fd_ = -1;
};

}  // namespace pmonsim::interpose
