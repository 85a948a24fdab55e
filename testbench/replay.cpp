#include "replay.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

namespace pmonsim {

trace::trace_context trace_context_of(const uncore_config& cfg) {
    trace::trace_context c;
    c.cpu = cfg.cpu;
    c.sockets = cfg.sockets;
    c.qpi_ports = cfg.qpi_ports;
    c.uclk_hz = cfg.uclk_hz();
    c.qclk_hz = cfg.qclk_hz();
    return c;
}

namespace {

// Standard input can be read only once, but a trace is read twice (check,
// then replay): keep a copy in an anonymous temporary file.
std::string spool_stdin(std::vector<std::unique_ptr<std::FILE, int (*)(std::FILE*)>>& temps) {
    std::FILE* f = std::tmpfile();
    if (!f) throw std::runtime_error("cannot create a temporary file for standard input");
    temps.emplace_back(f, &std::fclose);
    char buf[65536];
    while (std::cin.read(buf, sizeof buf) || std::cin.gcount())
        std::fwrite(buf, 1, static_cast<size_t>(std::cin.gcount()), f);
    std::fflush(f);
    return "/proc/self/fd/" + std::to_string(fileno(f));
}

}  // namespace

replayer::replayer(uncore_system& sys, const std::vector<std::string>& files) : sys_(sys) {
    for (unsigned s = 0; s < sys.sockets(); ++s) {
        boxes_.push_back(sys.socket(s).boxes());
        const auto& b = boxes_.back();  // the order box_of() relies on
        bool ok = b.size() >= 3 && b[0]->core().spec().name == "ubox" &&
                  b[1]->core().spec().name == "ubox_fixed" && b[2]->core().spec().name == "r2pcie";
        for (size_t i = 3; i < b.size(); ++i) ok = ok && b[i]->core().spec().name == "qpi" + std::to_string(i - 3);
        if (!ok) throw std::logic_error("uncore_socket::boxes() is not in the order replay expects");
    }
    const trace::trace_context ctx = trace_context_of(sys.config());
    std::vector<std::pair<std::string, std::string>> paths;  // (path to open, name in messages)
    for (const std::string& f : files) {
        if (f == "-") paths.push_back({spool_stdin(temps_), "<stdin>"});
        else paths.push_back({f, f});
    }
    for (const auto& [path, name] : paths) {
        if (!std::ifstream(path, std::ios::binary)) throw trace::trace_error(name, 0, 0, "cannot open");
        // By path: a large file is checked on both cores (trace_validate.cpp).
        last_ = std::max(last_, trace::validate_trace(path, name, ctx).last);
    }
    for (const auto& [path, name] : paths) {
        auto in = std::make_unique<std::ifstream>(path, std::ios::binary);
        merger_.add(std::move(in), name, ctx);
    }
    // Parsing text or inflating gzip again for the replay is worth a second
    // thread (1.3x faster end to end on the 2-core machine); decoding plain
    // binary is cheaper than handing its records from one core to the other
    // (1.2x slower), so that is read in line.
    bool heavy = false;
    for (size_t i = 0; i < merger_.sources(); ++i)
        heavy |= merger_.reader(i).format() == trace::trace_format::text || merger_.reader(i).compressed();
    if (heavy) pipe_ = std::make_unique<record_pipe>([this](record_pipe::record& r) { return merger_.next(r); });
    next_ = next_record();
}

const record_pipe::record* replayer::next_record() {
    if (pipe_) return pipe_->next();
    return merger_.next(direct_) ? &direct_ : nullptr;
}

replayer::~replayer() = default;

time_ps replayer::time_left(time_ps now) const {
    if (next_ && last_ >= now) return last_ + 1 - now;  // records still to post
    time_ps end = end_;  // event runs; packets end where their ports' last flit does
    for (const auto& socket : boxes_)
        for (size_t i = 3; i < socket.size(); ++i)
            for (qpi_dir d : {qpi_dir::rx, qpi_dir::tx}) {
                const cycle_t after = (socket[i]->link()->next_free_slot(d) + 1) / 2;
                end = std::max(end, socket[i]->core().clock().cycle_start(after));
            }
    return end > now ? end - now : 0;
}

time_ps replayer::feed(time_ps until) {
    while (next_ && trace::time_of(next_->record) < until) {
        post(next_->record);
        ++posted_;
        next_ = next_record();
    }
    return next_ ? trace::time_of(next_->record) : ~time_ps{0};
}

// uncore_socket::boxes() lists ubox, ubox_fixed, r2pcie, then the QPI ports.
box_module* replayer::box_of(unsigned socket, box_kind kind, unsigned unit) const {
    const std::vector<box_module*>& b = boxes_.at(socket);
    switch (kind) {
        case box_kind::ubox: return b[0];
        case box_kind::ubox_fixed: return b[1];
        case box_kind::r2pcie: return b[2];
        case box_kind::qpi: return b.at(3 + unit);
    }
    return nullptr;
}

void replayer::post(const trace::trace_record& r) {
    if (const auto* p = std::get_if<trace::packet_record>(&r)) {
        box_module* port = box_of(p->socket, box_kind::qpi, p->port);
        port->post_packet(p->dir, p->cycle, p->packet);  // (its end: see time_left())
    } else {
        const auto& e = std::get<trace::event_record>(r);
        box_module* box = box_of(e.socket, e.kind, e.unit);
        box->post_run(e.cycle, e.repeat, e.input, e.count);
        end_ = std::max(end_, box->core().clock().cycle_start(e.cycle + e.repeat));
    }
}

}  // namespace pmonsim
