#include "replay.h"

#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <exception>
#include <cerrno>
#include <cstring>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "progress.h"
#include "sc/time_util.h"
#include "trace/trace_input.h"

namespace pmonsim {

trace::trace_context trace_context_of(const uncore_config& cfg) {
    trace::trace_context c;
    c.cpu = cfg.cpu;
    c.sockets = cfg.sockets;
    c.qpi_ports = cfg.qpi_ports;
    c.memory_controllers = cfg.memory_controllers;
    c.cores = cfg.cores_per_socket();
    c.dclk_hz = cfg.dclk_hz();
    c.pclk_hz = cfg.pclk_hz();
    c.uclk_hz = cfg.uclk_hz();
    c.qclk_hz = cfg.qclk_hz();
    // (Half the model's range: the flits of the last packets, queued behind
    // each other, still end inside it.)
    c.max_time = max_model_time / 2;
    return c;
}

namespace {

// Standard input, or a pipe given by name (`--trace <(zcat t.gz)`), can be
// read only once, but a trace may be read twice (checked, then replayed):
// keep a copy in an anonymous temporary file. `what` names it in errors.
std::string spool(std::istream& in, const std::string& what,
                  std::vector<std::unique_ptr<std::FILE, int (*)(std::FILE*)>>& temps) {
    std::FILE* f = std::tmpfile();
    if (!f) throw std::runtime_error("cannot create a temporary file for " + what);
    temps.emplace_back(f, &std::fclose);
    // Checked as it is copied: a text trace's lines are bounded, so an
    // endless input without newlines (/dev/zero) stops at once. (Compressed
    // and binary traces are checked by their reader afterwards.)
    char buf[65536];
    bool text = true, first = true;
    std::size_t since_newline = 0;
    while (in.read(buf, sizeof buf) || in.gcount()) {
        const std::size_t n = static_cast<size_t>(in.gcount());
        if (first) {
            text = !(n >= 2 && static_cast<unsigned char>(buf[0]) == 0x1f && static_cast<unsigned char>(buf[1]) == 0x8b) &&
                   !(n >= 4 && std::memcmp(buf, "PMON", 4) == 0);
            first = false;
        }
        if (text) {  // each line's length, across chunks
            constexpr std::size_t kMax = trace::trace_reader::max_line_length;
            const char *p = buf, *const end = buf + n;
            bool too_long = false;
            while (const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)))) {
                too_long |= since_newline + static_cast<size_t>(nl - p) > kMax;
                since_newline = 0;
                p = nl + 1;
            }
            since_newline += static_cast<size_t>(end - p);
            if (too_long || since_newline > kMax)
                throw trace::trace_error(what, 0, 0,
                                         "a line is longer than " + std::to_string(kMax) + " bytes: not a text trace");
        }
        if (std::fwrite(buf, 1, n, f) != n) throw std::runtime_error("cannot write the temporary copy of " + what);
    }
    if (std::fflush(f) != 0) throw std::runtime_error("cannot write the temporary copy of " + what);
    return "/proc/self/fd/" + std::to_string(fileno(f));
}

// A trace file whose bytes are counted as the reader takes them (the status
// line's "read", progress.h): once per block the reader asks for (64 KiB),
// on whichever thread reads.
class counted_file : public std::istream {
public:
    counted_file(const std::string& path, std::atomic<uint64_t>& bytes) : std::istream(nullptr), buf_(bytes) {
        init(&buf_);
        if (!buf_.open(path, std::ios::in | std::ios::binary)) setstate(std::ios::failbit);
    }

private:
    class counting_buf : public std::filebuf {
    public:
        explicit counting_buf(std::atomic<uint64_t>& bytes) : bytes_(bytes) {}

    protected:
        std::streamsize xsgetn(char* s, std::streamsize n) override {
            const std::streamsize k = std::filebuf::xsgetn(s, n);
            if (k > 0) bytes_.fetch_add(static_cast<uint64_t>(k), std::memory_order_relaxed);
            return k;
        }

    private:
        std::atomic<uint64_t>& bytes_;
    } buf_;
};

