#include "replay_shard.h"

#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

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

mode_t trace_file_type(const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 ? (st.st_mode & S_IFMT) : 0;
}

replay_layout::replay_layout(uncore_system& sys) : ctx(trace_context_of(sys.config())), route(describe(sys.config().cpu).packets) {
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
        if (s > 0 && (b.size() != per_socket || first != first_of || units != units_of))
            throw std::logic_error("the sockets' boxes differ");
        first_of = first;
        units_of = units;
        per_socket = b.size();
        for (box_module* m : b) boxes.push_back({m, m->link()});
    }
    sockets = sys.sockets();
    for (unsigned s = 0; s < sockets; ++s)
        for (unsigned p = 0; p < units_of[static_cast<unsigned>(box_kind::qpi)]; ++p)
            port_box.push_back(box_index(s, box_kind::qpi, p));
}

void replay_layout::no_such_box() { throw std::logic_error("replay: a record for a box this machine lacks"); }

namespace {

// A trace file whose bytes are counted as the reader takes them (the status
// line's "read", progress.h): once per block the reader asks for (64 KiB),
// on whichever thread reads.
class counted_file : public std::istream {
public:
    counted_file(const std::string& path, std::atomic<uint64_t>* bytes) : std::istream(nullptr), buf_(bytes) {
        init(&buf_);
        if (!buf_.open(path, std::ios::in | std::ios::binary)) setstate(std::ios::failbit);
    }

private:
    class counting_buf : public std::filebuf {
    public:
        explicit counting_buf(std::atomic<uint64_t>* bytes) : bytes_(bytes) {}

    protected:
        std::streamsize xsgetn(char* s, std::streamsize n) override {
            const std::streamsize k = std::filebuf::xsgetn(s, n);
            if (k > 0 && bytes_) bytes_->fetch_add(static_cast<uint64_t>(k), std::memory_order_relaxed);
            return k;
        }

    private:
        std::atomic<uint64_t>* bytes_;
    } buf_;
};

// The reading thread wrote the records on the other core: fetching a few
// ahead hides that (6 % end to end). The address may lie past the batch (a
// prefetch never faults), so it is formed as an integer.
template <class Record>
void fetch_ahead(const Record* r) {
    constexpr uintptr_t kAhead = 16 * sizeof(Record);
    __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(r) + kAhead));
}

}  // namespace

replay_shard::replay_shard(const replay_layout& layout, const std::vector<std::pair<std::string, std::string>>& paths,
                           const options& opt, bool& fd_limit_hit)
    : L_(layout), touched_(layout.boxes.size(), 0), feed_links_(layout.port_box.size(), nullptr) {
    for (const auto& [path, name] : paths) {
        // (A directory opens as a stream that fails on the first read.)
        if (trace_file_type(path) == S_IFDIR) throw trace::trace_error(name, 0, 0, "cannot open: is a directory");
        streams_.push_back(std::make_unique<counted_file>(path, opt.bytes_read));
        if (!*streams_.back()) {
            const int err = errno;
            if (err == EMFILE) {  // (not this file's fault: say whose limit)
                fd_limit_hit = true;
                struct rlimit lim {};
                ::getrlimit(RLIMIT_NOFILE, &lim);
                const std::string each = opt.threads == 1 ? "one open file each"
                                                          : "one open file each for each of the " +
                                                                std::to_string(opt.threads) + " replay threads";
                throw trace::trace_error(name, 0, 0,
                                         "cannot open: " + std::string(std::strerror(err)) + " (the " +
                                             std::to_string(paths.size()) + " traces are read together, " + each +
                                             ", and the limit of open files is " + std::to_string(lim.rlim_cur) +
                                             ": raise it with ulimit -n" + (opt.threads == 1 ? "" : ", or use fewer --threads") + ")");
            }
            throw trace::trace_error(name, 0, 0, "cannot open: " + trace::unreadable_reason(path));
        }
        // (A bad header throws here.)
        readers_.push_back(std::make_unique<trace::trace_reader>(*streams_.back(), name, L_.ctx));
        trace::trace_reader& r = *readers_.back();
        if (opt.filter) r.keep_only(*opt.filter);
        trace::trace_merger& m = r.kind() == trace::trace_kind::packets ? packets_ : events_;
        const size_t source = m.add(r);
        // A large text file's rows: parsed on several threads (trace_chunks.h),
        // which read every row (not with a filter).
        if (r.format() == trace::trace_format::text && !r.compressed() && opt.parse_threads > 1 && !opt.filter)
            if (auto c = trace::chunked_text_rows::open(path, name, L_.ctx, opt.bytes_read, opt.parse_threads)) {
                m.read_rows_with(source, *c);
                chunks_.push_back(std::move(c));
            }
    }
    // Bursts of equal packets in closed form: QPI link packets only.
    switch (L_.route) {
        case packet_route::qpi_link:
            for (auto& r : readers_)
                if (r->kind() == trace::trace_kind::packets) r->keep_bursts();
            runs_.resize(size_t{L_.sockets} * L_.ctx.qpi_ports * 2);
            break;
        case packet_route::home_logic: break;
    }
    if (opt.reading_thread) {
        // The second reading on another core (1.1x faster end to end for every
        // format on the 2-core machine), in batches large enough that a
        // hand-over costs nothing next to the records in it: 4096 records for
        // one or two files. At most 64 Ki records (about 4 MB) are read ahead in
        // all, so memory stays flat however many files there are.
        constexpr size_t kAheadRecords = 65536, kDepth = 8;
        const size_t batch = std::max<size_t>(256, kAheadRecords / kDepth / std::max<size_t>(2, paths.size()));
        packets_.use_reading_thread(batch, kDepth);
        events_.use_reading_thread(batch, kDepth);
    }
    // (Reads the first batches: a bad first record throws here.)
    packets_.next_time();
    events_.next_time();
}

