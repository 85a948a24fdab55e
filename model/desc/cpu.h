// A CPU as data: one descriptor per modelled CPU, all of them in one registry
// (cpu_registry.cpp). Everything that differs between CPUs is a value here:
// the boxes and how many of each, their counters and widths, where they live
// (MSR or PCI device/function and device IDs), their control-register
// variants, their global-status bits and catalogs, and the identity the CPU
// presents to software. Where behaviour differs, the descriptor names the
// behaviour (the enums below) and code switches on it without a `default`.
// Code outside the registry never compares CPU identities: it reads the
// descriptor (describe(), find_cpu()).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace pmonsim {

// Keys of the registry (one per descriptor, for options and for storage in
// other structures). Never compared outside cpu_registry.cpp.
enum class cpu_model : uint8_t { snb_ep, ivb_ep, nhm_ep, wsm_ep };
// The CPU every tool models unless told otherwise (DECISIONS.md P1).
constexpr cpu_model default_cpu = cpu_model::ivb_ep;

enum class box_kind : uint8_t { ubox, ubox_fixed, r2pcie, qpi, uncore, uncore_fixed, imc, ha, r3qpi, cbo, pcu, irp };
constexpr unsigned box_kind_count = 12;
const char* to_string(box_kind k);
// Linux's perf PMU for a box kind: "uncore_ubox", "uncore_r2pcie", "uncore_qpi"
// (a unit's is "uncore_qpi_N"), "uncore" (Nehalem/Westmere); a fixed counter
// belongs to its general counters' PMU.
const char* linux_pmu(box_kind k);
// The prefix of the kind's event names in Intel's catalogs and perf
// ("UNC_M_"); a fixed counter's kind has its general counters' (ubox_fixed:
// "UNC_U_"); Nehalem/Westmere's "UNC_".
const char* event_prefix(box_kind k);
struct cpu_desc;
// The PMU of one unit as Linux names it on that CPU: the type's name, with
// "_N" where the CPU has several units of the kind ("uncore_ha" on snb-ep,
// "uncore_ha_1" on ivb-ep).
std::string linux_pmu_name(const cpu_desc& cpu, box_kind k, unsigned unit);
// A box unit's name in traces, reports and events: "r2pcie", "qpi1", "imc5"
// (kinds of several units are numbered).
std::string unit_name(box_kind k, unsigned unit);
// A PCI box each of whose units is one PMON function at the device and
// function its descriptor gives (iMC, HA, R3QPI; not the R2PCIe or the QPI
// ports, which tools and tables treat by their own functions).
bool pmon_function_per_unit(box_kind k);
// Whether a kind's units are numbered in pmonsim's names: a kind of which
// some CPU has several ("ha0" even where there is one; "irp", "pcu").
bool numbered(box_kind k);

// The clock a box counts: the uncore clock, the QPI link's (GT/s / 8), the
// DRAM clock (half the DDR transfer rate; the iMC channels), or the PCU's
// fixed 800 MHz clock (Intel's catalog text for UNC_P_CLOCKTICKS).
enum class box_clock : uint8_t { uclk, qclk, dclk, pclk };

// How a box overflow reaches beyond the box.
enum class global_control : uint8_t {
    none,         // SNB-EP: no global PMON registers; BOX_STATUS is all there is
    ubox_freeze,  // IVB-EP: U_MSR_PMON_GLOBAL_CTL/STATUS/CONFIG, freeze and PMI
    // Nehalem-EP/Westmere-EP: MSR_UNCORE_PERF_GLOBAL_CTRL/STATUS/OVF_CTRL:
    // an enable per counter, status per counter, PMI to chosen cores, and
    // PMI_FRZ, which clears the enables on a PMI.
    uncore_global_ctrl,
};

// Where the rows of a packet trace go (docs/decisions.md N15).
enum class packet_route : uint8_t {
    qpi_link,    // SNB-EP, IVB-EP: QPI packets received or sent by a port, in its flit slots
    // Nehalem-EP/Westmere-EP: requests reaching the home logic from the local
    // cores, the remote socket or the IOH, compared with
    // MSR_UNCORE_ADDR_OPCODE_MATCH for event ADDR_OPCODE_MATCH.
    home_logic,
};

// What the BOX_CTL of a PCI box holds beside frz and the resets.
enum class box_ctl_style : uint8_t {
    none,          // no BOX_CTL (UBox)
    frz_en,        // SNB-EP: frz obeyed only with frz_en (16); ov_en (17) stored
    // SNB-EP iMC (327043-001 Table 2-60): frz and frz_en as above, but bits
    // 1:0 are reserved: no rst_ctrs or rst_ctrl (decisions.md B2).
    frz_en_no_resets,
    write1_16_17,  // IVB-EP: bits 17:16 "software must write 1", no effect
};

