#include "interpose/client.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace pmonsim::interpose {

namespace {

// Connections take the lowest free descriptor from here (below the usual
// soft limit of 1024; where the limit is lower, wherever the kernel puts it).
constexpr int kConnectionFdBase = 700;

// A connected socket in `fd`; 0 or an errno value (fd is then -1).
int connect_to(int& fd, const char* socket_path) {
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    const size_t len = std::strlen(socket_path);
    if (len == 0 || len >= sizeof a.sun_path) return ENAMETOOLONG;
    std::memcpy(a.sun_path, socket_path, len + 1);
    fd = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0) return errno;
    // Out of the way of the program's own descriptors: a shell's `exec 3>f`
    // or a program's dup2 onto a low number must not land on the connection.
    if (const int high = ::fcntl(fd, F_DUPFD_CLOEXEC, kConnectionFdBase); high >= 0) {
        ::syscall(SYS_close, fd);
        fd = high;
    }
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
        const int e = errno;
        close_fd(fd);
        return e;
    }
    return 0;
}

}  // namespace

int open_fd(int& fd_, const char* socket_path, uint32_t tid, wire::machine* m) {
    close_fd(fd_);
    if (const int e = connect_to(fd_, socket_path)) return e;
    wire::request rq{};
    rq.op = static_cast<uint32_t>(wire::op::hello);
    rq.value = uint64_t{wire::kVersion} << 32 | tid;
    wire::reply rp{};
    wire::machine scratch{};
    if (const int e = call_fd(fd_, rq, nullptr, rp, m ? m : &scratch, sizeof scratch)) return e;
    if (rp.error || rp.size != sizeof(wire::machine)) {
        close_fd(fd_);
        return rp.error ? rp.error : EPROTO;
    }
    return 0;
}

int call_fd(int& fd_, const wire::request& rq, const void* payload, wire::reply& rp, void* out, size_t out_cap) {
    if (fd_ < 0) return EIO;
    iovec iov[2] = {{const_cast<wire::request*>(&rq), sizeof rq}, {const_cast<void*>(payload), payload ? rq.size : 0}};
    msghdr m{};
    m.msg_iov = iov;
    m.msg_iovlen = payload && rq.size ? 2 : 1;
    ssize_t n;
    do n = ::sendmsg(fd_, &m, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    if (n != static_cast<ssize_t>(sizeof rq + (m.msg_iovlen == 2 ? rq.size : 0))) {
        close_fd(fd_);
        return EIO;
    }
    iovec in[2] = {{&rp, sizeof rp}, {out, out_cap}};
    msghdr r{};
    r.msg_iov = in;
    r.msg_iovlen = out ? 2 : 1;
    do n = ::recvmsg(fd_, &r, 0);
    while (n < 0 && errno == EINTR);
    if (n < static_cast<ssize_t>(sizeof rp) || (r.msg_flags & MSG_TRUNC) || rp.size > out_cap) {
        close_fd(fd_);
        return EIO;
    }
    return 0;
}

void close_fd(int& fd_) {
    if (fd_ >= 0) ::syscall(SYS_close, fd_);  // (not through the interposer's close)
    fd_ = -1;
}

}  // namespace pmonsim::interpose

namespace pmonsim::interpose {

namespace {

constexpr int kSpinRounds = 20000;          // about 20-50 us of pause instructions
constexpr long kAliveCheckNs = 50'000'000;  // how often a sleeping client checks the server is there

void unmap(server_link& l) {
    if (l.ch) ::munmap(l.ch, sizeof(wire::channel));
    if (l.sp) ::munmap(const_cast<wire::server_page*>(l.sp), sizeof(wire::server_page));
    l.ch = nullptr;
    l.sp = nullptr;
}

// Whether the server's end of the socket is still there.
bool server_alive(int fd) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 0) < 0) return errno == EINTR;
    if (p.revents & (POLLHUP | POLLERR)) return false;
    if (p.revents & POLLIN) {  // (nothing is ever sent on it but hello's reply: a 0-byte read is the end)
        char b;
        if (::recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) == 0) return false;
    }
    return true;
}

}  // namespace

