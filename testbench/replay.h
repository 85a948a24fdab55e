// Trace replay: the packet and event traces given to pmonsim, merged by time
// and posted into the model just before simulated time reaches them (so the
// lazily-counting boxes always know their inputs). Every trace is validated
// completely before anything is replayed: a bad row anywhere means nothing
// runs. Memory stays flat: one pending record per file, plus the batches the
// reading thread (record_pipe.h, for text and gzip traces) keeps ready ahead
// of the simulation.
#pragma once
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "record_pipe.h"
#include "sc/uncore_system.h"
#include "trace/trace_reader.h"

namespace pmonsim {

trace::trace_context trace_context_of(const uncore_config& cfg);

class replayer {
public:
    // Validates and opens the traces ("-" is standard input, read once into a
    // temporary file). Throws trace::trace_error on the first bad row.
    replayer(uncore_system& sys, const std::vector<std::string>& files);
    ~replayer();

    // Posts every record whose time is before `until`; returns the time of
    // the next record (the maximum time when there is none).
    time_ps feed(time_ps until);
    uint64_t records() const { return posted_; }
    // How much longer a run must last from `now` for every record to be
    // posted and its effects to end; 0 when the replay is over.
    time_ps time_left(time_ps now) const;

private:
    void post(const trace::trace_record& r);
    void post_packet(const trace::packet_record& p);
    void post_event(const trace::event_record& e);
    // The box at `index` of the flat list, synced for this feed's posts.
    box_module* touch(size_t index) {
        if (index >= boxes_.size()) throw std::logic_error("replay: a record for a box this machine lacks");
        if (!touched_[index]) {
            touched_[index] = 1;
            touched_list_.push_back(index);
            boxes_[index]->begin_posts();
        }
        return boxes_[index];
    }
    void end_posts();
    // Where a box is in boxes_ (uncore_socket::boxes() order: ubox,
    // ubox_fixed, r2pcie, then the QPI ports).
    size_t box_index(unsigned socket, box_kind kind, unsigned unit) const;

    uncore_system& sys_;
    std::vector<box_module*> boxes_;  // every socket's boxes, socket after socket
    size_t per_socket_ = 0;
    std::vector<uint8_t> touched_;    // per box: synced for the current feed
    std::vector<size_t> touched_list_;
    std::vector<std::unique_ptr<std::FILE, int (*)(std::FILE*)>> temps_;
    trace::trace_merger merger_;
    // Text and gzip traces: read on a second thread (after merger_: stops
    // before it goes). Null: plain binary, taken from merger_ in runs.
    std::unique_ptr<record_pipe> pipe_;
    const record_pipe::record* next_ = nullptr;  // the pipe's pending record
    bool more_ = true;                           // records left to post
    time_ps end_ = 0;
    time_ps last_ = 0;
    uint64_t posted_ = 0;
};

}  // namespace pmonsim
