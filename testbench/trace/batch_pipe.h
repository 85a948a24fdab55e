// Batches produced on one background thread, ahead of the thread that
// consumes them: the second reading of a replay's traces
// (trace_merger::use_reading_thread).
//
// Why batches and not records: handing single records from one core to the
// other costs a copy and a shared cache line per record, which for plain
// binary traces cost more than decoding them in line. Here the background
// thread fills whole batches and the consumer swaps its used batch for a full
// one: one lock per batch, and the records are read once, in order, where the
// hardware prefetcher follows them.
//
// A pipe has channels (one per trace file, say), each with its own producer
// function and `depth` batches. The thread fills any channel that has a free
// batch and sleeps when none has; it is woken only once a channel has half
// its batches free again, and the consumer only when the batch it waits for
// is there. A producer's exception is kept with the batch it ended and thrown
// by next() when the consumer reaches it, so items and errors come in exactly
// the order the producer made them.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

namespace pmonsim::trace {

template <class Batch>
class batch_pipe {
public:
    // Fills a batch and returns how many items it holds, 0 at the end. The
    // batch is one handed back by the consumer, or default-constructed at
    // first: the function gives it the size it needs. Runs on the background
    // thread only, and may throw.
    using fill_fn = std::function<std::size_t(Batch&)>;

    batch_pipe(std::vector<fill_fn> channels, std::size_t depth) {
        depth = depth ? depth : 1;
        refill_at_ = (depth + 1) / 2;
        for (fill_fn& f : channels) {
            channel c;
            c.fill = std::move(f);
            c.free.resize(depth);
            channels_.push_back(std::move(c));
        }
        thread_ = std::thread([this] { run(); });
    }
    ~batch_pipe() {  // stops the thread (even mid-stream) and joins it
        {
            std::lock_guard<std::mutex> lock(m_);
            stop_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }
    batch_pipe(const batch_pipe&) = delete;
    batch_pipe& operator=(const batch_pipe&) = delete;

    // The next batch of channel i, swapped into `out` (whose previous contents
    // go back to be refilled); its number of items, 0 at the end. Throws the
    // producer's exception once the batches before it have been handed out.
    std::size_t next(std::size_t i, Batch& out) {
        channel& c = channels_.at(i);
        slot s;
        {
            std::unique_lock<std::mutex> lock(m_);
            if (c.full.empty() && c.done) return 0;  // asked again after the end
            if (c.full.empty()) {
                consumer_waiting_ = true;
                cv_.wait(lock, [&] { return !c.full.empty(); });
                consumer_waiting_ = false;
            }
            s = std::move(c.full.front());
            c.full.pop_front();
        }
        const std::exception_ptr error = s.error;
        const std::size_t n = s.count;
        std::swap(out, s.batch);
        s.count = 0;
        s.error = nullptr;
        bool wake;
        {
            std::lock_guard<std::mutex> lock(m_);
            c.free.push_back(std::move(s));
            wake = reader_waiting_ && !c.done && c.free.size() >= refill_at_;
        }
        if (wake) cv_.notify_all();
        if (error) std::rethrow_exception(error);
        return n;
    }

private:
    struct slot {
        Batch batch{};
        std::size_t count = 0;
        std::exception_ptr error;  // thrown after this batch (count is then 0)
    };
    struct channel {
        fill_fn fill;
        std::deque<slot> full;  // oldest first
        std::vector<slot> free;
        bool done = false;      // the producer has ended or failed
    };

    channel* wanted() {  // under the lock: a channel with a free batch to fill
        for (std::size_t k = 0; k < channels_.size(); ++k) {
            channel& c = channels_[(next_channel_ + k) % channels_.size()];
            if (!c.done && !c.free.empty()) {
                next_channel_ = (next_channel_ + k + 1) % channels_.size();
                return &c;
            }
        }
        return nullptr;
    }

    void run() {
        for (;;) {
            channel* c = nullptr;
            slot s;
            {
                std::unique_lock<std::mutex> lock(m_);
                while (!stop_ && !(c = wanted())) {
                    reader_waiting_ = true;
                    cv_.wait(lock, [&] {
                        if (stop_) return true;
                        for (const channel& x : channels_)
                            if (!x.done && x.free.size() >= refill_at_) return true;
                        return false;
                    });
                    reader_waiting_ = false;
                }
                if (stop_) return;
                s = std::move(c->free.back());
                c->free.pop_back();
            }
            s.count = 0;
            s.error = nullptr;
            try {
                s.count = c->fill(s.batch);
            } catch (...) {
                s.error = std::current_exception();
            }
            bool wake;
            {
                std::lock_guard<std::mutex> lock(m_);
                if (s.count == 0) c->done = true;  // the end, or the error
                c->full.push_back(std::move(s));
                wake = consumer_waiting_;
            }
            if (wake) cv_.notify_all();
        }
    }

    std::size_t refill_at_ = 1;
    std::vector<channel> channels_;
    std::size_t next_channel_ = 0;  // round robin
    std::mutex m_;
    std::condition_variable cv_;
    bool stop_ = false;
    bool reader_waiting_ = false;
    bool consumer_waiting_ = false;
    std::thread thread_;
};

}  // namespace pmonsim::trace
