#include "record_pipe.h"

namespace pmonsim {

record_pipe::record_pipe(source_fn source, std::size_t batch, std::size_t depth)
    : source_(std::move(source)), batch_size_(batch ? batch : 1) {
    depth = depth ? depth : 1;
    refill_at_ = (depth + 1) / 2;
    for (std::size_t i = 0; i < depth; ++i) {
        free_.emplace_back();
        free_.back().records.resize(batch_size_);
    }
    producer_ = std::thread([this] { produce(); });
}

record_pipe::~record_pipe() {
    {
        std::lock_guard<std::mutex> lock(m_);
        stop_ = true;
    }
    cv_.notify_all();
    producer_.join();
}

void record_pipe::produce() {
    for (;;) {
        batch_t b;
        {
            std::unique_lock<std::mutex> lock(m_);
            if (free_.empty() && !stop_) {
                producer_waiting_ = true;
                cv_.wait(lock, [&] { return stop_ || free_.size() >= refill_at_; });
                producer_waiting_ = false;
            }
            if (stop_) return;
            b = std::move(free_.back());
            free_.pop_back();
        }
        b.used = 0;
        b.last = false;
        b.error = nullptr;
        try {
            while (b.used < b.records.size()) {
                if (!source_(b.records[b.used])) {
                    b.last = true;
                    break;
                }
                ++b.used;
            }
        } catch (...) {
            b.error = std::current_exception();
            b.last = true;
        }
        const bool last = b.last;
        bool wake;
        {
            std::lock_guard<std::mutex> lock(m_);
            full_.push_back(std::move(b));
            producer_done_ = last;
            wake = consumer_waiting_ && (full_.size() >= refill_at_ || last);
        }
        if (wake) cv_.notify_all();
        if (last) return;
    }
}

const record_pipe::record* record_pipe::next() {
    for (;;) {
        if (have_cur_ && pos_ < cur_.used) return &cur_.records[pos_++];
        if (have_cur_) {
            if (cur_.error) {
                std::exception_ptr e = cur_.error;
                cur_.error = nullptr;
                ended_ = true;
                std::rethrow_exception(e);
            }
            if (cur_.last) ended_ = true;
        }
        if (ended_) return nullptr;
        std::unique_lock<std::mutex> lock(m_);
        if (have_cur_) {  // hand the used batch back for refilling
            free_.push_back(std::move(cur_));
            have_cur_ = false;
            if (producer_waiting_ && free_.size() >= refill_at_) cv_.notify_all();
        }
        if (full_.empty()) {
            // Wait for half the batches (or the last), not the first: when
            // the simulation is faster than the reading, a wake-up per batch
            // cost more than the batch (8 % of a text replay).
            consumer_waiting_ = true;
            cv_.wait(lock, [&] { return full_.size() >= refill_at_ || producer_done_; });
            consumer_waiting_ = false;
        }
        cur_ = std::move(full_.front());
        full_.pop_front();
        have_cur_ = true;
        pos_ = 0;
    }
}

}  // namespace pmonsim
