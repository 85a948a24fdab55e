// trace_merger (trace_reader.h): several traces merged by time.
//
// Each source holds a batch of records read ahead with trace_reader::read()
// (one call per batch instead of several per record) and the time of its
// current one. The merger drains one source at a time: its records keep
// coming while they are before the bound, the smallest (time, source index)
// among the other sources' current records, so that the usual step is one
// comparison and one copy of a record (records are plain bytes: see the
// static_assert). The other sources wait in a heap, which is consulted only
// when the source being drained passes the bound or ends.
//
// Errors surface as they did when each source held one pending record: a
// batch ends before a bad record, and a source's next batch is read as soon
// as its last record is handed out, so the error comes with that record (and
// the source is dropped, as it was). next_run() hands out a run of records
// in place instead, and moves the source past them on the following call.
//
// With use_reading_thread() the batches are read on a background thread
// (batch_pipe.h) and the sources swap their used batch for a full one.
#include <algorithm>
#include <fstream>
#include <limits>
#include <type_traits>
#include <utility>

#include "trace/batch_pipe.h"
#include "trace/trace_chunks.h"
#include "trace/trace_input.h"
#include "trace/trace_reader.h"

namespace pmonsim::trace {

static_assert(std::is_trivially_copyable_v<trace_record>,
              "records are copied once per merge step: keep them plain bytes");

// Cache-line aligned, as are the sources: the merger and its reading thread
// (use_reading_thread()) work on different cores, and the merger writes its
// state for every record.
struct alignas(64) trace_merger::impl {
    static constexpr std::size_t batch_size = 256;  // without a reading thread
    // A source's batch: records of its kind.
    struct batch {
        std::vector<packet_record> packets;
        std::vector<event_record> events;
    };
    // Up to n records of the reader's kind into b (sized as needed).
    static std::size_t read_into(trace_reader& r, bool packets, batch& b, std::size_t n) {
        if (packets) {
            if (b.packets.size() < n) b.packets.resize(n);
            return r.read(b.packets.data(), n);
        }
        if (b.events.size() < n) b.events.resize(n);
        return r.read(b.events.data(), n);
    }
    // A chunk of a source's rows (trace_chunks.h) as its batch.
    static std::size_t take_chunk(chunked_text_rows& c, bool packets, batch& b) {
        return packets ? c.next(b.packets) : c.next(b.events);
    }
    static constexpr std::size_t none = std::numeric_limits<std::size_t>::max();

    struct alignas(64) source {
        std::unique_ptr<std::istream> stream;  // owned input, if any
        std::unique_ptr<trace_reader> owned;   // owned reader, if any
        trace_reader* reader = nullptr;
        bool packets = true;                     // the reader's kind
        batch rows;  // the batch (of the reader's kind)
        std::size_t cur = 0, count = 0;  // the current record, the batch's size
        time_ps time = 0;                // of the current record

        chunked_text_rows* chunks = nullptr;  // rows parsed on their own threads, if so
        batch_pipe<batch>* ahead = nullptr;  // the reading thread, if any
        std::size_t index = 0;               // in the merger
        std::size_t channel = 0;             // in `ahead`

        // Reads the next batch; false at the end of the source.
        bool refill() {
            cur = 0;
            count = ahead ? ahead->next(channel, rows) : chunks ? take_chunk(*chunks, packets, rows)
                                                                : read_into(*reader, packets, rows, batch_size);
            if (count) time = packets ? rows.packets[0].time : rows.events[0].time;
            return count != 0;
        }
        // Hands out the current record and moves on; false when the source
        // has no more (its next batch is read now, so its errors come now).
        // A whole variant is assigned (a plain copy): assigning the record
        // itself would first read which alternative `out` holds.
        bool take(merged_record& out) {
            if (packets) out.record = trace_record(std::in_place_index<0>, rows.packets[cur]);
            else out.record = trace_record(std::in_place_index<1>, rows.events[cur]);
            return skip(1);
        }
        // Moves past n records of the batch (the current one first); false
        // when the source has no more (as take()).
        bool skip(std::size_t n) {
            cur += n;
            if (cur < count) {
                time = packets ? rows.packets[cur].time : rows.events[cur].time;
                return true;
            }
            return refill();
        }
    };
    std::vector<std::unique_ptr<source>> sources;
    bool started = false;
    std::size_t ahead_batch = 0, ahead_depth = 0;  // use_reading_thread(), 0: none
    std::unique_ptr<batch_pipe<batch>> ahead;  // after `sources`: stops before their readers go

