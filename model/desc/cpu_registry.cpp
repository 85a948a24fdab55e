// The registry of modelled CPUs: the only place that knows which CPU has what.
//
// SNB-EP: Xeon E5-2600, 327043-001. IVB-EP: Xeon E5-2600 v2, 329468-002.
// NHM-EP: Xeon 5500, WSM-EP: Xeon 5600, SDM Vol. 3B 18.8.2.
// Device IDs: 327043-001 Table 1-3 / 329468-002 Table 1-3 (the IVB-EP port-2
// filter and misc functions, and the port-1 misc IDs, are our assumption:
// DECISIONS.md "Personalities"). Global-status bits: 329468-002 Table 2-3.
// The Nehalem-EP/Westmere-EP Generic Non-core Registers function and uncore
// buses: decisions.md N12.
#include "desc/cpu.h"
#include "desc/nearest.h"

#include <stdexcept>

#include "desc/fields.h"

namespace pmonsim {

namespace catalog_data {
// Defined in catalog_ubox.cpp, catalog_r2pcie.cpp and catalog_qpi.cpp.
std::vector<event_def> snb_ep_ubox_events();
std::vector<event_def> ivb_ep_ubox_events();
std::vector<event_def> snb_ep_r2pcie_events();
std::vector<event_def> ivb_ep_r2pcie_events();
std::vector<event_def> snb_ep_qpi_events();
std::vector<event_def> ivb_ep_qpi_events();
// catalog_imc.cpp
std::vector<event_def> snb_ep_imc_events();
std::vector<event_def> ivb_ep_imc_events();
// catalog_ha.cpp, catalog_r3qpi.cpp
std::vector<event_def> snb_ep_ha_events();
std::vector<event_def> ivb_ep_ha_events();
std::vector<event_def> snb_ep_r3qpi_events();
std::vector<event_def> ivb_ep_r3qpi_events();
// catalog_cbo.cpp
std::vector<event_def> snb_ep_cbo_events();
std::vector<event_def> ivb_ep_cbo_events();
// catalog_irp.cpp
std::vector<event_def> ivb_ep_irp_events();
// catalog_pcu.cpp
std::vector<event_def> snb_ep_pcu_events();
std::vector<event_def> ivb_ep_pcu_events();
// catalog_nhm.cpp
std::vector<event_def> nhm_ep_events();
std::vector<event_def> wsm_ep_events();
}  // namespace catalog_data

namespace {

// Feature flags (SDM Vol. 2A CPUID; IVB-EP adds F16C and RDRAND to CPUID.1:ECX,
// FSGSBASE, SMEP and ERMS to CPUID.7:EBX) as the kernel names them.
#define PMONSIM_E5_COMMON_FLAGS                                                                       \
    "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi mmx fxsr " \
    "sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc arch_perfmon pebs bts rep_good "   \
    "nopl xtopology nonstop_tsc cpuid aperfmperf pni pclmulqdq dtes64 monitor ds_cpl vmx smx est tm2 "  \
    "ssse3 cx16 xtpr pdcm pcid dca sse4_1 sse4_2 x2apic popcnt tsc_deadline_timer aes xsave avx"

// Linux's snbep_uncore_imc_events (both generations): clockticks is the fixed
// counter (the pseudo event 0xff); a CAS moves one 64-byte line, which the
// .scale and .unit files turn into MiB (64 / 2^20).
std::vector<linux_event_alias> imc_linux_events() {
    return {{"clockticks", "event=0xff,umask=0x00"},
            {"cas_count_read", "event=0x04,umask=0x03"},
            {"cas_count_read.scale", "6.103515625e-5"},
            {"cas_count_read.unit", "MiB"},
            {"cas_count_write", "event=0x04,umask=0x0c"},
            {"cas_count_write.scale", "6.103515625e-5"},
            {"cas_count_write.unit", "MiB"}};
}

// IVB-EP GLOBAL_STATUS.ov_c: CBo k at bit 3 + k.
std::vector<int> cbo_global_bits(unsigned n) {
    std::vector<int> b;
    for (unsigned k = 0; k < n; ++k) b.push_back(global_status_bits::ov_c.lo + static_cast<int>(k));
    return b;
}

// The PCU (327043-001 §2.6, 329468-002 §2.7): MSRs, four 48-bit counters
// in PCU cycles, the band filter and the C3/C6 residency counters; IVB-EP
// adds ov_en, BOX_STATUS and GLOBAL_STATUS.ov_p (decisions.md B10-B12).
box_desc pcu_box(box_ctl_style style, ctl_shape ctl, bool box_status, int global_bit,
                 std::vector<event_def> (*events)()) {
    box_desc d{box_kind::pcu, box_clock::pclk, 1, 4, 48, ctl, style, box_status, false, {global_bit}, {}, events};
    d.band_filter = true;
    d.residency_counters = true;
    return d;
}

// IVB-EP's IIO ring port (IRP, likwid's IBOX; decisions.md B13): one PCI
// function, 05.6 (0E39) on the uncore bus where likwid looks for it, four
// 48-bit UCLK counters (Linux) at Linux's unaligned offsets, BOX_STATUS with
// a bit per counter and no GLOBAL_STATUS bit.
box_desc irp_box() {
    box_desc d{box_kind::irp, box_clock::uclk, 1, 4, 48, {false, true, false, true, true}, box_ctl_style::write1_16_17,
               true, false, {-1}, {{5, 0x0E39, 0, 0, 6}}, catalog_data::ivb_ep_irp_events};
    d.pci_class = 0x088000;
    d.ctr_offsets = {0xA0, 0xB0, 0xB8, 0xC0};
    return d;
}

// SNB-EP/IVB-EP: UCLK is not presented as a register.
uclk_ratio_desc no_uclk_register() { return {uclk_report::none, 0, 0, 0, 0, 0, 0.0}; }

// Nehalem-EP/Westmere-EP: CURRENT_UCLK_RATIO at C0h of the Generic Non-core
// Registers function, 00.0 of each socket's uncore bus, a host bridge (class
// 06/00/00) to lspci; UCLK = ratio x BCLK, BCLK 133.33 MHz.
uclk_ratio_desc noncore_uclk_ratio(uint16_t device_id) {
    return {uclk_report::noncore_ratio, 0, 0, device_id, 0x060000, 0xC0, 400.0 / 3.0};
}

cpu_desc snb_ep() {
    using namespace catalog_data;
    cpu_desc d{cpu_model::snb_ep, "snb-ep", "Xeon E5-2600 (Sandy Bridge-EP)", "327043-001",
               {6, 0x2D, 7, "Intel(R) Xeon(R) CPU E5-2680 0 @ 2.70GHz", 2700, 8, 20480, 0x1FBEE3FF,
                0xBFEBFBFF, 0x0,
                PMONSIM_E5_COMMON_FLAGS " lahf_lm epb tpr_shadow vnmi flexpriority ept vpid xsaveopt "
                                        "dtherm ida arat pln pts"},
               global_control::none, packet_route::qpi_link, {},
               uncore_bus_numbering::top_of_half, no_uclk_register()};
    const ctl_shape snb_ctl{true, false, false, false};
    d.boxes = {
        {box_kind::ubox, box_clock::uclk, 1, 2, 44, snb_ctl, box_ctl_style::none, false, false, {-1}, {},
         snb_ep_ubox_events},
        {box_kind::ubox_fixed, box_clock::uclk, 1, 1, 48, {}, box_ctl_style::none, false, false, {-1}, {}, nullptr},
        {box_kind::r2pcie, box_clock::uclk, 1, 4, 44, {true, false, false, true}, box_ctl_style::frz_en, true, true,
         {-1}, {{19, 0x3C43, 0, 0, 1}}, snb_ep_r2pcie_events},
        {box_kind::qpi, box_clock::qclk, 2, 4, 48, {true, false, true, true}, box_ctl_style::frz_en, true, true,
         {-1, -1}, {{8, 0x3C41, 0x3C86, 0x3C80, 2}, {9, 0x3C42, 0x3C96, 0x3C90, 2}}, snb_ep_qpi_events,
         // Linux's snbep_uncore_qpi_events (ivbep and the other boxes have none);
         // event=0x102 sets the extra select bit through "config:0-7,21".
         {{"clockticks", "event=0x14"},
          {"txl_flits_active", "event=0x00,umask=0x06"},
          {"drs_data", "event=0x102,umask=0x08"},
          {"ncb_data", "event=0x103,umask=0x04"}},
         false, "CLOCKTICKS", unit_count::per_qpi_port},
        // One controller, channels 0-3 at D16:F0/F1/F4/F5 in the manual's
        // order (327043-001 Table 2-59; decisions.md B1). No reset bits in
        // BOX_CTL or CTLn; BOX_STATUS per the datasheet's PmonUnitStatus.
        {box_kind::imc, box_clock::dclk, 4, 4, 48, {true, false, false, true, false}, box_ctl_style::frz_en_no_resets,
         true, true, {-1, -1, -1, -1},
         {{16, 0x3CB0, 0, 0, 0}, {16, 0x3CB1, 0, 0, 1}, {16, 0x3CB4, 0, 0, 4}, {16, 0x3CB5, 0, 0, 5}},
         snb_ep_imc_events, imc_linux_events(), true, "CLOCKTICKS", unit_count::per_memory_controller, 4,
         0x088000},
        // One home agent at D14:F1 (327043-001 Table 2-33); like the iMC, no
        // reset bits (decisions.md B5).
        {box_kind::ha, box_clock::uclk, 1, 4, 48, {true, false, false, true, false}, box_ctl_style::frz_en_no_resets,
         true, true, {-1}, {{14, 0x3C46, 0, 0, 1}}, snb_ep_ha_events, {}, false, "CLOCKTICKS",
         unit_count::per_memory_controller, 1},
        // One R3QPI function per QPI link, D19:F5/F6 (3C44/3C45).
        {box_kind::r3qpi, box_clock::uclk, 2, 3, 44, {true, false, false, true, true}, box_ctl_style::frz_en, true,
         true, {-1, -1}, {{19, 0x3C44, 0, 0, 5}, {19, 0x3C45, 0, 0, 6}}, snb_ep_r3qpi_events, {}, false,
         "CLOCKTICKS", unit_count::per_qpi_port},
        // A caching agent per core, MSRs from 0xD04 + 0x20n (327043-001 Table
        // 2-8): four 44-bit counters, the filter at 0xD14 + 0x20n, no BOX_STATUS.
        {box_kind::cbo, box_clock::uclk, 8, 4, 44, {true, false, false, true, true}, box_ctl_style::frz_en, false,
         false, std::vector<int>(8, -1), {}, snb_ep_cbo_events, {}, false, "CLOCKTICKS", unit_count::per_core, 0,
         0x110100, 0x1F, cbo_filters::one_filter},
        pcu_box(box_ctl_style::frz_en, {true, false, true, true, true, true}, false, -1, snb_ep_pcu_events),
    };
    d.aliases = {"snb", "snbep", "jaketown", "sandybridge-ep"};  // (perf's pmu-events name among them)
    return d;
}

cpu_desc ivb_ep() {
    using namespace catalog_data;
    cpu_desc d{cpu_model::ivb_ep, "ivb-ep", "Xeon E5-2600 v2 (Ivy Bridge-EP)", "329468-002",
               {6, 0x3E, 4, "Intel(R) Xeon(R) CPU E5-2680 v2 @ 2.80GHz", 2800, 15, 25600, 0x7FBEE3FF,
                0xBFEBFBFF, 0x281,
                PMONSIM_E5_COMMON_FLAGS " f16c rdrand lahf_lm epb tpr_shadow vnmi flexpriority ept "
                                        "vpid fsgsbase smep erms xsaveopt dtherm ida arat pln pts"},
               global_control::ubox_freeze, packet_route::qpi_link, {},
               uncore_bus_numbering::top_of_half, no_uclk_register()};
    namespace gs = global_status_bits;
    d.boxes = {
        {box_kind::ubox, box_clock::uclk, 1, 2, 44, {false, true, false, false}, box_ctl_style::none, true, false, {gs::ov_u.lo},
         {}, ivb_ep_ubox_events},
        {box_kind::ubox_fixed, box_clock::uclk, 1, 1, 48, {false, true, false, true}, box_ctl_style::none, false, false,
         {gs::ov_u_fixed.lo}, {}, nullptr},
        {box_kind::r2pcie, box_clock::uclk, 1, 4, 44, {false, true, false, true}, box_ctl_style::write1_16_17, true,
         false, {gs::ov_rp.lo}, {{19, 0x0E34, 0, 0, 1}}, ivb_ep_r2pcie_events},
        {box_kind::qpi, box_clock::qclk, 3, 4, 48, {false, true, true, true}, box_ctl_style::write1_16_17, true, false,
         {gs::ov_q0.lo, gs::ov_q1.lo, -1},
         {{8, 0x0E32, 0x0E86, 0x0E80, 2}, {9, 0x0E33, 0x0E96, 0x0E90, 2}, {24, 0x0E3A, 0x0EC6, 0x0EC0, 2}},
         ivb_ep_qpi_events, {}, false, "CLOCKTICKS", unit_count::per_qpi_port},
        // Up to two controllers of four channels, MC0 at D16, MC1 at D30,
        // channels 0-3 at F4/F5/F0/F1 (Linux, PCM and likwid agree; decisions.md
        // B1); each controller's channels report to GLOBAL_STATUS.ov_m0/ov_m1.
        {box_kind::imc, box_clock::dclk, 8, 4, 48, {false, true, false, true, true}, box_ctl_style::write1_16_17,
         true, false, {gs::ov_m0.lo, gs::ov_m0.lo, gs::ov_m0.lo, gs::ov_m0.lo, gs::ov_m1.lo, gs::ov_m1.lo,
                       gs::ov_m1.lo, gs::ov_m1.lo},
         {{16, 0x0EB4, 0, 0, 4}, {16, 0x0EB5, 0, 0, 5}, {16, 0x0EB0, 0, 0, 0}, {16, 0x0EB1, 0, 0, 1},
          {30, 0x0EF4, 0, 0, 4}, {30, 0x0EF5, 0, 0, 5}, {30, 0x0EF0, 0, 0, 0}, {30, 0x0EF1, 0, 0, 1}},
         ivb_ep_imc_events, imc_linux_events(), true, "DCLOCKTICKS", unit_count::per_memory_controller, 4,
         0x088000},
        // A home agent per memory controller: HA0 D14:F1, HA1 D28:F1
        // (329468-002 Table 2-37), reporting to ov_h0/ov_h1.
        {box_kind::ha, box_clock::uclk, 2, 4, 48, {false, true, false, true, true}, box_ctl_style::write1_16_17, true,
         false, {gs::ov_h0.lo, gs::ov_h1.lo}, {{14, 0x0E30, 0, 0, 1}, {28, 0x0E38, 0, 0, 1}}, ivb_ep_ha_events, {},
         false, "CLOCKTICKS", unit_count::per_memory_controller, 1},
        // An R3QPI function per QPI link: D19:F5/F6 and, on parts with a third
        // link, D18:F5 (0E3E), which has no GLOBAL_STATUS bit (decisions.md B6).
        {box_kind::r3qpi, box_clock::uclk, 3, 3, 44, {false, true, false, true, true}, box_ctl_style::write1_16_17,
         true, false, {gs::ov_rq0.lo, gs::ov_rq1.lo, -1},
         {{19, 0x0E36, 0, 0, 5}, {19, 0x0E37, 0, 0, 6}, {18, 0x0E3E, 0, 0, 5}}, ivb_ep_r3qpi_events, {}, false,
         "CLOCKTICKS", unit_count::per_qpi_port},
        // Up to 15 caching agents; CBo k reports to GLOBAL_STATUS bit 3 + k
        // (ov_c); FILTER0 at 0xD14 and FILTER1 at 0xD1A + 0x20n; no BOX_STATUS
        // (decisions.md B8).
        {box_kind::cbo, box_clock::uclk, 15, 4, 44, {false, true, false, true, true}, box_ctl_style::write1_16_17,
         false, false, cbo_global_bits(15), {}, ivb_ep_cbo_events, {}, false, "CLOCKTICKS", unit_count::per_core,
         0, 0x110100, 0x1F, cbo_filters::two_filters},
        pcu_box(box_ctl_style::write1_16_17, {false, true, true, true, true, true}, true, gs::ov_p.lo,
                ivb_ep_pcu_events),
        irp_box(),
    };
    d.aliases = {"ivb", "ivbep", "ivytown", "ivybridge-ep"};  // (perf's pmu-events name among them)
    return d;
}

#undef PMONSIM_E5_COMMON_FLAGS

// Nehalem-EP and Westmere-EP: one uncore PMU per socket, all MSRs (SDM Vol. 3B
// 18.8.2): eight general counters and a fixed counter of 48 bits, no boxes on
// PCI. A PMI-enabled overflow sets OVF_PMI, which is the box's global bit.
#define PMONSIM_NHM_COMMON_FLAGS                                                                      \
    "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi mmx fxsr " \
    "sse sse2 ss ht tm pbe syscall nx rdtscp lm constant_tsc arch_perfmon pebs bts rep_good nopl "      \
    "xtopology nonstop_tsc cpuid aperfmperf pni dtes64 monitor ds_cpl vmx est tm2 ssse3 cx16 xtpr pdcm " \
    "dca sse4_1 sse4_2 popcnt lahf_lm ida dtherm tpr_shadow vnmi flexpriority ept vpid"

std::vector<box_desc> nhm_boxes(std::vector<event_def> (*events)()) {
    const int ovf_pmi = nhm_bits::ovf_pmi.lo;
    return {
        {box_kind::uncore, box_clock::uclk, 1, 8, 48, {true, true, false, false}, box_ctl_style::none, true,
         true, {ovf_pmi}, {}, events},
        {box_kind::uncore_fixed, box_clock::uclk, 1, 1, 48, {false, true, false, false}, box_ctl_style::none,
         true, true, {ovf_pmi}, {}, nullptr},
    };
}

cpu_desc nhm_ep() {
    // Xeon X5570: CPUID 06_1AH stepping 5; no AES, PCLMULQDQ, PCID or 1 GB pages.
    cpu_desc d{cpu_model::nhm_ep, "nhm-ep", "Xeon 5500 (Nehalem-EP)", "SDM Vol. 3B 18.8.2",
               {6, 0x1A, 5, "Intel(R) Xeon(R) CPU           X5570  @ 2.93GHz", 2933, 0, 8192, 0x009CE3BD,
                0xBFEBFBFF, 0x0, PMONSIM_NHM_COMMON_FLAGS},
               global_control::uncore_global_ctrl, packet_route::home_logic, nhm_boxes(catalog_data::nhm_ep_events),
               uncore_bus_numbering::last_buses,
               // Linux's PCI_DEVICE_ID_INTEL_I7_NONCORE_ALT, "Xeon 55xx" to i7core_edac
               // (0x2C41 is the Core i7-900 / Xeon 3500's).
               noncore_uclk_ratio(0x2C40)};
    d.aliases = {"nhm", "nhmep", "nehalemep", "nehalem-ep"};  // (perf's pmu-events name among them)
    return d;
}

cpu_desc wsm_ep() {
    // Xeon X5670: CPUID 06_2CH stepping 2; adds AES, PCLMULQDQ, PCID and 1 GB pages.
    cpu_desc d{cpu_model::wsm_ep, "wsm-ep", "Xeon 5600 (Westmere-EP)", "SDM Vol. 3B 18.8.2",
               {6, 0x2C, 2, "Intel(R) Xeon(R) CPU           X5670  @ 2.93GHz", 2933, 0, 12288, 0x029EE3FF,
                0xBFEBFBFF, 0x0, PMONSIM_NHM_COMMON_FLAGS " pclmulqdq pcid aes pdpe1gb arat"},
               global_control::uncore_global_ctrl, packet_route::home_logic, nhm_boxes(catalog_data::wsm_ep_events),
               uncore_bus_numbering::last_buses,
               // Linux's PCI_DEVICE_ID_INTEL_LYNNFIELD_NONCORE_REV2, "Xeon 56xx / i7-900"
               // to i7core_edac (pci.ids: Xeon 5600 Series ... Generic Non-core Registers).
               noncore_uclk_ratio(0x2C70)};
    d.aliases = {"wsm", "wsmep", "westmereep-dp", "westmere-ep"};  // (perf's pmu-events name among them)
    return d;
}

#undef PMONSIM_NHM_COMMON_FLAGS

}  // namespace

const char* to_string(box_kind k) {
    switch (k) {
        case box_kind::ubox: return "ubox";
        case box_kind::ubox_fixed: return "ubox_fixed";
        case box_kind::r2pcie: return "r2pcie";
        case box_kind::qpi: return "qpi";
        case box_kind::uncore: return "uncore";
        case box_kind::uncore_fixed: return "uncore_fixed";
        case box_kind::imc: return "imc";
        case box_kind::ha: return "ha";
        case box_kind::r3qpi: return "r3qpi";
        case box_kind::cbo: return "cbo";
        case box_kind::pcu: return "pcu";
        case box_kind::irp: return "irp";
    }
    return "?";
}

const char* linux_pmu(box_kind k) {
    switch (k) {
        case box_kind::ubox:
        case box_kind::ubox_fixed: return "uncore_ubox";
        case box_kind::r2pcie: return "uncore_r2pcie";
        case box_kind::qpi: return "uncore_qpi";
        case box_kind::uncore:
        case box_kind::uncore_fixed: return "uncore";
        case box_kind::imc: return "uncore_imc";
        case box_kind::ha: return "uncore_ha";
        case box_kind::r3qpi: return "uncore_r3qpi";
        case box_kind::cbo: return "uncore_cbox";
        case box_kind::pcu: return "uncore_pcu";
        case box_kind::irp: return "uncore_irp";
    }
    return "";
}

bool pmon_function_per_unit(box_kind k) {
    switch (k) {
        case box_kind::imc:
        case box_kind::ha:
        case box_kind::r3qpi:
        case box_kind::irp: return true;
        case box_kind::ubox:
        case box_kind::ubox_fixed:
        case box_kind::r2pcie:
        case box_kind::qpi:
        case box_kind::uncore:
        case box_kind::uncore_fixed:
        case box_kind::cbo:
        case box_kind::pcu: return false;
    }
    return false;
}

bool numbered(box_kind k) {
    for (const cpu_desc& c : cpu_registry())
        if (c.units(k) > 1) return true;
    return false;
}

std::string unit_name(box_kind k, unsigned unit) {
    return numbered(k) ? to_string(k) + std::to_string(unit) : std::string(to_string(k));
}

const char* event_prefix(box_kind k) {
    switch (k) {
        case box_kind::ubox:
        case box_kind::ubox_fixed: return "UNC_U_";
        case box_kind::r2pcie: return "UNC_R2_";
        case box_kind::qpi: return "UNC_Q_";
        case box_kind::imc: return "UNC_M_";
        case box_kind::ha: return "UNC_H_";
        case box_kind::r3qpi: return "UNC_R3_";
        case box_kind::cbo: return "UNC_C_";
        case box_kind::pcu: return "UNC_P_";
        case box_kind::irp: return "UNC_I_";
        case box_kind::uncore:
        case box_kind::uncore_fixed: return "UNC_";
    }
    return "";
}

std::string linux_pmu_name(const cpu_desc& cpu, box_kind k, unsigned unit) {
    return std::string(linux_pmu(k)) + (cpu.units(k) > 1 ? "_" + std::to_string(unit) : std::string());
}

const box_desc* cpu_desc::box(box_kind k) const {
    for (const auto& b : boxes)
        if (b.kind == k) return &b;
    return nullptr;
}

const box_desc& cpu_desc::need(box_kind k) const {
    if (const box_desc* b = box(k)) return *b;
    throw std::logic_error(std::string(name) + " has no " + to_string(k) + " box");
}

unsigned cpu_desc::units(box_kind k) const {
    const box_desc* b = box(k);
    return b ? b->units : 0;
}

const std::vector<cpu_desc>& cpu_registry() {
    static const std::vector<cpu_desc> all = {snb_ep(), ivb_ep(), nhm_ep(), wsm_ep()};
    return all;
}

const cpu_desc& describe(cpu_model m) {
    for (const auto& d : cpu_registry())
        if (d.key == m) return d;
    throw std::logic_error("CPU key without a descriptor");
}

const char* to_string(cpu_model m) { return describe(m).name; }

const cpu_desc* find_cpu(const std::string& name) {
    auto same = [&](const std::string& n) { return edit_distance(name, n) == 0 && name.size() == n.size(); };
    for (const auto& d : cpu_registry()) {
        if (same(d.name)) return &d;
        for (const std::string& a : d.aliases)
            if (same(a)) return &d;
    }
    return nullptr;
}

std::string unknown_cpu_text(const std::string& name) {
    std::vector<std::string> all;
    for (const auto& d : cpu_registry()) {
        all.push_back(d.name);
        all.insert(all.end(), d.aliases.begin(), d.aliases.end());
    }
    return "must be one of " + cpu_names(", ") + ", not '" + name + "'" + did_you_mean(name, all);
}

const cpu_desc* find_cpu(unsigned family, unsigned model) {
    for (const auto& d : cpu_registry())
        if (d.identity.family == family && d.identity.model == model) return &d;
    return nullptr;
}

std::string cpu_names(const char* sep) {
    std::string s;
    for (const auto& d : cpu_registry()) s += (s.empty() ? "" : sep) + std::string(d.name);
    return s;
}

}  // namespace pmonsim
