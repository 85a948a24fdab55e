#include "core/personality.h"

#include <string>

namespace pmonsim {

const char* to_string(cpu_model m) { return m == cpu_model::snb_ep ? "snb-ep" : "ivb-ep"; }

cpu_identity identity_of(cpu_model m) {
    // Family 6 models 0x2D and 0x3E (SDM Vol. 4, Table 2-1); steppings C2 and
    // M1; brand strings, caches and feature flags are those of the parts
    // (IVB-EP adds F16C and RDRAND to CPUID.1:ECX, FSGSBASE, SMEP and ERMS to
    // CPUID.7:EBX).
    static const char* const common =
        "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi mmx fxsr "
        "sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc arch_perfmon pebs bts rep_good nopl "
        "xtopology nonstop_tsc cpuid aperfmperf pni pclmulqdq dtes64 monitor ds_cpl vmx smx est tm2 ssse3 "
        "cx16 xtpr pdcm pcid dca sse4_1 sse4_2 x2apic popcnt tsc_deadline_timer aes xsave avx";
    static const std::string snb = std::string(common) + " lahf_lm epb tpr_shadow vnmi flexpriority ept vpid "
                                                         "xsaveopt dtherm ida arat pln pts";
    static const std::string ivb = std::string(common) + " f16c rdrand lahf_lm epb tpr_shadow vnmi flexpriority "
                                                         "ept vpid fsgsbase smep erms xsaveopt dtherm ida arat pln pts";
    switch (m) {
        case cpu_model::snb_ep:
            return {6, 0x2D, 7, "Intel(R) Xeon(R) CPU E5-2680 0 @ 2.70GHz", 2700, 8, 20480,
                    0x1FBEE3FF, 0xBFEBFBFF, 0x0, snb.c_str()};
        case cpu_model::ivb_ep:
            return {6, 0x3E, 4, "Intel(R) Xeon(R) CPU E5-2680 v2 @ 2.80GHz", 2800, 15, 25600,
                    0x7FBEE3FF, 0xBFEBFBFF, 0x281, ivb.c_str()};
    }
    return {};  // (not reached: the switch covers every model)
}

std::optional<cpu_model> parse_cpu_model(const std::string& s) {
    if (s == "snb-ep") return cpu_model::snb_ep;
    if (s == "ivb-ep") return cpu_model::ivb_ep;
    return std::nullopt;
}

}  // namespace pmonsim