    std::size_t draining = none;    // the source handing out records
    time_ps bound = 0;              // the others' smallest (time, index), while
    std::size_t bound_source = none;  // `draining` is set (none: no others)
    std::vector<std::size_t> waiting;  // the other sources with records: a heap

    std::size_t add(std::unique_ptr<source> s) {
        if (started) throw std::logic_error("trace_merger: add() after next()");
        sources.push_back(std::move(s));
        return sources.size() - 1;
    }

    // Heap order: the top is the smallest (time, source index).
    bool after(std::size_t a, std::size_t b) const {
        const time_ps ta = sources[a]->time, tb = sources[b]->time;
        return ta != tb ? ta > tb : a > b;
    }
    auto heap_order() const {
        return [this](std::size_t a, std::size_t b) { return after(a, b); };
    }
    void wait(std::size_t i) {
        waiting.push_back(i);
        std::push_heap(waiting.begin(), waiting.end(), heap_order());
    }

    void start() {
        started = true;
        for (std::size_t i = 0; i < sources.size(); ++i) {
            source& s = *sources[i];
            s.packets = s.reader->kind() == trace_kind::packets;
            s.index = i;
        }
        if (ahead_batch && !sources.empty()) {
            // (Sources read in chunks have their own threads: none here.)
            std::vector<batch_pipe<batch>::fill_fn> fills;
            for (const auto& s : sources) {
                if (s->chunks) continue;
                s->channel = fills.size();
                fills.push_back([r = s->reader, packets = s->packets, n = ahead_batch](batch& b) {
                    return read_into(*r, packets, b, n);
                });
            }
            if (!fills.empty()) ahead = std::make_unique<batch_pipe<batch>>(std::move(fills), ahead_depth);
            for (const auto& s : sources)
                if (!s->chunks) s->ahead = ahead.get();
        }
        for (std::size_t i = 0; i < sources.size(); ++i)
            if (sources[i]->refill()) wait(i);
    }

    // Whether the source being drained still comes before every other one.
    bool draining_first() const {
        if (draining == none) return false;
        const time_ps t = sources[draining]->time;
        return t < bound || (t == bound && draining < bound_source);
    }

    // Makes the first source in (time, index) order the one drained; false
    // when no source has records.
    bool choose() {
        if (draining != none) wait(draining);
        if (waiting.empty()) {
            draining = none;
            return false;
        }
        std::pop_heap(waiting.begin(), waiting.end(), heap_order());
        draining = waiting.back();
        waiting.pop_back();
        if (waiting.empty()) {
            bound = std::numeric_limits<time_ps>::max();
            bound_source = none;
        } else {
            bound_source = waiting.front();
            bound = sources[bound_source]->time;
        }
        return true;
    }

    // Records handed out by next_run() that the source has not moved past.
    std::size_t lent = 0;
    void settle_lent() {
        if (!lent) return;
        source& s = *sources[draining];
        const std::size_t n = lent;
        lent = 0;
        bool more;
        try {
            more = s.skip(n);
        } catch (...) {
            draining = none;
            throw;
        }
        if (!more) draining = none;
    }

    run next_run(time_ps until) {
        settle_lent();
        if (!draining_first() && !choose()) return {};
        const std::size_t i = draining;
        source& s = *sources[i];
        // Up to the bound (before it, or at it when this source comes first)
        // and before `until`. Times in a batch do not decrease, so the run
        // ends where this stops holding: found by galloping from the front,
        // then bisection, without a pass over records that the consumer is
        // about to read anyway. (Galloping, not bisection of the whole
        // batch: the records were written on the other core, and the
        // gallop's probes, whose addresses do not depend on each other, are
        // fetched at once and mostly lie in the run the consumer reads next.)
        const bool at_bound_ok = i < bound_source;
        auto in_run = [&](const auto& rec) {
            return rec.time < until && (rec.time < bound || (at_bound_ok && rec.time == bound));
        };
        auto run_length = [&](const auto* r, std::size_t n) {
            std::size_t lo = 0, probe = 0;  // r[0, lo) are in the run
            while (probe < n && in_run(r[probe])) {
                lo = probe + 1;
                probe = 2 * probe + 1;
            }
            const std::size_t hi = std::min(probe, n);  // r[hi] (if any) is not
            return lo + static_cast<std::size_t>(std::partition_point(r + lo, r + hi, in_run) - (r + lo));
        };
        if (s.packets) {
            const packet_record* r = s.rows.packets.data() + s.cur;
            const std::size_t n = run_length(r, s.count - s.cur);
            lent = n;
            return {n ? r : nullptr, nullptr, n, i};
        }
        const event_record* r = s.rows.events.data() + s.cur;
        const std::size_t n = run_length(r, s.count - s.cur);
        lent = n;
        return {nullptr, n ? r : nullptr, n, i};
    }

