#include "report.h"

#include <cstdio>

#include "sc/time_util.h"

namespace pmonsim {

void print_counter_table(std::ostream& os, uncore_system& sys) {
    char line[256];
    std::snprintf(line, sizeof line, "%-6s %-10s %-3s %-10s %-34s %16s %6s %s\n", "socket", "box", "ctr",
                  "control", "event", "value", "wraps", "state");
    os << line;
    for (unsigned s = 0; s < sys.sockets(); ++s) {
        uncore_socket& sock = sys.socket(s);
        for (box_module* b : sock.boxes()) {
            b->sync();
            const box_core& c = b->core();
            for (unsigned i = 0; i < c.spec().counters; ++i) {
                std::snprintf(line, sizeof line, "%-6u %-10s %-3u 0x%08x %-34s %16llu %6llu %s\n", s,
                              c.spec().name.c_str(), i, c.counter_ctl(i), c.event_name(i).c_str(),
                              static_cast<unsigned long long>(c.counter_value(i)),
                              static_cast<unsigned long long>(c.counter_wraps(i)),
                              c.frozen() ? "frozen" : "running");
                os << line;
            }
        }
        const time_ps t = now_ps();
        std::snprintf(line, sizeof line,
                      "socket %u: UCLK cycles %llu, QCLK cycles %llu, global freeze %s, GLOBAL_STATUS 0x%08x\n",
                      s, static_cast<unsigned long long>(clock_domain(sys.config().uclk_hz()).cycles_before(t)),
                      static_cast<unsigned long long>(clock_domain(sys.config().qclk_hz()).cycles_before(t)),
                      sock.global().frozen() ? "asserted" : "released", sock.global().status());
        os << line;
    }
    const auto& d = sys.diagnostics().records();
    os << d.size() << " diagnostic(s)\n";
    for (const auto& r : d) os << "  " << format_diagnostic(r) << "\n";
}

}  // namespace pmonsim
