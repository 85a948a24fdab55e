#include "serve/channel_host.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

namespace pmonsim::serve {

channel_host::channel_host() {
    page_fd_ = static_cast<int>(::syscall(SYS_memfd_create, "pmonsim-server", MFD_CLOEXEC));
    void* p = MAP_FAILED;
    if (page_fd_ >= 0 && ::ftruncate(page_fd_, sizeof(wire::server_page)) == 0)
        p = ::mmap(nullptr, sizeof(wire::server_page), PROT_READ | PROT_WRITE, MAP_SHARED, page_fd_, 0);
    if (p == MAP_FAILED) {
        const int e = errno;
        if (page_fd_ >= 0) ::close(page_fd_);
        throw std::runtime_error(std::string("shared memory for the clients' channels: ") + std::strerror(e));
    }
    page_ = new (p) wire::server_page{};
}

channel_host::~channel_host() {
    ::munmap(page_, sizeof(wire::server_page));
    ::close(page_fd_);
}

wire::channel* channel_host::map(int fd) {
    // Only an anonymous memfd of the channel's size: never a file the client
    // could make the server write into.
    char link[64], target[64] = {};
    std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    if (::readlink(link, target, sizeof target - 1) <= 0 || std::strncmp(target, "/memfd:", 7) != 0) return nullptr;
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<size_t>(st.st_size) != sizeof(wire::channel))
        return nullptr;
    void* p = ::mmap(nullptr, sizeof(wire::channel), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return p == MAP_FAILED ? nullptr : static_cast<wire::channel*>(p);
}

void channel_host::unmap(wire::channel* ch) {
    if (ch) ::munmap(ch, sizeof(wire::channel));
}

void channel_host::deliver(wire::channel& ch, uint32_t seq, const wire::reply& rp, const std::vector<uint8_t>& out) {
    ch.rp = rp;
    if (!out.empty()) std::memcpy(ch.out, out.data(), out.size() < wire::kMaxPayload ? out.size() : wire::kMaxPayload);
    ch.reply_seq.store(seq, std::memory_order_seq_cst);
    if (ch.client_waiting.load(std::memory_order_seq_cst)) wire::futex(&ch.reply_seq, FUTEX_WAKE, 1);
}

}  // namespace pmonsim::serve
