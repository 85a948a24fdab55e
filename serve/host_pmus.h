// The host's perf PMUs beside a served machine's. The host kernel's software
// PMUs stay the host's (the interposer leaves their events to it:
// interpose/preload_perf.cpp); every other PMU of the host's is hidden, since
// it would count the host, not the machine. Plain C++, unit-tested.
#pragma once
#include <linux/perf_event.h>

#include <array>
#include <string>

namespace pmonsim::serve {

struct kernel_pmu {
    const char* name;
    int type;
};
constexpr std::array<kernel_pmu, 3> kernel_pmus = {
    {{"software", PERF_TYPE_SOFTWARE}, {"tracepoint", PERF_TYPE_TRACEPOINT}, {"breakpoint", PERF_TYPE_BREAKPOINT}}};

// The host's PMUs the machine hides, as wire::machine::hidden lists them:
// the real path of every entry of `devices` (the host's
// /sys/bus/event_source/devices) but the kernel PMUs above and `cpu` and
// `uncore_*` (whose paths are the machine's already), sorted, each ended by
// '\n'. So the host's power, msr, cstate_*, intel_pt, cpu_core, amd_*, ...,
// and kprobe and uprobe (whose types the server refuses), are not found
// (libpfm4 offers RAPL events on an IVB-EP when /sys/devices/power is there).
std::string hidden_host_pmus(const std::string& devices);

}  // namespace pmonsim::serve