// The optional fields of a box's counter controls.
struct ctl_shape {
    bool invert = false;  // bit 23
    bool ov_en = false;   // bit 20
    bool ext = false;     // bit 21, the extra event select bit (QPI)
    bool rw_v = false;    // the manual marks the control RW-V rather than RW
    bool rst = true;      // bit 17 clears the paired counter (reserved on the SNB-EP iMC)
    // The PCU's: no umask; ev_sel bit 7 selects an occupancy sub-counter by
    // occ_sel (15:14), conditioned by occ_invert (30) and occ_edge_det (31);
    // a 5-bit threshold (pcu_bits, decisions.md B10).
    bool occupancy = false;
};



// A PCI box unit's device and the device IDs of its functions.
struct pci_unit {
    unsigned device;
    uint16_t pmon_id;    // the PMON function
    uint16_t filter_id;  // QPI packet filter (F6); 0: none
    uint16_t misc_id;    // QPI misc (F0); 0: none
    unsigned fn;         // the PMON function's number (R2PCIe 1, QPI 2, iMC channels 0/1/4/5)
};

struct event_def;

// The caching agents' filter registers.
enum class cbo_filters : uint8_t {
    none,
    one_filter,   // SNB-EP: BOX_FILTER (0xD14 + 0x20n): opc, state, nid, tid
    two_filters,  // IVB-EP: FILTER0 (0xD14): state, link, tid; FILTER1 (0xD1A): isoc, nc, opc, nid
};

// What a box compares the requests of qualified event-trace rows with
// (decisions.md B14): the rows' state, node, opcode, thread or address.
enum class request_filter : uint8_t {
    none,
    cbo_one_filter,   // SNB-EP caching agent: BOX_FILTER
    cbo_two_filters,  // IVB-EP caching agent: FILTER0 and FILTER1
    ha_addr_opcode,   // home agent: ADDRMATCH0/1 and OPCODEMATCH
};

// Which of a box's units a machine has.
enum class unit_count : uint8_t {
    all,                    // every unit of the descriptor
    per_qpi_port,           // one per QPI port the machine was given (QPI, R3QPI)
    per_memory_controller,  // units_per_group per memory controller it was given (iMC, HA)
    per_core,               // one per core of a socket (the caching agents)
};

// A named event of the Linux uncore driver's PMU for the box (its
// event_descs, in the terms of its format/ fields); "NAME.scale" and
// "NAME.unit" are the files perf scales and labels NAME's counts by.
struct linux_event_alias {
    const char* name;
    const char* value;
};

struct box_desc {
    box_kind kind;
    box_clock clock;
    unsigned units;       // instances a socket can have (QPI ports)
    unsigned counters;    // general counters (or 1 for a fixed counter)
    unsigned width;       // counter width in bits
    ctl_shape ctl;
    box_ctl_style box_ctl = box_ctl_style::none;
    bool box_status = false;        // has a BOX_STATUS register
    bool status_on_any_carry = false;  // BOX_STATUS set by any carry (no ov_en)
    std::vector<int> global_bits;   // per unit: GLOBAL_STATUS bit, -1 none
    std::vector<pci_unit> pci;      // per unit; empty for an MSR box
    std::vector<event_def> (*events)() = nullptr;  // catalog; null: no event select
    std::vector<linux_event_alias> linux_events = {};
    // A fixed counter inside the box's own register block, beside its general
    // counters (the iMC channel's DCLK counter: FIXED_CTL 0xF0, FIXED_CTR
    // 0xD0): it counts every cycle of the box's clock, obeys the box's freeze
    // and ov_en like the others, and reports overflow in BOX_STATUS bit 0,
    // the general counters' bits moving up one (decisions.md B3).
    bool fixed_counter = false;
    // The catalog's event that counts the box's own clock (never driven by a trace).
    const char* clock_event = "CLOCKTICKS";
    // How many of the units a machine has (uncore_config::units_present).
    unit_count present = unit_count::all;
    // Units per memory controller (unit_count::per_memory_controller): the
    // iMC's 4 channels, the HA's 1.
    unsigned units_per_group = 0;
    // The PCI class of its PMON functions, as lspci shows it: "performance
    // counters" (11/01/00), or what the function is besides (the iMC channels'
    // thermal-control functions: "other system peripheral", 08/80/00).
    uint32_t pci_class = 0x110100;
    // The event code with which counters 1-3 take counter 0's increment
    // (the CBo's COUNTER0_OCCUPANCY, 0x1F); -1: none (decisions.md B9).
    int mirror_code = -1;
    // The CBo's filter registers (decisions.md B8).
    cbo_filters filters = cbo_filters::none;
    // The PCU's band filter (PCU_MSR_PMON_BOX_FILTER): events with a band
    // (event_def::band) count cycles whose frequency is at least band k's
    // byte (decisions.md B11).
    bool band_filter = false;
    // The PCU's C-state residency counters outside PMON (PCU_MSR_CORE_C3_CTR
    // 0x3FC, PCU_MSR_CORE_C6_CTR 0x3FD): the TSC ticks in which some core is
    // in C3 / C6, from the occupancy inputs; never frozen, enabled or reset
    // by PMON controls (decisions.md B12).
    bool residency_counters = false;
    // A PCI box's counter offsets where they are not the usual 0xA0 + 8i
    // (the IRP's 0xA0, 0xB0, 0xB8, 0xC0; decisions.md B13); empty: the usual.
    std::vector<uint32_t> ctr_offsets = {};
};

