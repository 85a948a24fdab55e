#include "parallel/port_team.h"

#include <sched.h>

#include <algorithm>
#include <stdexcept>

namespace pmonsim::parallel {

namespace {

// How long a thread spins on a queue before it sleeps or yields: a few tens
// of microseconds, about the gap between a feed's packets and the next
// feed's on a dense trace.
constexpr unsigned kSpins = 4000;

inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

}  // namespace

unsigned port_team::cores() {
    cpu_set_t set;
    if (::sched_getaffinity(0, sizeof set, &set) == 0) {
        const int n = CPU_COUNT(&set);
        if (n > 0) return static_cast<unsigned>(n);
    }
    const unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : n;
}

port_team::port_team(std::vector<box_module*> ports, unsigned members) : ports_(std::move(ports)) {
    for (box_module* b : ports_)
        if (!b || !b->link()) throw std::logic_error("port_team: a box that is not a QPI port");
    if (ports_.size() > 0xffff) throw std::logic_error("port_team: too many ports");
    const size_t n = std::max<size_t>(1, std::min<size_t>(members, ports_.size()));
    try {
        for (size_t k = 1; k < n; ++k) {
            members_.push_back(std::make_unique<member>());
            member& m = *members_.back();
            m.thread = std::thread([this, &m] { work(m); });
        }
    } catch (...) {  // (a thread that could not start: stop those that did)
        stop_all();
        throw;
    }
}

port_team::~port_team() {
    try {
        drain();
    } catch (...) {  // (the replay reported its error already, or is stopping on one)
    }
    stop_all();
}

void port_team::stop_all() {
    for (auto& mp : members_) {
        member& m = *mp;
        if (!m.thread.joinable()) continue;
        {
            std::lock_guard<std::mutex> lock(m.m);
            m.stop = true;
        }
        m.cv.notify_one();
        m.thread.join();
    }
}

void port_team::add_run(size_t ordinal, qpi_dir dir, cycle_t at, uint64_t spacing, uint64_t count,
                        const qpi_packet& p) {
    member& m = *members_[ordinal % members() - 1];
    slot(m, 1);  // (room first: the member may still read the shape there)
    m.shapes[m.tail_local & (kCapacity - 1)] = {spacing, count};
    push(ordinal, op::run, at, &p, dir);
}

void port_team::publish(member& m) {
    m.tail.store(m.tail_local, std::memory_order_seq_cst);
    // (seq_cst both ways: either the member sees the new tail before it
    // sleeps, or this sees it sleeping and wakes it.)
    if (m.sleeping.load(std::memory_order_seq_cst)) {
        std::lock_guard<std::mutex> lock(m.m);
        m.cv.notify_one();
    }
}

void port_team::wait_for_room(member& m, uint64_t n) {
    publish(m);  // (the member may be asleep on what is not yet published)
    for (unsigned i = 0; m.tail_local + n - m.head.load(std::memory_order_acquire) > kCapacity; ++i) {
        if (i < kSpins) relax();
        else std::this_thread::yield();
    }
}

void port_team::drain() {
    for (auto& mp : members_) {
        member& m = *mp;
        if (m.tail.load(std::memory_order_relaxed) != m.tail_local) publish(m);
        for (unsigned i = 0; m.head.load(std::memory_order_acquire) != m.tail_local; ++i) {
            if (i < kSpins) relax();
            else std::this_thread::yield();
        }
    }
    for (auto& mp : members_)
        if (mp->error) {
            std::exception_ptr e = mp->error;
            mp->error = nullptr;
            std::rethrow_exception(e);
        }
}

void port_team::work(member& m) {
    uint64_t head = 0;
    for (;;) {
        uint64_t tail = m.tail.load(std::memory_order_acquire);
        for (unsigned i = 0; i < kSpins && tail == head; ++i) {
            relax();
            tail = m.tail.load(std::memory_order_acquire);
        }
        if (tail == head) {  // nothing to do: sleep until there is
            std::unique_lock<std::mutex> lock(m.m);
            m.sleeping.store(true, std::memory_order_seq_cst);
            m.cv.wait(lock, [&] { return m.stop || m.tail.load(std::memory_order_seq_cst) != head; });
            m.sleeping.store(false, std::memory_order_relaxed);
            tail = m.tail.load(std::memory_order_acquire);
            if (tail == head) return;  // (stopped)
        }
        // Post [head, tail), telling the producer as entries are done.
        while (head != tail) {
            const entry& e = m.ring[head & (kCapacity - 1)];
            if (!m.error) {
                try {
                    box_module& b = *ports_[e.port];
                    switch (e.what) {
                        case op::packet: b.link()->post_packet(e.dir, e.at, e.packet); break;
                        case op::run: {
                            const run_shape& r = m.shapes[head & (kCapacity - 1)];
                            b.link()->post_packets(e.dir, e.at, r.spacing, r.count, e.packet);
                            break;
                        }
                        case op::sync: b.begin_posts(); break;
                    }
                } catch (...) {
                    m.error = std::current_exception();
                }
            }
            ++head;
            if ((head & (kPublish - 1)) == 0 || head == tail) m.head.store(head, std::memory_order_release);
        }
    }
}

}  // namespace pmonsim::parallel
