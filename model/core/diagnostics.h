// Diagnostics: the model as a checker of the software that programs it
// (DECISIONS.md, "Diagnostics"). A record never changes what is counted.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace pmonsim {

struct diagnostic {
    uint64_t cycle = 0;       // in the clock of the box concerned
    uint64_t time_ps = 0;     // simulated time of the access
    unsigned socket = 0;
    std::string box;          // "ubox", "r2pcie", "qpi0", ...
    std::string reg;          // register name, e.g. "Q_P0_PCI_PMON_CTL2"
    uint64_t value = 0;       // value written (or read) by the software
    std::string reason;       // one line
};

class diagnostic_sink {
public:
    void report(diagnostic d);
    const std::vector<diagnostic>& records() const { return records_; }
    void clear() { records_.clear(); }
    // Called for every new record (SystemC wrapper uses it for SC_REPORT_INFO).
    void set_listener(std::function<void(const diagnostic&)> f) { listener_ = std::move(f); }

private:
    std::vector<diagnostic> records_;
    std::function<void(const diagnostic&)> listener_;
};

std::string format_diagnostic(const diagnostic& d);

}  // namespace pmonsim
