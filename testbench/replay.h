// Trace replay: the packet and event traces given to pmonsim, merged by time
// and posted into the model just before simulated time reaches them (so the
// lazily-counting boxes always know their inputs). Every trace is validated
// completely before anything is replayed: a bad row anywhere means nothing
// runs. Memory stays flat: one pending record per file, plus the batches the
// reading thread (record_pipe.h, for text and gzip traces) keeps ready ahead
// of the simulation.
#pragma once
#include <memory>
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
    const record_pipe::record* next_record();
    box_module* box_of(unsigned socket, box_kind kind, unsigned unit) const;

    uncore_system& sys_;
    std::vector<std::vector<box_module*>> boxes_;  // per socket, in uncore_socket::boxes() order
    std::vector<std::unique_ptr<std::FILE, int (*)(std::FILE*)>> temps_;
    trace::trace_merger merger_;
    std::unique_ptr<record_pipe> pipe_;  // after merger_: stops before it goes; null: read in line
    record_pipe::record direct_;         // the pending record when read in line
    const record_pipe::record* next_ = nullptr;
    time_ps end_ = 0;
    time_ps last_ = 0;
    uint64_t posted_ = 0;
};

}  // namespace pmonsim
