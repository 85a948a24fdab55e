#include "serve/platform.h"

#include <algorithm>

#include "desc/fields.h"

namespace pmonsim::serve {

namespace {

constexpr bool rw = true, ro = false;

}  // namespace

std::vector<platform_msr> platform_msrs(cpu_model cpu) {
    const cpu_identity id = describe(cpu).identity;
    const uint64_t ratio = id.base_mhz / 100;
    uint64_t turbo = 0;  // MSR_TURBO_RATIO_LIMIT: no turbo, every core count at the base ratio
    for (unsigned i = 0; i < 8; ++i) turbo |= ratio << (8 * i);
    std::vector<platform_msr> m = {
        {0x10, 0x10, 0, ro, "IA32_TIME_STAMP_COUNTER (the simulated TSC)"},
        {0x17, 0x17, 0, ro, "IA32_PLATFORM_ID"},
        {0x1B, 0x1B, 0xFEE00800, ro, "IA32_APIC_BASE (x2APIC off, enabled)"},
        {0x34, 0x34, 0, ro, "MSR_SMI_COUNT"},
        {0x3A, 0x3A, 0x5, ro, "IA32_FEATURE_CONTROL (locked)"},
        // Software writes 0 and runs CPUID(1) to read the microcode revision
        // (the SDM's microcode update signature); here it stays 0, as /proc/cpuinfo says.
        {0x8B, 0x8B, 0, rw, "IA32_BIOS_SIGN_ID (microcode revision 0)"},
        {0xC1, 0xC8, 0, rw, "IA32_PMC0-7 (core PMU: read back, no counting)"},
        {0xCE, 0xCE, (12ull << 40) | (ratio << 8), ro, "MSR_PLATFORM_INFO (base and minimum ratio)"},
        {0xE7, 0xE8, 0, rw, "IA32_MPERF, IA32_APERF"},
        {0x186, 0x18D, 0, rw, "IA32_PERFEVTSEL0-7"},
        {0x198, 0x198, ratio << 8, ro, "IA32_PERF_STATUS"},
        {0x199, 0x199, ratio << 8, rw, "IA32_PERF_CTL"},
        {0x19C, 0x19C, 0x88390000, ro, "IA32_THERM_STATUS (valid, 57 degrees below TjMax)"},
        {0x1A0, 0x1A0, 0x850089, rw, "IA32_MISC_ENABLE"},
        {0x1A2, 0x1A2, 0x5A0000, ro, "MSR_TEMPERATURE_TARGET (TjMax 90)"},
        {0x1A4, 0x1A4, 0, rw, "MSR_MISC_FEATURE_CONTROL (prefetchers)"},
        {0x1AD, 0x1AD, turbo, ro, "MSR_TURBO_RATIO_LIMIT"},
        {0x1B0, 0x1B0, 6, rw, "IA32_ENERGY_PERF_BIAS"},
        {0x1B1, 0x1B1, 0x88390000, ro, "IA32_PACKAGE_THERM_STATUS"},
        {0x1D9, 0x1D9, 0, rw, "IA32_DEBUGCTL"},
        {0x309, 0x30B, 0, rw, "IA32_FIXED_CTR0-2"},
        {0x345, 0x345, 0x31C3, ro, "IA32_PERF_CAPABILITIES"},
        {0x38D, 0x390, 0, rw, "IA32_FIXED_CTR_CTRL, PERF_GLOBAL_STATUS/CTRL/OVF_CTRL"},
        {0x3F1, 0x3F1, 0, rw, "IA32_PEBS_ENABLE"},
        {0x3F6, 0x3F6, 0xFFFF, rw, "MSR_PEBS_LD_LAT"},
        {0x3F8, 0x3FA, 0, ro, "package C3/C6/C7 residency"},
        // (On a CPU with a PCU, 0x3FC and 0x3FD are its residency counters,
        // which the model serves first.)
        {0x3FC, 0x3FE, 0, ro, "core C3/C6/C7 residency"},
        {0x606, 0x606, 0xA1003, ro, "MSR_RAPL_POWER_UNIT"},
        {0x60D, 0x60D, 0, ro, "package C2 residency"},
        {0x610, 0x610, 0, rw, "MSR_PKG_POWER_LIMIT"},
        {0x611, 0x611, 0, ro, "MSR_PKG_ENERGY_STATUS (no energy is modelled)"},
        {0x613, 0x613, 0, ro, "MSR_PKG_PERF_STATUS"},
        {0x614, 0x614, 0x410, ro, "MSR_PKG_POWER_INFO (130 W)"},
        {0x618, 0x618, 0, rw, "MSR_DRAM_POWER_LIMIT"},
        {0x619, 0x619, 0, ro, "MSR_DRAM_ENERGY_STATUS"},
        {0x61B, 0x61C, 0, ro, "MSR_DRAM_PERF_STATUS, MSR_DRAM_POWER_INFO"},
        {0x620, 0x620, 0, rw, "MSR_UNCORE_RATIO_LIMIT"},
        {0x638, 0x638, 0, rw, "MSR_PP0_POWER_LIMIT"},
        {0x639, 0x639, 0, ro, "MSR_PP0_ENERGY_STATUS"},
        {0x63A, 0x63A, 0, rw, "MSR_PP0_POLICY"},
        {0x63B, 0x63B, 0, ro, "MSR_PP0_PERF_STATUS"},
        {0x640, 0x642, 0, ro, "MSR_PP1_POWER_LIMIT, ENERGY_STATUS, POLICY"},
        {0x6E0, 0x6E0, 0, rw, "IA32_TSC_DEADLINE"},
    };
    std::sort(m.begin(), m.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return m;
}

std::vector<platform_function> platform_functions(cpu_model cpu, uint32_t uclk_ratio) {
    const cpu_desc& d = describe(cpu);
    std::vector<platform_function> f;
    switch (d.uclk.report) {
        case uclk_report::none: break;
        case uclk_report::noncore_ratio:
            // Only the ratio field is presented; the rest of the dword reads 0.
            f.push_back({d.uclk.dev, d.uclk.fn, d.uclk.device_id, d.uclk.class_code,
                         "Generic Non-core Registers (CURRENT_UCLK_RATIO read-only; the rest read back)",
                         {{d.uclk.offset, static_cast<uint32_t>(nhm_bits::uclk_ratio.put(uclk_ratio)), true}}});
            break;
    }
    return f;
}

platform_msr_file::platform_msr_file(cpu_model cpu, unsigned cpus, unsigned cores_per_socket, uint64_t tsc_hz)
    : ranges_(platform_msrs(cpu)), cpus_(cpus), tsc_hz_(tsc_hz) {
    (void)cores_per_socket;  // (the caching agents, one per core, are the model's boxes)
}

const platform_msr* platform_msr_file::find(uint32_t msr) const {
    auto it = std::upper_bound(ranges_.begin(), ranges_.end(), msr,
                               [](uint32_t m, const platform_msr& r) { return m < r.first; });
    if (it == ranges_.begin()) return nullptr;
    --it;
    return msr <= it->last ? &*it : nullptr;
}

uint64_t platform_msr_file::tsc(uint64_t now_ps) const {
    return static_cast<uint64_t>(static_cast<unsigned __int128>(now_ps) * tsc_hz_ / 1'000'000'000'000u);
}

platform_msr_file::result platform_msr_file::read(unsigned cpu, uint32_t msr, uint64_t now_ps, uint64_t& value,
                                                  bool& first) {
    const platform_msr* r = find(msr);
    if (!r || cpu >= cpus_) return result::no_such_msr;
    const uint64_t key = uint64_t{cpu} << 32 | msr;
    auto [it, inserted] = values_.try_emplace(key, r->reset);
    first = inserted;
    value = msr == 0x10 ? tsc(now_ps) : it->second;
    return result::ok;
}

platform_msr_file::result platform_msr_file::write(unsigned cpu, uint32_t msr, uint64_t value, bool& first) {
    const platform_msr* r = find(msr);
    if (!r || cpu >= cpus_) return result::no_such_msr;
    const uint64_t key = uint64_t{cpu} << 32 | msr;
    auto [it, inserted] = values_.try_emplace(key, r->reset);
    first = inserted;
    if (!r->writable) return result::read_only;
    it->second = value;
    return result::ok;
}

}  // namespace pmonsim::serve