    time_ps last_in_hand() const {
        time_ps t = 0;
        for (const auto& s : sources)
            if (s->cur < s->count)
                t = std::max(t, s->packets ? s->rows.packets[s->count - 1].time : s->rows.events[s->count - 1].time);
        return t;
    }

    time_ps next_time() {
        settle_lent();
        if (!draining_first() && !choose()) return std::numeric_limits<time_ps>::max();
        return sources[draining]->time;
    }

    bool next(merged_record& out) {
        settle_lent();
        if (!draining_first() && !choose()) return false;
        const std::size_t i = draining;
        out.source = i;
        bool more;
        try {
            more = sources[i]->take(out);
        } catch (...) {
            draining = none;  // the source is dropped
            throw;
        }
        if (!more) draining = none;  // the source ended
        return true;
    }
};

trace_merger::trace_merger() : p_(std::make_unique<impl>()) {}
trace_merger::~trace_merger() = default;

std::size_t trace_merger::add(trace_reader& reader) {
    auto s = std::make_unique<impl::source>();
    s->reader = &reader;
    return p_->add(std::move(s));
}

std::size_t trace_merger::add(std::unique_ptr<std::istream> in, std::string filename,
                              const trace_context& ctx) {
    if (p_->started) throw std::logic_error("trace_merger: add() after next()");
    auto s = std::make_unique<impl::source>();
    s->stream = std::move(in);
    s->owned = std::make_unique<trace_reader>(*s->stream, std::move(filename), ctx);
    s->reader = s->owned.get();
    return p_->add(std::move(s));
}

std::size_t trace_merger::open(const std::string& path, const trace_context& ctx) {
    if (const std::string why = unreadable_reason(path); !why.empty())
        throw trace_error(path, 0, 0, "cannot open the file: " + why);
    auto f = std::make_unique<std::ifstream>(path, std::ios::binary);
    if (!*f) throw trace_error(path, 0, 0, "cannot open the file");
    return add(std::move(f), path, ctx);
}

void trace_merger::read_rows_with(std::size_t source, chunked_text_rows& rows) {
    if (p_->started) throw std::logic_error("trace_merger: read_rows_with() after next()");
    impl::source& s = *p_->sources.at(source);
    if (rows.kind() != s.reader->kind()) throw std::logic_error("trace_merger: chunks of another kind");
    s.chunks = &rows;
}

void trace_merger::use_reading_thread(std::size_t batch, std::size_t depth) {
    if (p_->started) throw std::logic_error("trace_merger: use_reading_thread() after next()");
    p_->ahead_batch = batch ? batch : 1;
    p_->ahead_depth = depth ? depth : 1;
}

std::size_t trace_merger::sources() const { return p_->sources.size(); }

const trace_reader& trace_merger::reader(std::size_t source) const {
    return *p_->sources.at(source)->reader;
}

bool trace_merger::next(merged_record& out) {
    impl& m = *p_;
    if (!m.started) m.start();
    return m.next(out);
}

time_ps trace_merger::last_in_hand() const { return p_->started ? p_->last_in_hand() : 0; }

trace_merger::run trace_merger::next_run(time_ps until) {
    impl& m = *p_;
    if (!m.started) m.start();
    return m.next_run(until);
}

time_ps trace_merger::next_time() {
    impl& m = *p_;
    if (!m.started) m.start();
    return m.next_time();
}

}  // namespace pmonsim::trace
