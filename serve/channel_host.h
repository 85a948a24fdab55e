// The server's side of the shared-memory channels (serve/channel.h): its own
// page, which tells clients whether it is scanning their channels, and the
// mapping, reading and answering of each client's channel.
#pragma once
#include <cstdint>
#include <vector>

#include "serve/channel.h"

namespace pmonsim::serve {

class channel_host {
public:
    channel_host();  // throws std::runtime_error when no shared memory can be had
    ~channel_host();
    channel_host(const channel_host&) = delete;
    channel_host& operator=(const channel_host&) = delete;

    int page_fd() const { return page_fd_; }  // handed to each client at hello
    void set_spinning(bool on) { page_->spinning.store(on ? 1 : 0, std::memory_order_seq_cst); }

    // A client's channel from the memfd it sent; null if it is not one.
    static wire::channel* map(int fd);
    static void unmap(wire::channel* ch);
    // Whether the channel holds a request after `served`.
    static bool pending(const wire::channel& ch, uint32_t served) {
        return ch.request_seq.load(std::memory_order_seq_cst) != served;
    }
    // Writes the reply to request `seq` and wakes the client if it sleeps.
    static void deliver(wire::channel& ch, uint32_t seq, const wire::reply& rp, const std::vector<uint8_t>& out);

private:
    int page_fd_ = -1;
    wire::server_page* page_ = nullptr;
};

}  // namespace pmonsim::serve