// The file type bits of a path, 0 if there is nothing there.
mode_t file_type(const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 ? (st.st_mode & S_IFMT) : 0;
}

}  // namespace

replayer::replayer(uncore_system& sys, const std::vector<std::string>& files, checking when, unsigned parse_threads,
                   unsigned threads)
    : sys_(sys), ctx_(trace_context_of(sys.config())), route_(describe(sys.config().cpu).packets), when_(when) {
    for (unsigned s = 0; s < sys.sockets(); ++s) {
        const std::vector<box_module*> b = sys.socket(s).boxes();
        // Where each kind's units start (box_index()); the same in every socket.
        std::array<unsigned, box_kind_count> first{}, units{};
        for (unsigned i = 0; i < b.size(); ++i) {
            const unsigned k = static_cast<unsigned>(b[i]->core().spec().kind);
            if (units[k] == 0) first[k] = i;
            if (first[k] + units[k] != i)
                throw std::logic_error("uncore_socket::boxes() does not keep a kind's units together");
            ++units[k];
        }
        if (s > 0 && (b.size() != per_socket_ || first != first_of_ || units != units_of_))
            throw std::logic_error("the sockets' boxes differ");
        first_of_ = first;
        units_of_ = units;
        per_socket_ = b.size();
        for (box_module* m : b) boxes_.push_back({m, m->link(), false});
    }
    sockets_ = sys.sockets();
    for (unsigned s = 0; s < sockets_; ++s)
        for (unsigned p = 0; p < units_of_[static_cast<unsigned>(box_kind::qpi)]; ++p)
            port_box_.push_back(box_index(s, box_kind::qpi, p));
    feed_links_.assign(port_box_.size(), nullptr);
    // Ports on a team of threads: QPI link packets only (a home agent's
    // requests go to one box per socket).
    if (threads > 1) switch (route_) {
            case packet_route::qpi_link: {
                std::vector<box_module*> ports;
                for (size_t index : port_box_) ports.push_back(boxes_[index].module);
                if (ports.size() > 1) team_ = std::make_unique<parallel::port_team>(std::move(ports), threads);
                break;
            }
            case packet_route::home_logic: break;
        }
    for (const std::string& f : files) {
        if (f == "-") {
            paths_.push_back({spool(std::cin, "standard input", temps_), "<stdin>"});
        } else if (const mode_t t = file_type(f);
                   when_ == checking::before && t != 0 && t != S_IFREG && t != S_IFDIR) {
            std::ifstream in(f, std::ios::binary);  // (unreadable: the check says so, by name)
            paths_.push_back({in ? spool(in, f, temps_) : f, f});
        } else {
            paths_.push_back({f, f});
        }
    }
    if (when_ == checking::before) check_all();
    try {
        for (const auto& [path, name] : paths_) {
            // (A directory opens as a stream that fails on the first read.)
            if (file_type(path) == S_IFDIR) throw trace::trace_error(name, 0, 0, "cannot open: is a directory");
            streams_.push_back(std::make_unique<counted_file>(path, bytes_read_));
            if (!*streams_.back()) {
                const int err = errno;
                if (err == EMFILE) {  // (not this file's fault: say whose limit)
                    fd_limit_hit_ = true;
                    struct rlimit lim {};
                    ::getrlimit(RLIMIT_NOFILE, &lim);
                    throw trace::trace_error(
                        name, 0, 0,
                        "cannot open: " + std::string(std::strerror(err)) + " (the " + std::to_string(paths_.size()) +
                            " traces are read together, one open file each, and the limit of open files is " +
                            std::to_string(lim.rlim_cur) + ": raise it with ulimit -n)");
                }
                throw trace::trace_error(name, 0, 0, "cannot open: " + trace::unreadable_reason(path));
            }
            // (A bad header throws here.)
            readers_.push_back(std::make_unique<trace::trace_reader>(*streams_.back(), name, ctx_));
            trace::trace_reader& r = *readers_.back();
            trace::trace_merger& m = r.kind() == trace::trace_kind::packets ? packets_ : events_;
            const size_t source = m.add(r);
            // A large text file's rows: parsed on two threads (trace_chunks.h).
            if (r.format() == trace::trace_format::text && !r.compressed() && parse_threads > 1)
                if (auto c = trace::chunked_text_rows::open(path, name, ctx_, &bytes_read_, parse_threads)) {
                    m.read_rows_with(source, *c);
                    chunks_.push_back(std::move(c));
                }
        }
        // The second reading on another core (1.1x faster end to end for every
        // format on the 2-core machine), in batches large enough that a
        // hand-over costs nothing next to the records in it: 4096 records for
        // one or two files. At most 64 Ki records (about 4 MB) are read ahead in
        // all, so memory stays flat however many files there are.
        constexpr size_t kAheadRecords = 65536, kDepth = 8;
        const size_t batch = std::max<size_t>(256, kAheadRecords / kDepth / std::max<size_t>(2, paths_.size()));
        // Bursts of equal packets in closed form: QPI link packets only.
        switch (route_) {
            case packet_route::qpi_link:
                for (auto& r : readers_)
                    if (r->kind() == trace::trace_kind::packets) r->keep_bursts();
                runs_.resize(size_t{sys.sockets()} * ctx_.qpi_ports * 2);
                break;
            case packet_route::home_logic: break;
        }
        packets_.use_reading_thread(batch, kDepth);
        events_.use_reading_thread(batch, kDepth);
        more_ = std::min(packets_.next_time(), events_.next_time()) != ~time_ps{0};
    } catch (const trace::trace_error&) {
        // (A bad first batch, or a later file's header: an earlier file's
        // row may be the error to give.)
        // (Not when the files used up the descriptors: the check would
        // blame the first file instead.)
        if (when_ == checking::while_replaying && rereadable() && !fd_limit_hit_) check_all();
        throw;
    }
}

