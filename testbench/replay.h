// Trace replay: the packet and event traces given to pmonsim, merged by time
// and posted into the model just before simulated time reaches them (so the
// lazily-counting boxes always know their inputs). A bad row anywhere means
// no results: either every trace is checked completely before anything is
// replayed, or (when nothing of the run shows before its end) the traces are
// checked as they are replayed and finish_checks() reads the rest and gives
// the error a check beforehand would have given. The second reading
// (parsing, inflating, decoding) happens on a background thread a few
// batches ahead of the simulation (batch_pipe.h), so memory stays flat
// whatever the trace length. With several threads the boxes are shared out
// among them, and each reads every trace for its own boxes' records
// (replay_shard.h).
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "parallel/fork_join.h"
#include "replay_shard.h"
#include "sc/uncore_system.h"
#include "trace/trace_chunks.h"
#include "trace/trace_reader.h"

namespace pmonsim {

class progress_meter;  // progress.h

class replayer {
public:
    // When the traces are checked.
    enum class checking {
        // Completely, before the replay: the constructor throws
        // trace::trace_error on the first bad row.
        before,
        // As they are replayed, so that each is read once: feed() throws
        // trace::trace_error when it meets a bad row, and the caller must
        // call finish_checks() before it shows any result of the run.
        while_replaying,
    };
    // `threads` asks for this: each thread reads every trace for its boxes.
    static constexpr unsigned auto_threads = 0;
    // Opens the traces ("-" is standard input, read once into a temporary
    // file, as is a pipe given by name when the traces are checked first)
    // and, with checking::before, validates them.
    // `parse_threads`: threads that parse a large text file in chunks
    // (trace_chunks.h; 1: the one reading thread). `threads`: threads that
    // replay, the caller's included, each owning some of the boxes
    // (replay_shard.h; at most one per box that records drive; 1: the caller
    // alone; auto_threads: default_threads()).
    replayer(uncore_system& sys, const std::vector<std::string>& files, checking when = checking::before,
             unsigned parse_threads = trace::chunked_text_rows::default_workers(), unsigned threads = 1);
    ~replayer();

    static constexpr unsigned max_threads = parallel::fork_join::max_size;

    // With checking::while_replaying, after the run (however it ended):
    // reads what the replay did not, and throws the trace_error that
    // checking before the replay would have thrown (the first bad row of the
    // first bad file), if any. Nothing to do with checking::before.
    void finish_checks();

    // Posts every record whose time is before `until`; returns the time of
    // the next record (the maximum time when there is none).
    time_ps feed(time_ps until) {
        if (when_ == checking::before) return post_due(until);
        try {
            return post_due(until);
        } catch (const trace::trace_error& e) {
            if (!error_) error_ = e;
            throw;
        }
    }
    uint64_t records() const;
    // Threads replaying (1 when the replay has one thread, or the machine
    // one box that records drive).
    unsigned threads() const { return static_cast<unsigned>(shards_.size()); }
    // How far ahead of simulated time the records are best posted, for
    // sim_target's feed: 1 us with one thread; longer with several, so that
    // starting and joining the threads costs little next to a feed.
    time_ps feed_length() const { return team_ ? 16'000'000 : 1'000'000; }

    // A status line of the run (progress.h), polled after each feed; null: none.
    void set_progress(progress_meter* m) { progress_ = m; }
    // What the status line shows of the input.
    struct input_progress {
        uint64_t bytes_read;   // of the trace files, by the replay's reading (not the checks before)
        uint64_t bytes_total;  // their sizes; 0 when one is not a regular file (a pipe)
        uint64_t packets;      // packet records posted
        uint64_t events;       // event records posted
    };
    input_progress progress() const;
    // How much longer a run must last from `now` for every record to be
    // posted and its effects to end; 0 when the replay is over.
    time_ps time_left(time_ps now) const;

private:
    time_ps post_due(time_ps until);
    void poll_progress();
    // Throws the error of the first bad row of the first bad file, checking
    // each file completely in order; returns if every file is good.
    void check_all();
    // Whether every trace can be read again (regular files, standard input
    // spooled, or missing ones): a pipe given by name (`<(zcat t.gz)`) can
    // be read once, so a bad row in it is reported as reading met it.
    bool rereadable() const;
    // The threads a replay takes by default (auto_threads): when every trace
    // is an uncompressed binary file, one per core, at most one per QPI port
    // plus two (each thread decodes every trace, which costs little for
    // binary records, and a replay usually drives the ports, the UBox and the
    // R2PCIe: docs/performance.md); else 1 (each thread would parse or
    // inflate every trace again). No traces: 1.
    unsigned default_threads() const;
    // Opens the traces for at most `threads` shards (share_boxes()).
    void open_shards(unsigned threads, unsigned parse_threads);
    // Shares the boxes out among at most `n` threads (owner_, filters_):
    // the QPI ports, then the boxes that take event rows, back and forth.
    void share_boxes(unsigned n);

    replay_layout layout_;
    std::vector<std::unique_ptr<std::FILE, int (*)(std::FILE*)>> temps_;
    std::vector<std::pair<std::string, std::string>> paths_;  // (path to open, name in messages)
    checking when_;
    std::optional<trace::trace_error> error_;  // the bad row reading met (checking::while_replaying)
    // Bytes read from the trace files (by shard 0's reading, counted per
    // block; before the shards, which count into it until they go).
    std::atomic<uint64_t> bytes_read_{0};
    std::vector<unsigned> owner_;               // by box: its shard
    std::vector<trace::record_filter> filters_;  // by shard (none with one shard)
    std::vector<std::unique_ptr<replay_shard>> shards_;  // shard 0 runs on this thread
    std::vector<time_ps> next_;                           // by shard: what its last feed returned
    std::unique_ptr<parallel::fork_join> team_;           // null: one shard
    std::vector<size_t> presynced_;  // boxes of other shards synced here this feed
    bool more_ = true;  // records left to post
    bool fd_limit_hit_ = false;  // opening the traces ran out of file descriptors
    time_ps last_ = 0;  // the last record's time (found by check_all())
    progress_meter* progress_ = nullptr;
};

}  // namespace pmonsim
