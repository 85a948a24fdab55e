// The core PMU of the served machine (the kernel's "cpu" PMU, type 4): a
// small platform model, not a model of the cores. Every modeled CPU, and
// every thread, is taken to be busy all the time at the part's base frequency:
//   cycles, ref-cycles  = simulated time x base frequency (the TSC's rate)
//   instructions        = cycles (a fixed IPC of 1)
//   any other raw event = 0 (the model has no core activity to count)
// Other hardware and all hardware-cache events are ENOENT, as the kernel
// answers an event the PMU does not support (docs/decisions.md, S19).
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "serve/protocol.h"

namespace pmonsim::serve {

class core_pmu {
public:
    // Ids from here on are this PMU's (the uncore ids count up from 1).
    static constexpr uint64_t kFirstId = 1ull << 62;

    // `gp_counters`: general counters a CPU has (CPUID 0xA: 4 with threads, 8 without).
    using log_fn = std::function<void(const std::string&)>;
    core_pmu(unsigned cpus, unsigned base_mhz, unsigned gp_counters, log_fn log)
        : cpus_(cpus), base_mhz_(base_mhz), gp_counters_(gp_counters), log_(std::move(log)) {}

    // PERF_TYPE_HARDWARE, PERF_TYPE_HW_CACHE and PERF_TYPE_RAW.
    static bool serves(uint32_t type) { return type == 0 || type == 3 || type == 4; }
    static bool owns(uint64_t id) { return id >= kFirstId; }

    // As perf_counters' calls: 0 or an errno value.
    int open(const wire::perf_attr& a, pid_t owner, uint64_t now_ps, uint64_t& id);
    int read(uint64_t id, uint64_t now_ps, uint64_t out[3]);
    int control(uint64_t id, uint32_t what, uint64_t now_ps);
    int close(uint64_t id, uint64_t now_ps);
    void release(pid_t owner, uint64_t now_ps);

private:
    enum class kind { cycles, instructions, ref_cycles, zero };
    struct event {
        pid_t owner;
        kind what;
        uint64_t leader = 0;  // 0: it leads (or is alone)
        bool enabled = false;
        uint64_t enabled_ps = 0, running_ps = 0, since_ps = 0;
        uint64_t counted_ps = 0;  // running time since the last reset
    };
    bool running(const event& e) const;
    void settle(event& e, uint64_t now_ps);
    void settle_group(uint64_t leader, uint64_t now_ps);
    uint64_t count(const event& e) const;

    unsigned cpus_, base_mhz_, gp_counters_;
    log_fn log_;
    std::map<uint64_t, event> events_;
    uint64_t next_id_ = kFirstId;
};

// The files of /sys/devices/cpu/ (relative paths, contents): the kernel's
// description of Intel's core PMU, as far as modeled.
std::vector<std::pair<std::string, std::string>> core_pmu_files();

}  // namespace pmonsim::serve
