#include "replay.h"

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

#include "parallel/deal.h"
#include "progress.h"
#include "sc/time_util.h"
#include "trace/trace_input.h"

namespace pmonsim {

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

}  // namespace

replayer::replayer(uncore_system& sys, const std::vector<std::string>& files, checking when, unsigned parse_threads,
                   unsigned threads)
    : layout_(sys), when_(when) {
    for (const std::string& f : files) {
        if (f == "-") {
            paths_.push_back({spool(std::cin, "standard input", temps_), "<stdin>"});
        } else if (const mode_t t = trace_file_type(f);
                   when_ == checking::before && t != 0 && t != S_IFREG && t != S_IFDIR) {
            std::ifstream in(f, std::ios::binary);  // (unreadable: the check says so, by name)
            paths_.push_back({in ? spool(in, f, temps_) : f, f});
        } else {
            paths_.push_back({f, f});
        }
    }
    if (when_ == checking::before) check_all();
    const bool chosen = threads != auto_threads;
    if (!chosen) threads = default_threads();
    // (Each thread opens every trace: a pipe can be read once.)
    if (!rereadable()) threads = 1;
    try {
        try {
            open_shards(threads, parse_threads);
        } catch (const trace::trace_error&) {
            // Out of file descriptors with threads the user did not ask for:
            // one thread, which needs one descriptor per trace, as before.
            if (!fd_limit_hit_ || chosen || filters_.empty()) throw;
            fd_limit_hit_ = false;
            open_shards(1, parse_threads);
        }
    } catch (const trace::trace_error&) {
        // (A bad first batch, or a later file's header: an earlier file's
        // row may be the error to give.)
        // (Not when the files used up the descriptors: the check would
        // blame the first file instead.)
        if (when_ == checking::while_replaying && rereadable() && !fd_limit_hit_) check_all();
        throw;
    }
}

void replayer::open_shards(unsigned threads, unsigned parse_threads) {
    team_.reset();
    shards_.clear();
    bytes_read_ = 0;  // (a first try may have read some)
    share_boxes(threads);
    const unsigned n = filters_.empty() ? 1 : static_cast<unsigned>(filters_.size());
    // Reading threads of their own while there are cores for them; else
    // each shard decodes as it posts (on two cores, two shards that decode
    // are faster than one with reading threads: docs/performance.md).
    const bool reading_threads = n == 1 || parallel::fork_join::cores() >= 2 * n;
    for (unsigned k = 0; k < n; ++k) {
        replay_shard::options opt;
        opt.reading_thread = reading_threads;
        opt.parse_threads = n == 1 ? parse_threads : 1;
        opt.filter = n == 1 ? nullptr : &filters_[k];
        opt.bytes_read = k == 0 ? &bytes_read_ : nullptr;  // (shard 0 reads every byte)
        opt.threads = n;
        shards_.push_back(std::make_unique<replay_shard>(layout_, paths_, opt, fd_limit_hit_));
    }
    next_.assign(n, 0);
    if (n > 1) team_ = std::make_unique<parallel::fork_join>(n);
    more_ = std::any_of(shards_.begin(), shards_.end(), [](const auto& s) { return s->next_time() != ~time_ps{0}; });
}

unsigned replayer::default_threads() const {
    if (paths_.empty()) return 1;  // (no records: the threads would only meet at every feed)
    for (const auto& [path, name] : paths_) {
        if (trace_file_type(path) != S_IFREG) return 1;
        std::ifstream in(path, std::ios::binary);
        char magic[4] = {};
        if (!in.read(magic, sizeof magic) || std::memcmp(magic, "PMON", 4) != 0) return 1;  // (text or compressed)
    }
    const size_t ports = layout_.port_box.size();
    return static_cast<unsigned>(std::min<size_t>(parallel::fork_join::cores(), ports + 2));
}

