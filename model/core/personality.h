// CPU personalities modelled: Xeon E5-2600 (SNB-EP, manual 327043-001) and
// Xeon E5-2600 v2 (IVB-EP, manual 329468-002). Everything that differs
// between them lives in per-personality table data; this header only names them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace pmonsim {

enum class cpu_model { snb_ep, ivb_ep };

const char* to_string(cpu_model m);

// How a part of the personality presents itself to software (CPUID, the
// kernel's /proc/cpuinfo) when the model is served to real tools: a
// representative SKU of each family (E5-2680 and E5-2680 v2).
struct cpu_identity {
    unsigned family, model, stepping;  // CPUID leaf 1 signature
    const char* brand;                 // CPUID 0x80000002..4, "model name"
    unsigned base_mhz;                 // TSC and nominal frequency (MSR_PLATFORM_INFO ratio x 100)
    unsigned caching_agents;           // CBo boxes, one per core slice of the die
    unsigned l3_kb;                    // last-level cache of a socket
    uint32_t leaf1_ecx, leaf1_edx;     // CPUID.1 feature flags (hypervisor bit clear)
    uint32_t leaf7_ebx;                // CPUID.(7,0) structured extended features
    const char* cpuinfo_flags;         // the same features as /proc/cpuinfo names them
};
cpu_identity identity_of(cpu_model m);
std::optional<cpu_model> parse_cpu_model(const std::string& s);

}  // namespace pmonsim
