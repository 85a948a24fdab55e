// Batches of several trace_readers read on one background thread, ahead of
// the thread that merges and replays them (trace_merger::read_ahead()).
//
// Why batches and not records: handing single records from one core to the
// other (record_pipe) costs a copy and a shared cache line per record, which
// for plain binary traces cost more than decoding them in line. Here the
// reading thread fills whole batches of decoded records and the consumer
// swaps its used batch for a full one: one lock per batch, and the records are
// read once, in order, where the hardware prefetcher follows them.
//
// Each source has `depth` batches. The reading thread fills any source that
// has a free batch, and sleeps when none has; it is woken only once a source
// has half its batches free again, and the consumer only when the batch it
// waits for is there. A reader's error is kept with the batch it ended and
// thrown by next() when the consumer reaches it, so records and errors come
// in exactly the order trace_reader::read() gives them.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "trace/trace_reader.h"

namespace pmonsim::trace {

class read_ahead {
public:
    // The readers must outlive this object and must not be used by anyone
    // else until it is destroyed.
    read_ahead(std::vector<trace_reader*> readers, std::size_t batch = 1024, std::size_t depth = 8);
    ~read_ahead();  // stops the thread (even mid-file) and joins it
    read_ahead(const read_ahead&) = delete;
    read_ahead& operator=(const read_ahead&) = delete;

    // The next batch of source i into `rows` (its previous contents are
    // taken back for reuse); the number of records, 0 at the end. Throws the
    // reader's error once the records before it have been handed out. The
    // overload must match the reader's kind.
    std::size_t next(std::size_t i, std::vector<packet_record>& rows);
    std::size_t next(std::size_t i, std::vector<event_record>& rows);

private:
    struct batch_t {
        std::vector<packet_record> packets;
        std::vector<event_record> events;
        std::size_t count = 0;
        std::exception_ptr error;  // thrown after this batch's records (count is then 0)
    };
    struct source {
        trace_reader* reader;
        bool packets;
        std::deque<batch_t> full;  // oldest first
        std::vector<batch_t> free;
        bool done = false;         // the reader has ended or failed: nothing more to read
    };
    template <class Record>
    std::size_t take(std::size_t i, std::vector<Record>& rows);
    void run();
    source* wanted();  // a source with a free batch to fill (under the lock), or null

    std::size_t batch_, refill_at_;
    std::vector<source> sources_;
    std::size_t next_source_ = 0;  // round robin
    std::mutex m_;
    std::condition_variable cv_;
    bool stop_ = false;
    bool reader_waiting_ = false;
    bool consumer_waiting_ = false;
    std::thread thread_;
};

}  // namespace pmonsim::trace
