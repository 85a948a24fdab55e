// Reads trace records on a second thread, ahead of the simulation.
//
// Decoding a trace (text parsing, binary decoding, merging by time) and
// simulating it are independent until a record is posted, so on a machine
// with two cores they overlap: a producer thread fills batches of records
// from a source function, the simulation thread takes them in order. Memory
// stays flat: at most `depth` batches of `batch` records exist at a time
// (small batches: the consumer reads a batch while it is still in cache).
// Each side sleeps only when it must, and is woken only once half the
// batches are ready for it again: a wake-up costs far more than a batch.
// An exception thrown by the source reaches the consumer when it gets to
// the place in the stream where it happened.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "trace/trace_reader.h"

namespace pmonsim {

class record_pipe {
public:
    using record = trace::trace_merger::merged_record;
    // `source(r)` fills r and returns true, or returns false at the end; it
    // runs on the producer thread only.
    using source_fn = std::function<bool(record&)>;

    explicit record_pipe(source_fn source, std::size_t batch = 1024, std::size_t depth = 8);
    ~record_pipe();  // stops the producer (even mid-stream) and joins it
    record_pipe(const record_pipe&) = delete;
    record_pipe& operator=(const record_pipe&) = delete;

    // The next record, valid until the next call; null at the end.
    const record* next();

private:
    struct batch_t {
        std::vector<record> records;
        std::size_t used = 0;      // records filled
        bool last = false;         // nothing follows this batch
        std::exception_ptr error;  // thrown after the filled records
    };
    void produce();

    source_fn source_;
    std::size_t batch_size_;
    std::mutex m_;
    std::condition_variable cv_;
    std::deque<batch_t> full_;   // filled, oldest first
    std::vector<batch_t> free_;  // to refill
    bool stop_ = false;
    std::size_t refill_at_;         // free batches that wake the producer
    bool producer_waiting_ = false;
    bool consumer_waiting_ = false;
    bool producer_done_ = false;    // the last batch is in full_
    // Consumer side.
    batch_t cur_;
    std::size_t pos_ = 0;
    bool have_cur_ = false;
    bool ended_ = false;
    std::thread producer_;
};

}  // namespace pmonsim
