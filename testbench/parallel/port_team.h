// The QPI ports of a parallel replay (`pmonsim --threads N`): member 0 is
// the replay's own thread, which posts the packets of its ports as it meets
// them; each other member is a thread that owns ports k, k + N, ... and
// takes their packets from a queue the replay fills as it reads (one
// producer, one consumer), so that both post and count at once while the
// trace is read. drain() waits until every member has posted what it was
// given; the replay drains before anything else touches a box.
//
// Why the counts are exact: a port's link and counters are its own (the two
// directions of a port share them, so a port is never split), and a port's
// packets are posted in the order the replay met them, so each port ends a
// feed in the state one thread would leave it in, bit for bit. Everything
// that couples the boxes runs on the replay's thread while the members are
// drained: register accesses, event rows, SystemC's freeze and overflow
// messages. The one coupling inside a feed is a port syncing to the current
// time (the walk counting what was posted before), which can raise an
// overflow message: the replay syncs such a port itself, and hands the walk
// to a member only where the box's closed-form bound says that no message
// can come before the current cycle (message_possible()).
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "sc/box_module.h"

namespace pmonsim::parallel {

class port_team {
public:
    // `ports`: the QPI ports' boxes by ordinal (socket, then port);
    // `members`: threads posting, the caller's included (at most one per port).
    port_team(std::vector<box_module*> ports, unsigned members);
    ~port_team();  // drains, stops and joins the members
    port_team(const port_team&) = delete;
    port_team& operator=(const port_team&) = delete;

    unsigned members() const { return static_cast<unsigned>(members_.size()) + 1; }
    size_t ports() const { return ports_.size(); }
    // Whether the caller posts port `ordinal` itself.
    bool mine(size_t ordinal) const { return ordinal % members() == 0; }

    // For a port of another member (!mine()), in the order one thread would
    // post them: sync the port to the current time (box_module::begin_posts()),
    // a packet, or `count` equal packets one every `spacing` cycles
    // (qpi_link::post_packets()). (add: inline, once per replayed packet.)
    void sync(size_t ordinal) { push(ordinal, op::sync, 0, nullptr, qpi_dir::rx); }
    void add(size_t ordinal, qpi_dir dir, cycle_t at, const qpi_packet& p) { push(ordinal, op::packet, at, &p, dir); }
    void add_run(size_t ordinal, qpi_dir dir, cycle_t at, uint64_t spacing, uint64_t count, const qpi_packet& p);
    // Waits until every member has done what it was given; then rethrows
    // the first error (by member) a member met, if any (a member that met one
    // skips the rest of what it is given).
    void drain();

    // Whether syncing `box` to `now` could raise an overflow message (then
    // the replay's thread must do it: SystemC's messages are its own).
    static bool message_possible(const box_core& box, time_ps now) {
        return box.may_message() && box.message_horizon() < box.clock().cycles_before(now);
    }
    // The cores this process may run on (at least 1).
    static unsigned cores();
    // The members a replay takes by default: the cores beyond the two that
    // read the traces (the packet and the event trace each have a reading
    // thread), at least 1. On a 2-core machine the replay is already bound
    // by the cores (docs/performance.md), and a third busy thread only slows
    // it down.
    static unsigned default_members() { return cores() > 3 ? cores() - 2 : 1; }
    // The most a command line may ask for: more than a machine's QPI ports
    // (at most 8 sockets of 3) is never used, and the bound keeps a typo
    // from starting thousands of threads.
    static constexpr unsigned max_members = 64;

private:
    enum class op : uint8_t { packet, run, sync };
    struct entry {
        cycle_t at;
        qpi_packet packet;
        qpi_dir dir;
        op what;
        uint16_t port;
    };
    struct run_shape {  // an op::run's, at the same place in `shapes`
        uint64_t spacing, count;
    };
    static constexpr size_t kCapacity = size_t{1} << 14;  // entries per member (640 KB with the shapes)
    struct member {
        std::vector<entry> ring = std::vector<entry>(kCapacity);
        std::vector<run_shape> shapes = std::vector<run_shape>(kCapacity);
        // Written by the producer (tail) and the consumer (head), each on
        // a cache line of its own.
        alignas(64) std::atomic<uint64_t> tail{0};
        alignas(64) std::atomic<uint64_t> head{0};
        alignas(64) uint64_t tail_local = 0;   // the producer's; published in steps
        std::atomic<bool> sleeping{false};
        std::mutex m;
        std::condition_variable cv;
        bool stop = false;  // (under m)
        std::exception_ptr error;  // read after drain()
        std::thread thread;
    };
    void push(size_t ordinal, op what, cycle_t at, const qpi_packet* p, qpi_dir dir) {
        member& m = *members_[ordinal % members() - 1];
        entry& e = slot(m, 1);
        e.at = at;
        if (p) e.packet = *p;
        e.dir = dir;
        e.what = what;
        e.port = static_cast<uint16_t>(ordinal);
        if ((++m.tail_local & (kPublish - 1)) == 0) publish(m);
    }
    // The next free entry, with room for `n` entries.
    entry& slot(member& m, uint64_t n) {
        if (m.tail_local + n - m.head.load(std::memory_order_acquire) > kCapacity) wait_for_room(m, n);
        return m.ring[m.tail_local & (kCapacity - 1)];
    }
    static constexpr uint64_t kPublish = 64;  // entries between publications of the tail
    void publish(member& m);
    void wait_for_room(member& m, uint64_t n);
    void work(member& m);
    void stop_all();

    std::vector<box_module*> ports_;
    std::vector<std::unique_ptr<member>> members_;  // members 1, 2, ...
};

}  // namespace pmonsim::parallel
