// One thread's share of a trace replay (replay.h): the boxes it owns, the
// traces read by it alone with only those boxes' records kept
// (trace::record_filter), and what a feed posts to them.
//
// A replay with one thread has one shard that owns every box. With several
// (`--threads N`), each shard reads every trace itself, so no record crosses
// from one core to another and no thread sees another's records; the
// replayer runs the shards' feeds at once and joins them before simulated
// time moves. Why the counts are those of one thread, bit for bit: a box's
// inputs are posted by its owner alone, in the order one thread would post
// them (only the packets of one QPI port and direction depend on their
// order, and a port and its two directions have one owner); everything that
// couples the boxes (register accesses, SystemC's freezes and overflow
// messages) happens between feeds, on the replayer's thread; and a box whose
// sync to the current time could raise an overflow message is synced by the
// replayer before the shards start (message_possible()).
#pragma once
#include <sys/types.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sc/uncore_system.h"
#include "trace/trace_chunks.h"
#include "trace/trace_reader.h"

namespace pmonsim {

trace::trace_context trace_context_of(const uncore_config& cfg);
// The file type bits of a path (S_IFMT of stat), 0 if there is nothing there.
mode_t trace_file_type(const std::string& path);

// The machine's boxes as the replay finds them (shared by the shards,
// unchanged during the replay).
struct replay_layout {
    explicit replay_layout(uncore_system& sys);

    struct box_ref {
        box_module* module;
        qpi_link* link;  // null if not a QPI port
    };
    std::vector<box_ref> boxes;  // every socket's boxes, socket after socket
    size_t per_socket = 0;
    std::array<unsigned, box_kind_count> first_of{}, units_of{};  // by box kind, in a socket
    unsigned sockets = 0;
    std::vector<size_t> port_box;  // a QPI port's place in boxes, by ordinal
    trace::trace_context ctx;
    packet_route route;

    [[noreturn]] static void no_such_box();
    // Where a box is in `boxes`: in its socket (uncore_socket::boxes() order,
    // a kind's units together), the first box of its kind plus its unit.
    // (No branch on the kind: event rows of all boxes come mixed.)
    size_t box_index(unsigned socket, box_kind kind, unsigned unit) const {
        const unsigned k = static_cast<unsigned>(kind);
        if (unit >= units_of[k]) no_such_box();
        return socket * per_socket + first_of[k] + unit;
    }
    // A QPI port's ordinal among the machine's ports (socket, then port).
    size_t port_ordinal(unsigned socket, unsigned port) const {
        const unsigned n = units_of[static_cast<unsigned>(box_kind::qpi)];
        if ((port >= n) | (socket >= sockets)) no_such_box();
        return size_t{socket} * n + port;
    }
    size_t stream_of(unsigned socket, unsigned port, qpi_dir dir) const {
        return (size_t{socket} * ctx.qpi_ports + port) * 2 + static_cast<size_t>(dir);
    }
    // Whether syncing `box` to `now` could raise an overflow message (then
    // the replayer's thread must do it: SystemC's messages are its own).
    static bool message_possible(const box_core& box, time_ps now) {
        return box.may_message() && box.message_horizon() < box.clock().cycles_before(now);
    }
};

class replay_shard {
public:
    struct options {
        // Read on background threads a few batches ahead (batch_pipe.h);
        // false: on the shard's own thread, as it posts.
        bool reading_thread = true;
        // Threads that parse a large text file in chunks (trace_chunks.h; 1: none).
        unsigned parse_threads = 1;
        // The records this shard keeps; null: every record (one shard).
        const trace::record_filter* filter = nullptr;
        // Counts the bytes read (the status line's); null: not counted.
        std::atomic<uint64_t>* bytes_read = nullptr;
        unsigned threads = 1;  // the replay's (for the message when files run out)
    };
    // Opens the traces `paths` (path to open, name in messages) and reads
    // their headers; throws trace::trace_error as the replay would report it
    // (`fd_limit_hit`: set when the process ran out of file descriptors).
    replay_shard(const replay_layout& layout, const std::vector<std::pair<std::string, std::string>>& paths,
                 const options& opt, bool& fd_limit_hit);
    ~replay_shard();
    replay_shard(const replay_shard&) = delete;
    replay_shard& operator=(const replay_shard&) = delete;

