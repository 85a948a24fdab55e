#include "core/diagnostics.h"

#include <cstdio>

namespace pmonsim {

void diagnostic_sink::report(diagnostic d) {
    records_.push_back(std::move(d));
    if (listener_) listener_(records_.back());
}

std::string format_diagnostic(const diagnostic& d) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "cycle %llu (%.3f ns) socket %u ",
                  static_cast<unsigned long long>(d.cycle), d.time_ps / 1000.0, d.socket);
    char val[32];
    std::snprintf(val, sizeof val, "0x%llx", static_cast<unsigned long long>(d.value));
    return std::string(buf) + d.box + " " + d.reg + " = " + val + ": " + d.reason;
}

}  // namespace pmonsim
