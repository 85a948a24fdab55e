#include "serve/core_pmu.h"

#include <cerrno>
#include <cstdio>

namespace pmonsim::serve {

namespace {

constexpr uint32_t kHardware = 0, kHwCache = 3, kRaw = 4;
// PERF_COUNT_HW_*: the ones modeled, and the first past Intel's event map.
constexpr uint64_t kHwCycles = 0, kHwInstructions = 1, kHwRefCycles = 9, kHwMax = 10;
// The event select bits the kernel takes from a raw config (X86_RAW_EVENT_MASK:
// event, umask, edge, inv, cmask) and AnyThread (bit 21, architectural PMU v3).
constexpr uint64_t kRawMask = 0xFFull | 0xFF00ull | 1ull << 18 | 1ull << 21 | 1ull << 23 | 0xFFull << 24;
constexpr uint64_t kAnyThread = 1ull << 21;
// The encodings of the fixed counters' events: UNHALTED_CORE_CYCLES,
// INST_RETIRED.ANY and the kernel's pseudo-encoding of ref-cycles (0x0300).
constexpr uint64_t kRawCycles = 0x3c, kRawInstructions = 0xc0, kRawRefCycles = 0x0300;
// perf_event_attr bits: freq (10); sampling needs an interrupt the model does not raise.
constexpr uint64_t kFreqBit = 1ull << 10;
// enable_on_exec: no simulated time passes between a tool's open and its
// child's exec (the clock moves only when a thread waits), so it is enabled now.
constexpr uint64_t kEnableOnExec = 1ull << 12;

}  // namespace

bool core_pmu::running(const event& e) const {
    if (!e.enabled) return false;
    if (!e.leader) return true;
    auto l = events_.find(e.leader);
    return l != events_.end() && l->second.enabled;
}

void core_pmu::settle(event& e, uint64_t now_ps) {
    const uint64_t d = now_ps - e.since_ps;
    if (e.enabled) e.enabled_ps += d;
    if (running(e)) {
        e.running_ps += d;
        e.counted_ps += d;
    }
    e.since_ps = now_ps;
}

// A leader's state decides its members' running: all are brought up to now first.
void core_pmu::settle_group(uint64_t leader, uint64_t now_ps) {
    for (auto& [id, e] : events_)
        if (id == leader || e.leader == leader) settle(e, now_ps);
}

uint64_t core_pmu::count(const event& e) const {
    if (e.what == kind::zero) return 0;
    // ps x MHz / 10^6: cycles of the base clock (ref-cycles and the TSC run at it too).
    return static_cast<uint64_t>(static_cast<unsigned __int128>(e.counted_ps) * base_mhz_ / 1'000'000u);
}

int core_pmu::open(const wire::perf_attr& a, pid_t owner, uint64_t now_ps, uint64_t& id) {
    event e{};
    if (a.type == kHardware) {
        // The upper half may name the PMU (perf's extended type); only "cpu" is one.
        const uint64_t pmu = a.config >> 32, c = a.config & 0xFFFFFFFF;
        if (pmu != 0 && pmu != kRaw) return ENOENT;
        if (c >= kHwMax) return EINVAL;
        if (c == kHwCycles) e.what = kind::cycles;
        else if (c == kHwInstructions) e.what = kind::instructions;
        else if (c == kHwRefCycles) e.what = kind::ref_cycles;
        else return ENOENT;  // not modeled: as the kernel answers an event the PMU lacks
    } else if (a.type == kHwCache) {
        // A malformed cache event is EINVAL (cache, op, result out of range); none is modeled.
        const uint64_t c = a.config & 0xFFFFFFFF;
        if ((c & 0xff) >= 7 || (c >> 8 & 0xff) >= 3 || (c >> 16 & 0xff) >= 2) return EINVAL;
        return ENOENT;
    } else if (a.type == kRaw) {
        const uint64_t c = a.config & kRawMask & ~kAnyThread;
        e.what = c == kRawCycles         ? kind::cycles
                 : c == kRawInstructions ? kind::instructions
                 : c == kRawRefCycles    ? kind::ref_cycles
                                         : kind::zero;
    } else {
        return ENOENT;
    }
    // A task (pid >= 0; 0 the caller) on any CPU or one, or a CPU (pid -1); never neither.
    if (a.pid < -1) return ESRCH;
    if (a.cpu < -1 || (a.cpu >= 0 && static_cast<unsigned>(a.cpu) >= cpus_)) return EINVAL;
    if (a.pid == -1 && a.cpu == -1) return EINVAL;
    if (a.sample_period || (a.flags & kFreqBit)) return EOPNOTSUPP;
    if (a.group) {
        // A member joins a leader of this PMU; the group must fit the counters:
        // one of each fixed event on its fixed counter, the rest on general ones
        // (ref-cycles has only its fixed counter).
        auto l = events_.find(a.group);
        if (l == events_.end() || l->second.leader) return EINVAL;
        unsigned fixed[3] = {}, general = 0;
        auto place = [&](kind k) {
            const int f = k == kind::cycles ? 0 : k == kind::instructions ? 1 : k == kind::ref_cycles ? 2 : -1;
            if (f >= 0 && !fixed[f]++) return true;
            if (k == kind::ref_cycles) return false;
            return ++general <= gp_counters_;
        };
        bool fits = place(l->second.what);
        for (const auto& [mid, m] : events_)
            if (m.leader == a.group) fits = place(m.what) && fits;
        if (!place(e.what) || !fits) return EINVAL;
        e.leader = a.group;
    }
    e.owner = owner;
    e.since_ps = now_ps;
    e.enabled = !(a.flags & 1) || (a.flags & kEnableOnExec);  // not disabled
    id = next_id_++;
    events_.emplace(id, e);
    static const char* const names[] = {"cycles", "instructions", "ref-cycles", "zero"};
    char line[160];
    std::snprintf(line, sizeof line, "perf: open cpu type %u config 0x%llx pid %d cpu %d (%s) -> event %llu", a.type,
                  static_cast<unsigned long long>(a.config), a.pid, a.cpu, names[static_cast<int>(e.what)],
                  static_cast<unsigned long long>(id));
    log_(line);
    return 0;
}

int core_pmu::read(uint64_t id, uint64_t now_ps, uint64_t out[3]) {
    auto it = events_.find(id);
    if (it == events_.end()) return EBADF;
    event& e = it->second;
    settle(e, now_ps);
    out[0] = count(e);
    out[1] = e.enabled_ps / 1000;
    out[2] = e.running_ps / 1000;
    return 0;
}

int core_pmu::control(uint64_t id, uint32_t what, uint64_t now_ps) {
    auto it = events_.find(id);
    if (it == events_.end()) return EBADF;
    event& e = it->second;
    settle_group(e.leader ? e.leader : id, now_ps);
    switch (static_cast<wire::perf_ctl>(what)) {
        case wire::perf_ctl::enable: e.enabled = true; return 0;
        case wire::perf_ctl::disable: e.enabled = false; return 0;
        case wire::perf_ctl::reset: e.counted_ps = 0; return 0;
    }
    return EINVAL;
}

// A leader's members go on as events of their own, as the kernel leaves them.
int core_pmu::close(uint64_t id, uint64_t now_ps) {
    auto it = events_.find(id);
    if (it == events_.end()) return EBADF;
    settle_group(it->second.leader ? it->second.leader : id, now_ps);
    for (auto& [mid, m] : events_)
        if (m.leader == id) m.leader = 0;
    events_.erase(id);
    return 0;
}

void core_pmu::release(pid_t owner, uint64_t now_ps) {
    std::vector<uint64_t> ids;
    for (const auto& [id, e] : events_)
        if (e.owner == owner) ids.push_back(id);
    for (uint64_t id : ids) close(id, now_ps);
}

std::vector<std::pair<std::string, std::string>> core_pmu_files() {
    return {
        {"type", "4\n"},
        {"perf_event_mux_interval_ms", "4\n"},
        {"format/event", "config:0-7\n"},
        {"format/umask", "config:8-15\n"},
        {"format/edge", "config:18\n"},
        {"format/any", "config:21\n"},
        {"format/inv", "config:23\n"},
        {"format/cmask", "config:24-31\n"},
        {"events/cpu-cycles", "event=0x3c\n"},
        {"events/instructions", "event=0xc0\n"},
        {"events/ref-cycles", "event=0x00,umask=0x03\n"},
    };
}

}  // namespace pmonsim::serve