void replayer::check_all() {
    for (const auto& [path, name] : paths_) {
        if (const std::string why = trace::unreadable_reason(path); !why.empty())
            throw trace::trace_error(name, 0, 0, "cannot open: " + why);
        // By path: a large file is checked on both cores (trace_validate.cpp).
        last_ = std::max(last_, trace::validate_trace(path, name, ctx_).last);
    }
}

void replayer::finish_checks() {
    if (when_ == checking::before) return;
    if (!error_) {
        try {  // the records the run did not reach (it ended early, or on another error)
            for (trace::trace_merger* m : {&packets_, &events_})
                while (m->next_run(~time_ps{0}).n) {
                }
            return;
        } catch (const trace::trace_error& e) {
            error_ = e;
        }
    }
    // The error reading met is not always the first one in file order (the
    // files are read together): check them as a check beforehand would.
    if (rereadable()) check_all();
    throw *error_;  // (a pipe, or files changed since)
}

bool replayer::rereadable() const {
    // (A file that is not there is checked again as well: "cannot open".)
    return std::all_of(paths_.begin(), paths_.end(), [](const auto& p) {
        const mode_t t = file_type(p.first);
        return t == 0 || t == S_IFREG;
    });
}

replayer::~replayer() = default;

time_ps replayer::time_left(time_ps now) const {
    if (more_) {  // records still to post: run to the last one (or the last one read so far)
        time_ps last =
            when_ == checking::before ? last_ : std::max(packets_.last_in_hand(), events_.last_in_hand());
        for (size_t s : open_runs_)  // (a run's last packet is after its record)
            for (const pending_run& r : runs_[s]) last = std::max(last, run_packet_time(r, r.next + (r.left - 1) * r.spacing));
        if (last >= now) return last + 1 - now;
    }
    time_ps end = end_;  // event runs; packets end where their ports' last flit does
    for (const box_ref& b : boxes_)
        if (b.link)
            for (qpi_dir d : {qpi_dir::rx, qpi_dir::tx}) {
                const cycle_t after = cycle_of_slot(b.link->next_free_slot(d) + slots_per_cycle - 1);
                end = std::max(end, b.module->core().clock().cycle_start(after));
            }
    return end > now ? end - now : 0;
}

