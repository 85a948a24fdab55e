// Trace replay: the packet and event traces given to pmonsim, merged by time
// and posted into the model just before simulated time reaches them (so the
// lazily-counting boxes always know their inputs). A bad row anywhere means
// no results: either every trace is checked completely before anything is
// replayed, or (when nothing of the run shows before its end) the traces are
// checked as they are replayed and finish_checks() reads the rest and gives
// the error a check beforehand would have given. The second reading
// (parsing, inflating, decoding) happens on a background thread a few
// batches ahead of the simulation (batch_pipe.h), so memory stays flat
// whatever the trace length.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "parallel/port_team.h"
#include "sc/uncore_system.h"
#include "trace/trace_chunks.h"
#include "trace/trace_reader.h"

namespace pmonsim {

class progress_meter;  // progress.h

trace::trace_context trace_context_of(const uncore_config& cfg);

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
    // Opens the traces ("-" is standard input, read once into a temporary
    // file, as is a pipe given by name when the traces are checked first)
    // and, with checking::before, validates them.
    // `parse_threads`: threads that parse a large text file in chunks
    // (trace_chunks.h; 1: the one reading thread). `threads`: threads that
    // post the QPI ports' packets and count them, the caller's included
    // (parallel/port_team.h; at most one per port; 1: the caller alone).
    replayer(uncore_system& sys, const std::vector<std::string>& files, checking when = checking::before,
             unsigned parse_threads = trace::chunked_text_rows::default_workers(), unsigned threads = 1);
    ~replayer();

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
    uint64_t records() const { return posted_; }
    // Threads posting packets (1 when the replay has one thread, or the
    // machine one QPI port or none).
    unsigned threads() const { return team_ ? team_->members() : 1; }
    // How far ahead of simulated time the records are best posted, for
    // sim_target's feed: 1 us with one thread; longer with several, so that
    // handing a feed's packets to the team costs little next to posting them.
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
    // Places packets on a port's link: here, or by the team member whose
    // port it is. (Inline: once per packet. The usual packet, for a port
    // this thread has posted to in the feed, takes one load to find its link.)
    [[gnu::always_inline]] void to_link(unsigned socket, unsigned port, qpi_dir dir, cycle_t at, const qpi_packet& p) {
        const size_t o = port_ordinal(socket, port);
        if (qpi_link* l = feed_links_[o]) [[likely]] {
            l->post_packet(dir, at, p);
            return;
        }
        first_to_link(o, dir, at, p);
    }
    // to_link() for a port that is not in feed_links_: the team member's, or
    // the first post to it in the feed.
    [[gnu::noinline]] void first_to_link(size_t ordinal, qpi_dir dir, cycle_t at, const qpi_packet& p);
    void to_link(unsigned socket, unsigned port, qpi_dir dir, cycle_t at, uint64_t spacing, uint64_t count,
                 const qpi_packet& p);
    // The first post in a feed to a port of another member: the port is
    // synced to now, by the member or (when that could raise a message) here.
    void claim(size_t ordinal);
    // A QPI port's ordinal among the machine's ports (socket, then port).
    size_t port_ordinal(unsigned socket, unsigned port) const {
        const unsigned n = units_of_[static_cast<unsigned>(box_kind::qpi)];
        if ((port >= n) | (socket >= sockets_)) no_such_box();
        return size_t{socket} * n + port;
    }
    void poll_progress();
    // Throws the error of the first bad row of the first bad file, checking
    // each file completely in order; returns if every file is good.
    void check_all();
    // Whether every trace can be read again (regular files, standard input
    // spooled, or missing ones): a pipe given by name (`<(zcat t.gz)`) can
    // be read once, so a bad row in it is reported as reading met it.
    bool rereadable() const;
    // (Inline: once per packet, in post_due()'s loop.) `source`: the trace
    // it came from (the merger's index).
    [[gnu::always_inline]] void post_packet(const trace::packet_record& p, size_t source) {
        switch (route_) {
            case packet_route::qpi_link: {
                if ((p.run.repeat != 1) | runs_open_) [[unlikely]]
                    return post_with_runs(p, source, stream_of(p.socket, p.port, p.dir));
                to_link(p.socket, p.port, p.dir, p.cycle, p.packet);
                return;
            }
            case packet_route::home_logic: post_request(p); return;
        }
    }

