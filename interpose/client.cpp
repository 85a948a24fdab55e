#include "interpose/client.h"

#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace pmonsim::interpose {

int open_fd(int& fd_, const char* socket_path, uint32_t tid, wire::machine* m) {
    close_fd(fd_);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    const size_t len = std::strlen(socket_path);
    if (len == 0 || len >= sizeof a.sun_path) return ENAMETOOLONG;
    std::memcpy(a.sun_path, socket_path, len + 1);
    fd_ = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd_ < 0) return errno;
    if (::connect(fd_, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
        const int e = errno;
        close_fd(fd_);
        return e;
    }
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
