#include "trace/trace_read_ahead.h"

#include <stdexcept>
#include <type_traits>
#include <utility>

namespace pmonsim::trace {

read_ahead::read_ahead(std::vector<trace_reader*> readers, std::size_t batch, std::size_t depth)
    : batch_(batch ? batch : 1) {
    depth = depth ? depth : 1;
    refill_at_ = (depth + 1) / 2;
    for (trace_reader* r : readers) {
        source s{r, r->kind() == trace_kind::packets, {}, {}, false};
        for (std::size_t k = 0; k < depth; ++k) {
            batch_t b;
            if (s.packets) b.packets.resize(batch_);
            else b.events.resize(batch_);
            s.free.push_back(std::move(b));
        }
        sources_.push_back(std::move(s));
    }
    thread_ = std::thread([this] { run(); });
}

read_ahead::~read_ahead() {
    {
        std::lock_guard<std::mutex> lock(m_);
        stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
}

read_ahead::source* read_ahead::wanted() {
    for (std::size_t k = 0; k < sources_.size(); ++k) {
        source& s = sources_[(next_source_ + k) % sources_.size()];
        if (!s.done && !s.free.empty()) {
            next_source_ = (next_source_ + k + 1) % sources_.size();
            return &s;
        }
    }
    return nullptr;
}

void read_ahead::run() {
    for (;;) {
        source* s;
        batch_t b;
        {
            std::unique_lock<std::mutex> lock(m_);
            while (!stop_ && !(s = wanted())) {
                reader_waiting_ = true;
                cv_.wait(lock, [&] {
                    if (stop_) return true;
                    for (const source& x : sources_)
                        if (!x.done && x.free.size() >= refill_at_) return true;
                    return false;
                });
                reader_waiting_ = false;
            }
            if (stop_) return;
            b = std::move(s->free.back());
            s->free.pop_back();
        }
        b.count = 0;
        b.error = nullptr;
        try {
            b.count = s->packets ? s->reader->read(b.packets.data(), batch_)
                                 : s->reader->read(b.events.data(), batch_);
        } catch (...) {
            b.error = std::current_exception();
        }
        bool wake;
        {
            std::lock_guard<std::mutex> lock(m_);
            if (b.count == 0) s->done = true;  // the end, or the error
            s->full.push_back(std::move(b));
            wake = consumer_waiting_;
        }
        if (wake) cv_.notify_all();
    }
}

template <class Record>
std::size_t read_ahead::take(std::size_t i, std::vector<Record>& rows) {
    source& s = sources_.at(i);
    batch_t b;
    {
        std::unique_lock<std::mutex> lock(m_);
        if (s.full.empty() && s.done) return 0;  // asked again after the end
        if (s.full.empty()) {
            consumer_waiting_ = true;
            cv_.wait(lock, [&] { return !s.full.empty(); });
            consumer_waiting_ = false;
        }
        b = std::move(s.full.front());
        s.full.pop_front();
    }
    std::exception_ptr error = b.error;
    const std::size_t n = b.count;
    // Hand the consumer's previous batch back for refilling (the first call
    // gives an empty vector).
    if constexpr (std::is_same_v<Record, packet_record>) {
        std::swap(rows, b.packets);
        if (b.packets.size() < batch_) b.packets.resize(batch_);
    } else {
        std::swap(rows, b.events);
        if (b.events.size() < batch_) b.events.resize(batch_);
    }
    b.count = 0;
    b.error = nullptr;
    bool wake;
    {
        std::lock_guard<std::mutex> lock(m_);
        s.free.push_back(std::move(b));
        wake = reader_waiting_ && !s.done && s.free.size() >= refill_at_;
    }
    if (wake) cv_.notify_all();
    if (error) std::rethrow_exception(error);
    return n;
}

std::size_t read_ahead::next(std::size_t i, std::vector<packet_record>& rows) {
    if (!sources_.at(i).packets) throw std::logic_error("read_ahead: packets asked of an event trace");
    return take(i, rows);
}

std::size_t read_ahead::next(std::size_t i, std::vector<event_record>& rows) {
    if (sources_.at(i).packets) throw std::logic_error("read_ahead: events asked of a packet trace");
    return take(i, rows);
}

}  // namespace pmonsim::trace
