// The fast path of the protocol: one shared-memory page pair per connection
// (a memfd the client makes and hands over with its hello), so that a
// request and its reply cost no system call while both sides are awake.
//
// A Unix socket round trip between two processes costs several microseconds
// here (two system calls and two wake-ups each way); an MSR read on silicon
// costs about 2 us. So: the client writes its request into the page and
// bumps `request_seq`; the server, which spins over the pages of its clients
// for a short while after each request, answers in place and bumps
// `reply_seq`. Only when the server has stopped spinning (it sleeps in
// poll()) does the client ring: one byte on the socket. The client spins
// for its reply for a while too, then sleeps on a futex of `reply_seq`
// (woken by the server when `client_waiting` says so), checking every
// 50 ms that the server still exists (its socket), so that a server that
// has gone gives EIO, never a hang.
//
// Ordering: each side publishes with a sequentially consistent store and
// then reads the other side's flag, so a request is never left unseen: the
// server clears `spinning` and then scans every page once more before
// sleeping; the client bumps `request_seq` and then reads `spinning`.
#pragma once
#include <linux/futex.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>

#include "serve/protocol.h"

namespace pmonsim::wire {

struct channel {
    std::atomic<uint32_t> request_seq;    // client: a new request is in `rq`
    std::atomic<uint32_t> reply_seq;      // server: the reply to request `reply_seq` is in `rp`
    std::atomic<uint32_t> client_waiting; // client: asleep on reply_seq (wake me)
    uint32_t reserved;
    request rq;
    reply rp;
    uint8_t payload[kMaxPayload];  // the request's
    uint8_t out[kMaxPayload];      // the reply's
};

// The server's page, shared by all its clients.
struct server_page {
    std::atomic<uint32_t> spinning;  // the server is scanning the channels now: no need to ring
    uint32_t reserved[15];
};

inline long futex(std::atomic<uint32_t>* word, int op, uint32_t value, const timespec* timeout = nullptr) {
    return ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), op, value, timeout, nullptr, 0);
}

inline void cpu_relax() { __builtin_ia32_pause(); }

// Room for one descriptor passed with a message (the channel's memfd at
// hello, the server's page in its reply).
struct one_descriptor {
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
};
// Attaches descriptor `fd` to message `m` (SCM_RIGHTS), in `room`.
inline void attach_descriptor(msghdr& m, one_descriptor& room, int fd) {
    m.msg_control = room.control;
    m.msg_controllen = sizeof room.control;
    cmsghdr* c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
}

}  // namespace pmonsim::wire