replay_shard::~replay_shard() = default;

time_ps replay_shard::post_due(time_ps until) {
    // Records in place, a run of one file at a time: the packets due, then
    // the event rows due (see packets_).
    for (trace::trace_merger::run r; (r = packets_.next_run(until)).n != 0;) {
        // A run of one port's packets at a time; after a short one (ports
        // interleaved, as when one thread owns them all; a burst record), the
        // next few records one by one, so that each run costs little.
        constexpr size_t kShort = 8, kOneByOne = 64;
        for (size_t i = 0; i < r.n;) {
            const size_t m = post_port_packets(r.packets + i, r.n - i);
            i += m;
            if (m >= kShort) continue;
            for (const size_t e = std::min(r.n, i + kOneByOne); i < e; ++i) {
                fetch_ahead(r.packets + i);
                post_packet(r.packets[i], r.source);
            }
        }
        posted_ += r.n;
        posted_packets_ += r.n;
    }
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
    return std::min(next_record, next_run_packet());
}

void replay_shard::end_posts() {
    std::fill(feed_links_.begin(), feed_links_.end(), nullptr);
    for (size_t i : touched_list_) {
        touched_[i] = 0;
        L_.boxes[i].module->end_posts();
    }
    touched_list_.clear();
}

void replay_shard::read_rest(bool packets) {
    auto drain = [](trace::trace_merger& m) {
        while (m.next_run(~time_ps{0}).n) {
        }
    };
    if (packets) drain(packets_);
    drain(events_);
}

time_ps replay_shard::last_pending() const {
    time_ps last = std::max(packets_.last_in_hand(), events_.last_in_hand());
    for (size_t s : open_runs_)  // (a run's last packet is after its record)
        for (const pending_run& r : runs_[s]) last = std::max(last, run_packet_time(r, r.next + (r.left - 1) * r.spacing));
    return last;
}

void replay_shard::begin_posts(size_t index) {
    touched_[index] = 1;
    touched_list_.push_back(index);
    L_.boxes[index].module->begin_posts();
}

size_t replay_shard::post_port_packets(const trace::packet_record* p, size_t n) {
    switch (L_.route) {
        case packet_route::qpi_link: break;
        case packet_route::home_logic: return 0;
    }
    if (runs_open_ || p->run.repeat != 1) return 0;
    const unsigned socket = p->socket, port = p->port;
    const size_t o = L_.port_ordinal(socket, port);
    qpi_link* l = feed_links_[o];
    if (!l) {
        l = touch(L_.port_box[o]).link();
        feed_links_[o] = l;
    }
    auto next = [&](size_t k, qpi_dir& dir, cycle_t& at) -> const qpi_packet* {
        const trace::packet_record& q = p[k];
        fetch_ahead(&q);
        if ((q.socket != socket) | (q.port != port) | (q.run.repeat != 1)) return nullptr;
        dir = q.dir;
        at = q.cycle;
        return &q.packet;
    };
    // (At most 4096 at a time: the link's rings make room for them first.)
    return l->post_packets_while(std::min<size_t>(n, 4096), next);
}

void replay_shard::first_to_link(size_t ordinal, qpi_dir dir, cycle_t at, const qpi_packet& p) {
    qpi_link* l = touch(L_.port_box[ordinal]).link();
    feed_links_[ordinal] = l;
    l->post_packet(dir, at, p);
}

void replay_shard::post_with_runs(const trace::packet_record& p, size_t source, size_t stream) {
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

void replay_shard::to_link(unsigned socket, unsigned port, qpi_dir dir, cycle_t at, uint64_t spacing, uint64_t count,
                           const qpi_packet& p) {
    link_of(socket, port).post_packets(dir, at, spacing, count, p);
}

time_ps replay_shard::run_packet_time(const pending_run& r, cycle_t c) const {
    return L_.boxes[L_.box_index(r.socket, box_kind::qpi, r.port)].module->core().clock().cycle_start(c);
}

void replay_shard::place_runs(size_t stream, time_ps t, size_t ties_below) {
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
    const clock_domain& clk = L_.boxes[L_.box_index(r.socket, box_kind::qpi, r.port)].module->core().clock();
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

time_ps replay_shard::next_run_packet() const {
    time_ps next = ~time_ps{0};
    for (size_t s : open_runs_)
        for (const pending_run& r : runs_[s]) next = std::min(next, run_packet_time(r, r.next));
    return next;
}

void replay_shard::post_request(const trace::packet_record& p) {
    box_core& core = touch(L_.box_index(p.socket, box_kind::uncore, 0)).core();
    core.post_request(p.cycle, p.source(), addr_match_fields(p.packet, p.addr));
    end_ = std::max(end_, core.clock().cycle_start(p.cycle + 1));
}

void replay_shard::post_event(const trace::event_record& e) {
    box_core& core = touch(L_.box_index(e.socket, e.kind, e.unit)).core();
    if (e.quals.given) core.post_qualified_run(e.cycle, e.repeat, e.input, e.quals, e.count);
    else core.post_run(e.cycle, e.repeat, e.input, e.count);
    end_ = std::max(end_, core.clock().cycle_start(e.cycle + e.repeat));
}

}  // namespace pmonsim