// How the CPU presents itself to software when the model is served to real
// tools (CPUID, /proc/cpuinfo): a representative SKU.
struct cpu_identity {
    unsigned family, model, stepping;  // CPUID leaf 1 signature
    const char* brand;                 // CPUID 0x80000002..4, "model name"
    unsigned base_mhz;                 // TSC and nominal frequency (MSR_PLATFORM_INFO ratio x 100)
    unsigned caching_agents;           // core slices of the die (the CBo box's units: the same)
    unsigned l3_kb;                    // last-level cache of a socket
    uint32_t leaf1_ecx, leaf1_edx;     // CPUID.1 feature flags (hypervisor bit clear)
    uint32_t leaf7_ebx;                // CPUID.(7,0) structured extended features
    const char* cpuinfo_flags;         // the same features as /proc/cpuinfo names them
};


// How each socket's uncore PCI bus is numbered when no bus is configured
// (uncore_config::bus_of; decisions.md P3, N12).
enum class uncore_bus_numbering : uint8_t {
    // SNB-EP/IVB-EP: the top bus of each socket's half of 0-255: 0xFF alone,
    // 0x7F and 0xFF for two sockets.
    top_of_half,
    // Nehalem-EP/Westmere-EP: the last buses, socket s on 0xFF - s (Linux's
    // i7core_edac numbers the sockets so: socket = last bus - bus).
    last_buses,
};

// How software can read the uncore clock's frequency.
enum class uclk_report : uint8_t {
    none,           // no register the model presents (SNB-EP/IVB-EP): any --uclk-mhz
    noncore_ratio,  // a ratio to the base clock in PCI configuration space (Nehalem-EP/Westmere-EP)
};

// The uncore clock ratio register (SDM Vol. 3B 18.8.2: "the uncore clock
// ratio which is available in the PCI configuration space register at offset
// C0H under device number 0 and Function 0"): CURRENT_UCLK_RATIO of the
// Generic Non-core Registers function on each socket's uncore bus, its ratio
// in nhm_bits::uclk_ratio; UCLK = ratio x BCLK. A served machine presents the
// function as a platform function (serve/platform.cpp); decisions.md N12.
struct uclk_ratio_desc {
    uclk_report report;
    unsigned dev, fn;     // 0, 0
    uint16_t device_id;   // of that function; 0 with report none
    uint32_t class_code;  // 24-bit class as lspci shows it (06/00/00: host bridge)
    uint32_t offset;      // 0xC0
    double bclk_mhz;      // the base clock the ratio multiplies (133.33 MHz)
};

struct cpu_desc {
    cpu_model key;
    const char* name;   // option value: "snb-ep"
    const char* title;  // "Xeon E5-2600 (Sandy Bridge-EP)"
    const char* manual;
    cpu_identity identity;
    global_control global;
    packet_route packets;
    std::vector<box_desc> boxes;
    uncore_bus_numbering bus_numbering;
    uclk_ratio_desc uclk;
    // Other names --cpu accepts, any case: perf's event-table names
    // (jaketown, ivytown, nehalemep, westmereep-dp) and short ones.
    std::vector<std::string> aliases = {};

    // The box of a kind, or null if this CPU has none.
    const box_desc* box(box_kind k) const;
    // The same for code that only runs for CPUs with that box: throws
    // std::logic_error when it has none.
    const box_desc& need(box_kind k) const;
    unsigned units(box_kind k) const;
};

const std::vector<cpu_desc>& cpu_registry();
const cpu_desc& describe(cpu_model m);
const char* to_string(cpu_model m);
// By option name ("ivb-ep") or alias, in any case; null when unknown.
const cpu_desc* find_cpu(const std::string& name);
// By CPUID family and model; null when none is modelled.
const cpu_desc* find_cpu(unsigned family, unsigned model);
// "snb-ep, ivb-ep": for usage texts and errors.
std::string cpu_names(const char* sep = ", ");
// An error's end for an unknown CPU name: the names, and the nearest ones.
std::string unknown_cpu_text(const std::string& name);

}  // namespace pmonsim