    // Posts every record of this shard whose time is before `until`, and
    // places its bursts' packets up to its next record; returns the time of
    // the next record or burst packet (the maximum time when there is none).
    // Boxes are synced to the current time as they are first touched;
    // end_posts() (on the SystemC thread) finishes the feed.
    time_ps post_due(time_ps until);
    void end_posts();

    // Reads (and so checks) the records the replay did not reach: of its
    // event traces, and with `packets` of its packet traces too.
    void read_rest(bool packets = true);
    // The time of its next record (the maximum time when there is none).
    time_ps next_time() { return std::min(packets_.next_time(), events_.next_time()); }
    // Whether box `index` was synced by this shard in the current feed.
    bool touched(size_t index) const { return touched_[index] != 0; }
    // The latest time this shard must still run to for its records: the
    // last record in hand and its open bursts' last packets (0: none).
    time_ps last_pending() const;
    time_ps end_of_events() const { return end_; }  // where the event runs posted end
    uint64_t posted() const { return posted_; }
    uint64_t posted_packets() const { return posted_packets_; }

private:
    // Places packets on a port's link. (Inline: once per packet. The usual
    // packet, for a port this shard has posted to in the feed, takes one
    // load to find its link.)
    [[gnu::always_inline]] void to_link(unsigned socket, unsigned port, qpi_dir dir, cycle_t at, const qpi_packet& p) {
        const size_t o = L_.port_ordinal(socket, port);
        if (qpi_link* l = feed_links_[o]) [[likely]] {
            l->post_packet(dir, at, p);
            return;
        }
        first_to_link(o, dir, at, p);
    }
    // Posts packets p[0, n) for as long as they are usual packets (sized, no
    // burst) of p[0]'s port, with the link's state in registers (one shard
    // usually owns one port); returns how many (0: post p[0] the usual way).
    size_t post_port_packets(const trace::packet_record* p, size_t n);
    // to_link() for the first post to a port in the feed.
    [[gnu::noinline]] void first_to_link(size_t ordinal, qpi_dir dir, cycle_t at, const qpi_packet& p);
    void to_link(unsigned socket, unsigned port, qpi_dir dir, cycle_t at, uint64_t spacing, uint64_t count,
                 const qpi_packet& p);
    // (Inline: once per packet, in post_due()'s loop.) `source`: the trace
    // it came from (the merger's index).
    [[gnu::always_inline]] void post_packet(const trace::packet_record& p, size_t source) {
        switch (L_.route) {
            case packet_route::qpi_link: {
                if ((p.run.repeat != 1) | runs_open_) [[unlikely]]
                    return post_with_runs(p, source, L_.stream_of(p.socket, p.port, p.dir));
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
    // later packets); at the end of a feed, every run's packets up to the
    // shard's next record (a record of another shard's stream does not come
    // between them). Runs of one stream that overlap (two traces, or a file
    // not written by pmonsim) are placed packet by packet in time order
    // while they do.
    struct pending_run {
        qpi_packet packet;
        uint8_t socket = 0, port = 0;
        qpi_dir dir = qpi_dir::rx;
        cycle_t next = 0;   // the cycle of its next packet
        uint64_t left = 0;  // packets still to place
        uint64_t spacing = 0;
        size_t source = 0;
    };
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
    // The box at `index`, synced for this feed's posts. (Inline: once per
    // record; the first post to a box in a feed goes out of line.)
    box_module& touch(size_t index) {
        if (index >= touched_.size()) replay_layout::no_such_box();
        if (!touched_[index]) begin_posts(index);
        return *L_.boxes[index].module;
    }
    // A QPI port's link, synced for this feed's posts.
    qpi_link& link_of(unsigned socket, unsigned port) {
        return *touch(L_.box_index(socket, box_kind::qpi, port)).link();
    }
    void begin_posts(size_t index);

    const replay_layout& L_;
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
    std::vector<uint8_t> touched_;  // by box: synced for the current feed
    std::vector<size_t> touched_list_;
    // By port ordinal: the link of a port this shard has synced and posted
    // to in the current feed (null: none yet).
    std::vector<qpi_link*> feed_links_;
    time_ps end_ = 0;
    uint64_t posted_ = 0;
    uint64_t posted_packets_ = 0;
    std::vector<std::vector<pending_run>> runs_;  // by stream (socket, port, direction), oldest first
    std::vector<size_t> open_runs_;               // the streams that have one
    bool runs_open_ = false;                      // !open_runs_.empty(), for the loop's test
};

}  // namespace pmonsim