    // Run-length bursts (trace_reader::keep_bursts): a burst record becomes
    // a pending run of its stream, whose packets are placed in closed form
    // (qpi_link::post_packets) in as few pieces as the other records allow:
    // before a record of the same stream, the packets that come before it
    // (at an equal time, those of runs from earlier traces: the merger's
    // order, and a reader's, which gives a trace's records before its bursts'
    // later packets); at the end of a feed, every run's packets
    // up to the next record of any trace (nothing can come between them
    // then). Runs of one stream that overlap (two traces, or a file not
    // written by pmonsim) are placed packet by packet in time order while
    // they do.
    struct pending_run {
        qpi_packet packet;
        uint8_t socket = 0, port = 0;
        qpi_dir dir = qpi_dir::rx;
        cycle_t next = 0;   // the cycle of its next packet
        uint64_t left = 0;  // packets still to place
        uint64_t spacing = 0;
        size_t source = 0;
    };
    size_t stream_of(unsigned socket, unsigned port, qpi_dir dir) const {
        return (size_t{socket} * ctx_.qpi_ports + port) * 2 + static_cast<size_t>(dir);
    }
    [[gnu::noinline]] void post_with_runs(const trace::packet_record& p, size_t source, size_t stream);
    // Places the packets of a stream's runs that come before time t: those
    // before t, and those at t of runs from the traces before `ties_below`
    // (a record of trace k: k; 0: none).
    void place_runs(size_t stream, time_ps t, size_t ties_below);
    time_ps run_packet_time(const pending_run& r, cycle_t c) const;
    time_ps next_run_packet() const;
    // A request reaching a socket's home logic: to its uncore box's
    // address/opcode filter.
    void post_request(const trace::packet_record& p);
    void post_event(const trace::event_record& e);
    // A box of the flat list; `touched`: synced for the current feed.
    struct box_ref {
        box_module* module;
        qpi_link* link;  // null if not a QPI port
        bool touched;
    };
    // The box at `index`, synced for this feed's posts. (Inline: once per
    // record; the first post to a box in a feed goes out of line.)
    box_ref& touch(size_t index) {
        if (index >= boxes_.size()) no_such_box();
        box_ref& b = boxes_[index];
        if (!b.touched) begin_posts(index);
        return b;
    }
    // A QPI port's link, synced for this feed's posts.
    qpi_link& link_of(unsigned socket, unsigned port) { return *touch(box_index(socket, box_kind::qpi, port)).link; }
    void begin_posts(size_t index);
    void end_posts();
    [[noreturn]] static void no_such_box();
    // Where a box is in boxes_: in its socket (uncore_socket::boxes() order,
    // a kind's units together), the first box of its kind plus its unit.
    // (No branch on the kind: event rows of all boxes come mixed.)
    size_t box_index(unsigned socket, box_kind kind, unsigned unit) const {
        const unsigned k = static_cast<unsigned>(kind);
        if (unit >= units_of_[k]) no_such_box();
        return socket * per_socket_ + first_of_[k] + unit;
    }

    uncore_system& sys_;
    std::vector<box_ref> boxes_;  // every socket's boxes, socket after socket
    size_t per_socket_ = 0;
    std::array<unsigned, box_kind_count> first_of_{}, units_of_{};  // by box kind, in a socket
    std::vector<size_t> touched_list_;
    std::vector<std::unique_ptr<std::FILE, int (*)(std::FILE*)>> temps_;
    std::vector<std::pair<std::string, std::string>> paths_;  // (path to open, name in messages)
    trace::trace_context ctx_;
    packet_route route_;
    checking when_;
    std::optional<trace::trace_error> error_;  // the bad row reading met (checking::while_replaying)
    std::vector<std::unique_ptr<std::istream>> streams_;  // (outlive the mergers, which read them)
    std::vector<std::unique_ptr<trace::trace_reader>> readers_;
    // Large text files' rows, parsed on their own threads (outlive the mergers too).
    std::vector<std::unique_ptr<trace::chunked_text_rows>> chunks_;
    // Packet traces and event traces merged apart: only packets of one port
    // and direction depend on their order (the first posted takes the first
    // free slot); an event row is an additive step that may be posted in any
    // order before its cycle. So each feed drains the one, then the other, in
    // long runs, instead of switching at every event row.
    trace::trace_merger packets_, events_;
    // The threads posting the QPI ports' packets; null: this one alone.
    std::unique_ptr<parallel::port_team> team_;
    std::vector<size_t> port_box_;  // a QPI port's place in boxes_, by ordinal
    unsigned sockets_ = 0;
    // By port ordinal: the link of a port this thread has synced and posted
    // to in the current feed (null: none yet, or a team member's port).
    std::vector<qpi_link*> feed_links_;
    bool more_ = true;  // records left to post
    bool fd_limit_hit_ = false;  // opening the traces ran out of file descriptors
    time_ps end_ = 0;
    time_ps last_ = 0;  // the last record's time (found by check_all())
    uint64_t posted_ = 0;
    uint64_t posted_packets_ = 0;
    std::vector<std::vector<pending_run>> runs_;  // by stream (socket, port, direction), oldest first
    std::vector<size_t> open_runs_;               // the streams that have one
    bool runs_open_ = false;                      // !open_runs_.empty(), for the loop's test
    progress_meter* progress_ = nullptr;
    // Bytes read from the trace files (by the reading thread; counted per block).
    std::atomic<uint64_t> bytes_read_{0};
};

}  // namespace pmonsim
