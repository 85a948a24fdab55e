// The uncore PMUs a served machine's kernel presents through perf_event_open,
// as Linux's uncore driver (arch/x86/events/intel/uncore_snbep.c) presents the
// snb-ep and ivb-ep boxes: their sysfs descriptions (type, cpumask, format/,
// events/),
// and counting events programmed into the model's registers the way that
// driver programs them. Everything comes from the model's register tables:
// a box with a counter control register is a PMU, its control fields are the
// format and the event mask, its counter width the wrap to undo.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "desc/cpu.h"
#include "serve/cbox_filter.h"
#include "serve/core_pmu.h"
#include "sc/uncore_system.h"
#include "serve/protocol.h"
#include "driver/target.h"

namespace pmonsim::serve {

// The first dynamic PMU type: far above the kernel's fixed types (0-5) and
// the few dynamic ones a host registers, so a type never names a host PMU.
constexpr uint32_t kFirstUncoreType = 50;

struct pmu_format {
    std::string name, spec;  // "event", "config:0-7,21"
};

struct presented_pmu {
    std::string name;  // "uncore_qpi_0"
    uint32_t type;
    box_kind kind;
    bool msr;          // the UBox (MSRs) or a PCI function
    unsigned dev = 0, fn = 0;              // PCI: the PMON function
    int filter_dev = -1, filter_fn = -1;   // QPI: the packet match/mask function
    uint32_t box_ctl = 0;                  // 0: the box has none
    std::vector<uint32_t> ctl, ctr;        // per counter
    unsigned ctr_bits = 0;
    uint32_t fixed_ctl = 0, fixed_ctr = 0; // 0: no fixed counter
    unsigned fixed_bits = 0;
    uint64_t fixed_enable = 0;             // the fixed control's en bit
    uint32_t global_ctl = 0;               // Nehalem/Westmere: GLOBAL_CTRL, its box's on/off
    uint64_t global_enable = 0;            //   and the value the driver's enable_box writes
    uint32_t match0 = 0, mask0 = 0;        // filter registers (8 bytes each: two dwords)
    uint32_t band_filter = 0;              // the PCU's band filter MSR (config1's bytes); 0: none
    std::optional<cbox_filter> cbo;        // a caching agent's filter, as Linux programs it
    uint64_t event_mask = 0;               // control bits a config may set
    std::vector<pmu_format> formats;
    std::vector<std::pair<std::string, std::string>> events;  // events/ aliases: name, contents
};

// The PMUs of the model's boxes, in a stable order with types from kFirstUncoreType.
std::vector<presented_pmu> presented_pmus(uncore_system& sys);

// The files of /sys/devices/<pmu>/ (relative paths, contents).
std::vector<std::pair<std::string, std::string>> pmu_files(const presented_pmu& p, const std::string& cpumask);

// Counting events on those PMUs: the kernel's uncore driver's programming
// (box init at first use; freeze, control write, unfreeze around each
// counter taken or given back; 64-bit counts from counters read as deltas).
class perf_counters {
public:
    using log_fn = std::function<void(const std::string&)>;
    perf_counters(uncore_system& sys, driver::target& t, unsigned cpus_per_socket, log_fn log);

    // 0 or an errno value; `id` names the event afterwards.
    int open(const wire::perf_attr& a, pid_t owner, uint64_t now_ps, uint64_t& id);
    // Count, time enabled and time running (ns).
    int read(uint64_t id, uint64_t now_ps, uint64_t out[3]);
    int control(uint64_t id, uint32_t what, uint64_t now_ps);  // wire::perf_ctl
    int close(uint64_t id, uint64_t now_ps);
    // A process has gone: its events are closed, as the kernel does at exit.
    void release(pid_t owner, uint64_t now_ps);
    // Reads every running counter once at least kPollPs has passed, as the
    // kernel's hrtimer does, so a wrap between two reads is not lost.
    void poll(uint64_t now_ps);

private:
    struct event {
        pid_t owner;
        unsigned pmu, socket;
        uint64_t config, config1, config2;
        bool fixed, filter;
        int band = -1;  // the PCU's band events: the filter byte config1 sets
        unsigned cbo_groups = 0;  // a caching agent's filter groups the event uses
        uint64_t leader = 0;  // the group's leader; 0: the event leads (or is alone)
        bool enabled = false;
        int slot = -1;  // counter index while running; the fixed counter is -2
        uint64_t count = 0, prev = 0;
        uint64_t enabled_ps = 0, running_ps = 0, since_ps = 0;
    };
    struct box_state {
        bool initialized = false;
        uint32_t busy = 0;       // counters taken
        bool fixed_busy = false;
        uint64_t filter_users = 0, config1 = 0, config2 = 0;
        // The PCU's band filter, shared by byte as the driver shares it
        // (snbep_pcu_hw_config): the bytes in use and their users.
        uint64_t bands = 0;
        unsigned band_users[4] = {};
        cbox_filter_use cbo;  // a caching agent's filter
    };
    bool reg_read(const presented_pmu& p, unsigned socket, uint32_t reg, unsigned size, uint64_t& v);
    void reg_write(const presented_pmu& p, unsigned socket, uint32_t reg, unsigned size, uint64_t v);
    void access_log(const presented_pmu& p, unsigned socket, bool write, uint32_t reg, unsigned size, uint64_t v);
    void freeze(const presented_pmu& p, unsigned socket, bool on);
    uint64_t read_counter(const event& e);
    void update(event& e);
    uint32_t allowed(const event& e) const;  // the counters the event may use
    std::optional<std::vector<int>> assign(const std::vector<event*>& es) const;
    void run(const std::vector<event*>& es, uint64_t now_ps);
    void relocate_band(event& e, uint64_t bands, const unsigned users[4]) const;
    void halt(const std::vector<event*>& es, uint64_t now_ps);
    std::vector<event*> group_of(uint64_t leader);
    void enable(uint64_t id, event& e, uint64_t now_ps);
    void disable(uint64_t id, event& e, uint64_t now_ps);
    void settle_times(event& e, uint64_t now_ps);

    uncore_system& sys_;
    driver::target& t_;
    unsigned cpus_per_socket_;
    log_fn log_;
    std::vector<presented_pmu> pmus_;
    // The "cpu" PMU's events (serve/core_pmu.h), by the ids it gives.
    core_pmu core_{sys_.config().sockets * cpus_per_socket_, describe(sys_.config().cpu).identity.base_mhz,
                   cpus_per_socket_ % 2 ? 8u : 4u, log_};
    std::map<uint64_t, event> events_;
    std::map<std::pair<unsigned, unsigned>, box_state> boxes_;  // (pmu, socket)
    uint64_t next_id_ = 1;
    uint64_t last_poll_ps_ = 0;
};

}  // namespace pmonsim::serve