namespace {

// The reading thread wrote the records on the other core: fetching a few
// ahead hides that (6 % end to end). The address may lie past the batch (a
// prefetch never faults), so it is formed as an integer.
template <class Record>
void fetch_ahead(const Record* r) {
    constexpr uintptr_t kAhead = 16 * sizeof(Record);
    __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(r) + kAhead));
}

}  // namespace

time_ps replayer::post_due(time_ps until) {
    // Records in place, a run of one file at a time: the packets due, then
    // the event rows due (see packets_).
    // (On an error too, no member posts after the replay has stopped; the
    // error on its way wins over one a member met.)
    struct drained {
        parallel::port_team* team;
        ~drained() noexcept(false) {
            if (!team) return;
            if (std::uncaught_exceptions() == 0) {
                team->drain();
                return;
            }
            try {
                team->drain();
            } catch (...) {
            }
        }
    } on_exit{team_.get()};
    for (trace::trace_merger::run r; (r = packets_.next_run(until)).n != 0;) {
        for (size_t i = 0; i < r.n; ++i) {
            fetch_ahead(r.packets + i);
            post_packet(r.packets[i], r.source);
        }
        posted_ += r.n;
        posted_packets_ += r.n;
    }
    if (team_) team_->drain();  // (before the event rows, which may touch a port)
    for (trace::trace_merger::run r; (r = events_.next_run(until)).n != 0;) {
        for (size_t i = 0; i < r.n; ++i) {
            fetch_ahead(r.events + i);
            post_event(r.events[i]);
        }
        posted_ += r.n;
    }
    const time_ps next_record = std::min(packets_.next_time(), events_.next_time());
    if (!open_runs_.empty()) {  // up to the next record, which may share a stream with a run
        const std::vector<size_t> open = open_runs_;
        for (size_t s : open) place_runs(s, std::max(until, next_record), 0);
    }
    if (team_) team_->drain();
    end_posts();
    const time_ps next = std::min(next_record, next_run_packet());
    more_ = next != ~time_ps{0};
    if (progress_) poll_progress();
    return next;
}

void replayer::claim(size_t ordinal) {
    const size_t index = port_box_[ordinal];
    box_ref& b = boxes_[index];
    b.touched = true;
    touched_list_.push_back(index);
    if (parallel::port_team::message_possible(b.module->core(), now_ps())) b.module->begin_posts();
    else team_->sync(ordinal);
}

void replayer::poll_progress() { progress_->poll(); }

replayer::input_progress replayer::progress() const {
    input_progress p{};
    p.bytes_read = bytes_read_.load(std::memory_order_relaxed);
    p.packets = posted_packets_;
    p.events = posted_ - posted_packets_;
    for (const auto& [path, name] : paths_) {
        struct stat st;
        if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
            p.bytes_total = 0;
            break;
        }
        p.bytes_total += static_cast<uint64_t>(st.st_size);
    }
    return p;
}

void replayer::begin_posts(size_t index) {
    box_ref& b = boxes_[index];
    b.touched = true;
    touched_list_.push_back(index);
    b.module->begin_posts();
}

void replayer::first_to_link(size_t ordinal, qpi_dir dir, cycle_t at, const qpi_packet& p) {
    if (team_ && !team_->mine(ordinal)) {
        if (!boxes_[port_box_[ordinal]].touched) claim(ordinal);
        return team_->add(ordinal, dir, at, p);
    }
    qpi_link* l = touch(port_box_[ordinal]).link;
    feed_links_[ordinal] = l;
    l->post_packet(dir, at, p);
}

void replayer::end_posts() {
    std::fill(feed_links_.begin(), feed_links_.end(), nullptr);
    for (size_t i : touched_list_) {
        boxes_[i].touched = false;
        boxes_[i].module->end_posts();
    }
    touched_list_.clear();
}

void replayer::no_such_box() { throw std::logic_error("replay: a record for a box this machine lacks"); }