void replayer::share_boxes(unsigned n) {
    const std::vector<replay_layout::box_ref>& boxes = layout_.boxes;
    owner_.assign(boxes.size(), 0);
    filters_.clear();
    // Dealt back and forth (parallel::dealt_to): the ports (the heaviest:
    // every packet), then the boxes that take event rows. (A fixed counter's
    // box takes no records.)
    std::vector<size_t> dealt;
    switch (layout_.route) {
        case packet_route::qpi_link: dealt = layout_.port_box; break;
        case packet_route::home_logic: break;
    }
    const cpu_desc& cpu = describe(layout_.ctx.cpu);
    for (size_t i = 0; i < boxes.size(); ++i) {
        const box_kind kind = boxes[i].module->core().spec().kind;
        const box_desc* d = cpu.box(kind);
        if (!boxes[i].link && d && d->events) dealt.push_back(i);
    }
    n = static_cast<unsigned>(std::min<size_t>(n, dealt.size()));
    if (n <= 1) return;
    for (size_t j = 0; j < dealt.size(); ++j) owner_[dealt[j]] = parallel::dealt_to(j, n);
    // The filters: a record of a box the machine lacks stays with shard 0,
    // which reports it as one thread would.
    using trace::record_filter;
    const unsigned sockets = layout_.sockets;
    filters_.resize(n);
    for (unsigned k = 0; k < n; ++k) {
        record_filter& f = filters_[k];
        f.packets.assign(record_filter::packet_index(sockets, 0), k == 0);
        f.events.assign(record_filter::event_index(sockets, box_kind{}, 0), k == 0);
        for (unsigned s = 0; s < sockets; ++s) {
            switch (layout_.route) {
                case packet_route::qpi_link:
                    for (unsigned p = 0; p < layout_.ctx.qpi_ports; ++p)
                        f.packets[record_filter::packet_index(s, p)] = owner_[layout_.port_box[layout_.port_ordinal(s, p)]] == k;
                    break;
                case packet_route::home_logic: {
                    const bool mine = owner_[layout_.box_index(s, box_kind::uncore, 0)] == k;
                    for (unsigned src = 0; src < 256; ++src) f.packets[record_filter::packet_index(s, src)] = mine;
                    break;
                }
            }
            for (unsigned kind = 0; kind < box_kind_count; ++kind)
                for (unsigned u = 0; u < layout_.units_of[kind] && u < record_filter::max_units; ++u)
                    f.events[record_filter::event_index(s, static_cast<box_kind>(kind), u)] =
                        owner_[layout_.box_index(s, static_cast<box_kind>(kind), u)] == k;
        }
    }
}

void replayer::check_all() {
    for (const auto& [path, name] : paths_) {
        if (const std::string why = trace::unreadable_reason(path); !why.empty())
            throw trace::trace_error(name, 0, 0, "cannot open: " + why);
        // By path: a large file is checked on both cores (trace_validate.cpp).
        last_ = std::max(last_, trace::validate_trace(path, name, layout_.ctx).last);
    }
}

void replayer::finish_checks() {
    if (when_ == checking::before) return;
    if (!error_) {
        try {
            // The records the run did not reach: shard 0 checks every packet
            // record, and each shard the event rows of its boxes (it skims
            // the others': trace_reader::keep_only), at once.
            if (team_) team_->run([this](unsigned k) { shards_[k]->read_rest(k == 0); });
            else shards_.front()->read_rest();
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
        const mode_t t = trace_file_type(p.first);
        return t == 0 || t == S_IFREG;
    });
}

replayer::~replayer() = default;

uint64_t replayer::records() const {
    uint64_t n = 0;
    for (const auto& s : shards_) n += s->posted();
    return n;
}

time_ps replayer::time_left(time_ps now) const {
    if (more_) {  // records still to post: run to the last one (or the last one read so far)
        time_ps last = when_ == checking::before ? last_ : 0;
        for (const auto& s : shards_) last = std::max(last, s->last_pending());
        if (last >= now) return last + 1 - now;
    }
    time_ps end = 0;  // event runs; packets end where their ports' last flit does
    for (const auto& s : shards_) end = std::max(end, s->end_of_events());
    for (const replay_layout::box_ref& b : layout_.boxes)
        if (b.link)
            for (qpi_dir d : {qpi_dir::rx, qpi_dir::tx}) {
                const cycle_t after = cycle_of_slot(b.link->next_free_slot(d) + slots_per_cycle - 1);
                end = std::max(end, b.module->core().clock().cycle_start(after));
            }
    return end > now ? end - now : 0;
}

time_ps replayer::post_due(time_ps until) {
    if (!team_) {
        next_[0] = shards_[0]->post_due(until);
        shards_[0]->end_posts();
    } else {
        // A box whose sync could raise an overflow message is synced here,
        // before the shards start: SystemC's messages are this thread's.
        const time_ps now = now_ps();
        for (size_t i = 0; i < layout_.boxes.size(); ++i)
            if (owner_[i] != 0 && replay_layout::message_possible(layout_.boxes[i].module->core(), now)) {
                layout_.boxes[i].module->begin_posts();
                presynced_.push_back(i);
            }
        team_->run([this, until](unsigned k) { next_[k] = shards_[k]->post_due(until); });
        for (size_t i : presynced_)
            if (!shards_[owner_[i]]->touched(i)) layout_.boxes[i].module->end_posts();
        presynced_.clear();
        for (const auto& s : shards_) s->end_posts();
    }
    const time_ps next = *std::min_element(next_.begin(), next_.end());
    more_ = next != ~time_ps{0};
    if (progress_) poll_progress();
    return next;
}

void replayer::poll_progress() { progress_->poll(); }

replayer::input_progress replayer::progress() const {
    input_progress p{};
    p.bytes_read = bytes_read_.load(std::memory_order_relaxed);
    for (const auto& s : shards_) {
        p.packets += s->posted_packets();
        p.events += s->posted() - s->posted_packets();
    }
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

}  // namespace pmonsim