int open_link(server_link& l, const char* socket_path, uint32_t tid, wire::machine* m) {
    close_link(l);
    if (const int e = connect_to(l.fd, socket_path)) return e;
    // The channel: a memfd handed over with the hello.
    const int mfd = static_cast<int>(::syscall(SYS_memfd_create, "pmonsim-channel", MFD_CLOEXEC));
    if (mfd >= 0 && ::ftruncate(mfd, sizeof(wire::channel)) == 0) {
        void* p = ::mmap(nullptr, sizeof(wire::channel), PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
        if (p != MAP_FAILED) l.ch = static_cast<wire::channel*>(p);
    }
    wire::request rq{};
    rq.op = static_cast<uint32_t>(wire::op::hello);
    rq.value = uint64_t{wire::kVersion} << 32 | tid;
    iovec iov{&rq, sizeof rq};
    wire::one_descriptor room;
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    if (l.ch) wire::attach_descriptor(msg, room, mfd);
    ssize_t n;
    do n = ::sendmsg(l.fd, &msg, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    if (mfd >= 0) ::syscall(SYS_close, mfd);
    if (n != static_cast<ssize_t>(sizeof rq)) {
        close_link(l);
        return EIO;
    }
    // The reply: the machine, and the server's page when it took the channel.
    wire::reply rp{};
    wire::machine scratch{};
    iovec in[2] = {{&rp, sizeof rp}, {m ? m : &scratch, sizeof scratch}};
    alignas(cmsghdr) char rcontrol[CMSG_SPACE(sizeof(int))] = {};
    msghdr r{};
    r.msg_iov = in;
    r.msg_iovlen = 2;
    r.msg_control = rcontrol;
    r.msg_controllen = sizeof rcontrol;
    do n = ::recvmsg(l.fd, &r, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    int page_fd = -1;
    for (cmsghdr* c = CMSG_FIRSTHDR(&r); c; c = CMSG_NXTHDR(&r, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) std::memcpy(&page_fd, CMSG_DATA(c), sizeof page_fd);
    if (page_fd >= 0) {
        void* p = ::mmap(nullptr, sizeof(wire::server_page), PROT_READ, MAP_SHARED, page_fd, 0);
        ::syscall(SYS_close, page_fd);
        if (p != MAP_FAILED) l.sp = static_cast<const wire::server_page*>(p);
    }
    if (n != static_cast<ssize_t>(sizeof rp + sizeof scratch) || rp.error || rp.size != sizeof scratch) {
        const int e = n < static_cast<ssize_t>(sizeof rp) ? EIO : rp.error ? rp.error : EPROTO;
        close_link(l);
        return e;
    }
    if (!l.sp) unmap(l);  // the server took no channel: the socket alone
    return 0;
}

int call_link(server_link& l, const wire::request& rq, const void* payload, wire::reply& rp, void* out, size_t out_cap) {
    if (l.fd < 0) return EIO;
    if (!l.ch) return call_fd(l.fd, rq, payload, rp, out, out_cap);
    wire::channel& ch = *l.ch;
    ch.rq = rq;
    if (payload && rq.size) std::memcpy(ch.payload, payload, rq.size < wire::kMaxPayload ? rq.size : wire::kMaxPayload);
    const uint32_t seq = ch.request_seq.load(std::memory_order_relaxed) + 1;
    ch.request_seq.store(seq, std::memory_order_seq_cst);
    if (!l.sp->spinning.load(std::memory_order_seq_cst)) {  // the server sleeps in poll(): ring
        const char bell = 0;
        ssize_t n;
        do n = ::send(l.fd, &bell, 1, MSG_NOSIGNAL);
        while (n < 0 && errno == EINTR);
        if (n != 1) {
            close_link(l);
            return EIO;
        }
    }
    for (int i = 0; i < kSpinRounds && ch.reply_seq.load(std::memory_order_acquire) != seq; ++i) wire::cpu_relax();
    if (ch.reply_seq.load(std::memory_order_acquire) != seq) {
        ch.client_waiting.store(1, std::memory_order_seq_cst);
        for (;;) {
            const uint32_t now = ch.reply_seq.load(std::memory_order_seq_cst);
            if (now == seq) break;
            const timespec t{0, kAliveCheckNs};
            if (wire::futex(&ch.reply_seq, FUTEX_WAIT, now, &t) != 0 && errno == ETIMEDOUT && !server_alive(l.fd)) {
                ch.client_waiting.store(0, std::memory_order_relaxed);
                close_link(l);
                return EIO;
            }
        }
        ch.client_waiting.store(0, std::memory_order_relaxed);
    }
    rp = ch.rp;
    if (rp.size > out_cap || rp.size > wire::kMaxPayload) {
        close_link(l);
        return EIO;
    }
    if (rp.size) std::memcpy(out, ch.out, rp.size);
    return 0;
}

void close_link(server_link& l) {
    unmap(l);
    close_fd(l.fd);
}

void drop_link(server_link& l) {
    // The child shares the parent's pages and socket: unmapping the child's
    // copies and closing its descriptor leaves the parent's connection as it is.
    close_link(l);
}

}  // namespace pmonsim::interpose