void replayer::post_with_runs(const trace::packet_record& p, size_t source, size_t stream) {
    if (!runs_[stream].empty()) place_runs(stream, p.time, source);
    if (p.run.repeat > 1) {
        if (runs_[stream].empty()) open_runs_.push_back(stream);
        runs_open_ = true;
        runs_[stream].push_back({p.packet, p.socket, p.port, p.dir, p.cycle, p.run.repeat, p.run.spacing, source});
        posted_packets_ += p.run.repeat - 1;  // (post_due counts the record)
        posted_ += p.run.repeat - 1;
        return;
    }
    to_link(p.socket, p.port, p.dir, p.cycle, p.packet);
}

void replayer::to_link(unsigned socket, unsigned port, qpi_dir dir, cycle_t at, uint64_t spacing, uint64_t count,
                       const qpi_packet& p) {
    if (team_) {
        const size_t o = port_ordinal(socket, port);
        if (!team_->mine(o)) {
            if (!boxes_[port_box_[o]].touched) claim(o);
            return team_->add_run(o, dir, at, spacing, count, p);
        }
    }
    link_of(socket, port).post_packets(dir, at, spacing, count, p);
}

time_ps replayer::run_packet_time(const pending_run& r, cycle_t c) const {
    return boxes_[box_index(r.socket, box_kind::qpi, r.port)].module->core().clock().cycle_start(c);
}

void replayer::place_runs(size_t stream, time_ps t, size_t ties_below) {
    std::vector<pending_run>& v = runs_[stream];
    // Whether a packet of run r at time u comes before time t.
    auto before = [&](const pending_run& r, time_ps u) { return u < t || (u == t && r.source < ties_below); };
    while (v.size() > 1) {  // overlapping runs: the earliest packet first (ties: earlier trace, older run)
        size_t i = 0;
        for (size_t j = 1; j < v.size(); ++j) {
            const time_ps tj = run_packet_time(v[j], v[j].next), ti = run_packet_time(v[i], v[i].next);
            if (tj < ti || (tj == ti && v[j].source < v[i].source)) i = j;
        }
        pending_run& r = v[i];
        if (!before(r, run_packet_time(r, r.next))) return;
        to_link(r.socket, r.port, r.dir, r.next, r.packet);
        r.next += r.spacing;
        if (--r.left == 0) v.erase(v.begin() + static_cast<std::ptrdiff_t>(i));
    }
    if (v.empty()) return;
    pending_run& r = v.front();
    const clock_domain& clk = boxes_[box_index(r.socket, box_kind::qpi, r.port)].module->core().clock();
    // Its packets in cycles before `limit`: those that come before t.
    const bool with_ties = r.source < ties_below;
    const cycle_t limit = t == ~time_ps{0} ? ~cycle_t{0} : clk.cycles_before(with_ties ? t + 1 : t);
    const uint64_t n = limit <= r.next ? 0 : std::min(r.left, (limit - r.next - 1) / r.spacing + 1);
    if (n) {
        to_link(r.socket, r.port, r.dir, r.next, r.spacing, n, r.packet);
        r.left -= n;
        r.next += n * r.spacing;
    }
    if (r.left == 0) {
        v.clear();
        open_runs_.erase(std::find(open_runs_.begin(), open_runs_.end(), stream));
        runs_open_ = !open_runs_.empty();
    }
}

time_ps replayer::next_run_packet() const {
    time_ps next = ~time_ps{0};
    for (size_t s : open_runs_)
        for (const pending_run& r : runs_[s]) next = std::min(next, run_packet_time(r, r.next));
    return next;
}

void replayer::post_request(const trace::packet_record& p) {
    box_core& core = touch(box_index(p.socket, box_kind::uncore, 0)).module->core();
    core.post_request(p.cycle, p.source(), addr_match_fields(p.packet, p.addr));
    end_ = std::max(end_, core.clock().cycle_start(p.cycle + 1));
}

void replayer::post_event(const trace::event_record& e) {
    box_core& core = touch(box_index(e.socket, e.kind, e.unit)).module->core();
    if (e.quals.given) core.post_qualified_run(e.cycle, e.repeat, e.input, e.quals, e.count);
    else core.post_run(e.cycle, e.repeat, e.input, e.count);
    end_ = std::max(end_, core.clock().cycle_start(e.cycle + e.repeat));
}

}  // namespace pmonsim
