#include "report.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <nlohmann/json.hpp>

#include "cli_status.h"
#include "output_file.h"
#include "sc/time_util.h"

namespace pmonsim {

namespace {

std::string hex32(uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%08llx", static_cast<unsigned long long>(v));
    return b;
}

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

// Everything the three formats print, gathered once.
struct counter_row {
    unsigned socket;
    std::string box;
    unsigned counter;
    uint32_t control;
    std::string event;
    uint64_t value, overflows;
    bool box_frozen, global_freeze;
    std::string state;  // disabled, frozen, counting, or idle (enabled, counts nothing)
    bool outside_pmon;  // the PCU's residency counters: no control, always counting
};

struct socket_summary {
    unsigned socket, bus;
    bool global_freeze;
    uint64_t global_status, global_ctl;
    global_control mode;
    uint64_t pmi[32];
    std::vector<std::pair<std::string, std::pair<uint32_t, uint32_t>>> boxes;  // name, (box_ctl, status)
};

struct gathered {
    time_ps now;
    uint64_t uclk_cycles, qclk_cycles, dclk_cycles, pclk_cycles;
    bool has_qclk, has_dclk, has_pclk;  // whether any box counts QCLK, DCLK, PCLK cycles
    std::vector<counter_row> rows;
    std::vector<socket_summary> sockets;
};

gathered gather(uncore_system& sys) {
    gathered g;
    g.now = now_ps();
    g.uclk_cycles = clock_domain(sys.config().uclk_hz()).cycles_before(g.now);
    g.qclk_cycles = clock_domain(sys.config().qclk_hz()).cycles_before(g.now);
    g.dclk_cycles = clock_domain(sys.config().dclk_hz()).cycles_before(g.now);
    g.pclk_cycles = clock_domain(sys.config().pclk_hz()).cycles_before(g.now);
    const cpu_desc& cpu = describe(sys.config().cpu);
    g.has_qclk = g.has_dclk = g.has_pclk = false;
    for (const box_desc& b : cpu.boxes)
        switch (b.clock) {
            case box_clock::uclk: break;
            case box_clock::qclk: g.has_qclk = true; break;
            case box_clock::dclk: g.has_dclk = true; break;
            case box_clock::pclk: g.has_pclk = true; break;
        }
    for (unsigned s = 0; s < sys.sockets(); ++s) {
        uncore_socket& sock = sys.socket(s);
        socket_summary sum{s, sys.config().bus_of(s), sock.global().frozen(), sock.global().status(),
                           sock.global().ctl(), cpu.global, {}, {}};
        for (unsigned c = 0; c < 32; ++c) sum.pmi[c] = sock.global().pmi_count(c);
        for (box_module* b : sock.boxes()) {
            b->sync();
            const box_core& c = b->core();
            sum.boxes.push_back({c.spec().name, {c.box_ctl(), c.box_status()}});
            for (unsigned i = 0; i < c.spec().counters; ++i) {
                // (Disabled: its own enable is clear, or a global enable of
                // its counter is, Nehalem's EN_PCn. The PCU's residency
                // counters run outside PMON: always counting.)
                const bool en = c.spec().is_free(i) ||
                                (c.spec().en.test(c.counter_ctl(i)) && ((c.counter_gate() >> i) & 1u));
                const char* state = !en                                     ? "disabled"
                                    : c.frozen() && !c.spec().is_free(i) ? "frozen"
                                    : c.counter_counts(i)                 ? "counting"
                                                                          : "idle";
                g.rows.push_back({s, c.spec().name, i, c.counter_ctl(i), c.event_name(i), c.counter_value(i),
                                  c.counter_wraps(i), c.frozen(), sock.global().frozen(), state, c.spec().is_free(i)});
            }
        }
        g.sockets.push_back(sum);
    }
    return g;
}

void print_table(std::ostream& os, const gathered& g, const diagnostic_sink& diags) {
    char line[256];
    int box_w = 10;  // (wider for longer box names: "uncore_fixed")
    for (const counter_row& r : g.rows) box_w = std::max(box_w, static_cast<int>(r.box.size()));
    std::snprintf(line, sizeof line, "%-6s %-*s %-3s %-10s %-34s %16s %9s %s\n", "socket", box_w, "box", "ctr",
                  "control", "event", "value", "overflows", "state");
    os << line;
    for (const counter_row& r : g.rows) {
        std::snprintf(line, sizeof line, "%-6u %-*s %-3u 0x%08x %-34s %16llu %9llu %s\n", r.socket, box_w,
                      r.box.c_str(), r.counter, r.control, r.event.c_str(),
                      static_cast<unsigned long long>(r.value), static_cast<unsigned long long>(r.overflows),
                      r.state.c_str());
        os << line;
    }
    for (const socket_summary& s : g.sockets) {
        switch (s.mode) {
            case global_control::none:
            case global_control::ubox_freeze:
                std::snprintf(line, sizeof line, "socket %u (bus 0x%02x): global freeze %s, GLOBAL_STATUS 0x%08llx",
                              s.socket, s.bus, s.global_freeze ? "asserted" : "released",
                              static_cast<unsigned long long>(s.global_status));
                break;
            case global_control::uncore_global_ctrl:  // (no uncore PCI bus, no freeze state)
                std::snprintf(line, sizeof line, "socket %u: GLOBAL_CTRL 0x%08llx, GLOBAL_STATUS 0x%08llx", s.socket,
                              static_cast<unsigned long long>(s.global_ctl),
                              static_cast<unsigned long long>(s.global_status));
                break;
        }
        os << line;
        std::string pmis;
        for (unsigned c = 0; c < 32; ++c)
            if (s.pmi[c]) pmis += " core" + std::to_string(c) + "=" + std::to_string(s.pmi[c]);
        os << ", PMIs:" << (pmis.empty() ? " none" : pmis) << "\n";
    }
    std::snprintf(line, sizeof line, "time %.3f ns: %llu UCLK cycles", g.now / 1000.0,
                  static_cast<unsigned long long>(g.uclk_cycles));
    os << line;
    if (g.has_qclk) os << ", " << g.qclk_cycles << " QCLK cycles";
    if (g.has_dclk) os << ", " << g.dclk_cycles << " DCLK cycles";
    if (g.has_pclk) os << ", " << g.pclk_cycles << " PCLK cycles";
    os << "\n";
    os << diags.records().size() << " diagnostic(s)\n";
    for (const auto& r : diags.records()) os << "  " << format_diagnostic(r) << "\n";
}

// One table, so that any CSV reader takes it: a row per counter, then a row
// per diagnostic, told apart by `state` ("diagnostic" on the latter). The
// counter columns come first and keep their places; the last four belong to
// the diagnostics (empty on counter rows), whose rows leave the counter
// columns empty.
void print_csv(std::ostream& os, const gathered& g, const diagnostic_sink& diags) {
    os << "socket,box,counter,control,event,value,overflows,state,box_frozen,global_freeze,uclk_cycles,"
          "qclk_cycles,cycle,time_ps,register,register_value,reason\n";
    for (const counter_row& r : g.rows)
        os << r.socket << ',' << r.box << ',' << r.counter << ',' << hex32(r.control) << ',' << csv_field(r.event)
           << ',' << r.value << ',' << r.overflows << ',' << r.state << ',' << r.box_frozen << ',' << r.global_freeze << ','
           << g.uclk_cycles << ',' << g.qclk_cycles << ",,,,,\n";
    for (const auto& d : diags.records())
        os << d.socket << ',' << csv_field(d.box) << ",,,,,,diagnostic,,," << g.uclk_cycles << ',' << g.qclk_cycles
           << ',' << d.cycle << ',' << d.time_ps << ',' << csv_field(d.reg) << ',' << hex32(d.value) << ','
           << csv_field(d.reason) << '\n';
}

void print_json(std::ostream& os, uncore_system& sys, const gathered& g, const diagnostic_sink& diags) {
    using nlohmann::ordered_json;
    ordered_json j;
    j["cpu"] = to_string(sys.config().cpu);
    j["time_ps"] = g.now;
    j["uclk_hz"] = sys.config().uclk_hz();
    j["qclk_hz"] = sys.config().qclk_hz();
    j["uclk_cycles"] = g.uclk_cycles;
    j["qclk_cycles"] = g.qclk_cycles;
    if (g.has_dclk) {
        j["dclk_hz"] = sys.config().dclk_hz();
        j["dclk_cycles"] = g.dclk_cycles;
    }
    if (g.has_pclk) {
        j["pclk_hz"] = sys.config().pclk_hz();
        j["pclk_cycles"] = g.pclk_cycles;
    }
    j["sockets"] = ordered_json::array();
    for (const socket_summary& s : g.sockets) {
        ordered_json js;
        js["socket"] = s.socket;
        js["bus"] = s.bus;
        js["global_freeze"] = s.global_freeze;
        js["global_status"] = hex32(s.global_status);
        js["global_ctl"] = hex32(s.global_ctl);
        ordered_json pmi = ordered_json::object();
        for (unsigned c = 0; c < 32; ++c)
            if (s.pmi[c]) pmi[std::to_string(c)] = s.pmi[c];
        js["pmi_counts"] = pmi;
        js["boxes"] = ordered_json::array();
        for (const auto& [name, regs] : s.boxes) {
            ordered_json jb;
            jb["box"] = name;
            jb["box_ctl"] = hex32(regs.first);
            jb["box_status"] = hex32(regs.second);
            jb["counters"] = ordered_json::array();
            for (const counter_row& r : g.rows) {
                if (r.socket != s.socket || r.box != name) continue;
                jb["frozen"] = r.box_frozen;
                jb["counters"].push_back({{"counter", r.counter},
                                          {"control", hex32(r.control)},
                                          {"event", r.event},
                                          {"value", r.value},
                                          {"overflows", r.overflows},
                                          {"state", r.state}});
            }
            js["boxes"].push_back(jb);
        }
        j["sockets"].push_back(js);
    }
    j["diagnostics"] = ordered_json::array();
    for (const auto& d : diags.records())
        j["diagnostics"].push_back({{"cycle", d.cycle},
                                    {"time_ps", d.time_ps},
                                    {"socket", d.socket},
                                    {"box", d.box},
                                    {"register", d.reg},
                                    {"value", hex32(d.value)},
                                    {"reason", d.reason}});
    os << j.dump(2) << '\n';
}

}  // namespace

bool parse_report_format(const std::string& s, report_format& f) {
    if (s == "table") f = report_format::table;
    else if (s == "csv") f = report_format::csv;
    else if (s == "json") f = report_format::json;
    else return false;
    return true;
}

void parse_report_option(const std::string& s, report_format& f, bool& none) {
    none = s == "none";
    if (!none && !parse_report_format(s, f))
        throw bad_input("--report must be table, csv, json or none, not '" + s + "'");
}

void print_report(std::ostream& os, uncore_system& sys, report_format f) {
    const gathered g = gather(sys);
    switch (f) {
        case report_format::table: print_table(os, g, sys.diagnostics()); break;
        case report_format::csv: print_csv(os, g, sys.diagnostics()); break;
        case report_format::json: print_json(os, sys, g, sys.diagnostics()); break;
    }
}

bool counted_nothing(uncore_system& sys) {
    for (const counter_row& r : gather(sys).rows)
        if ((r.state != "disabled" && !r.outside_pmon) || r.value || r.overflows) return false;
    return true;
}

void write_report(uncore_system& sys, report_format f, const std::string& file) {
    if (file.empty()) {
        std::ostringstream text;
        print_report(text, sys, f);
        write_checked(std::cout, text.str(), "standard output");
    } else {
        write_output(file, [&](std::ostream& out) { print_report(out, sys, f); });
    }
}

}  // namespace pmonsim
