// Register tables as data, checked three ways:
//  (a) against the field tables of the research notes, typed in here as
//      literal data (never computed from the model's tables):
//        ubox-r2pcie-global.md §1.3 (IVB-EP GLOBAL_CTL/STATUS/CONFIG), §1.4
//        (box control/status), §4.1-§4.4 (UBox MSRs), §5.1-§5.5 (R2PCIe);
//        qpi-ll.md §1.1-§1.7 (QPI PMON, filter and misc functions, device IDs),
//        §2.1 (MATCH/MASK layout);
//      with DECISIONS.md deciding the open points (fixed counter 48 bits,
//      BOX_CTL frz/frz_en read back, SNB-EP BOX_CTL bit 17 stored, IVB-EP
//      bits 17:16 "write 1", invert reserved on IVB-EP, QPI ext = bit 21);
//  (b) structurally: the fields of every register cover its bits exactly once;
//  (c) behaviourally through box_core: reset values, RW read-back, WO action
//      bits, RW1C status, reserved bits (read 0, ignore writes, one diagnostic),
//      IVB-EP BOX_CTL 17:16, counter widths and dword-half writes
//      (DECISIONS.md "Counter control (all boxes)").
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "core/box_core.h"
#include "tables/register_table.h"

namespace pmonsim {
namespace {

constexpr cpu_model snb = cpu_model::snb_ep;
constexpr cpu_model ivb = cpu_model::ivb_ep;

// ===========================================================================
// (a) Expected tables, literal data from the notes.
//
// A field is named and typed. Reserved bits are listed as "rsv" rows with
// attr::rv; the notes sometimes split a reserved range into several rows
// (e.g. GLOBAL_CTL 28:27 and 26:15), which says nothing about behaviour, so
// reserved rows are compared as one bit mask while every other row
// (including the IVB-EP "write 1" rows) must match name, position and
// attribute exactly.
//
// Size: the MSRs are 64-bit registers (rdmsr/wrmsr move 8 bytes; the notes'
// "32" column gives how many low bits carry fields, §4.1), so every UBox
// register is 8 bytes here and its reserved range runs up to bit 63. PCI
// registers are dwords, counters two dwords (8 bytes).

struct exp_field {
    std::string name;
    unsigned hi, lo;
    attr a;
};

struct exp_reg {
    std::string name;
    uint32_t offset;
    unsigned size;
    uint64_t reset;
    std::vector<exp_field> fields;
};

exp_field rsv(unsigned hi, unsigned lo) { return {"rsv", hi, lo, attr::rv}; }

uint64_t mask(unsigned hi, unsigned lo) {
    return (hi - lo + 1 >= 64 ? ~0ull : ((1ull << (hi - lo + 1)) - 1)) << lo;
}

// --- UBox (ubox-r2pcie-global.md §4.2-§4.4, §1.3, §1.4) ---------------------

// U_MSR_PMON_CTL{1-0}, §4.2: thresh 28:24 (5 bits), invert 23 SNB only,
// ov_en 20 IVB only, bit 21 reserved on both (no extra select in the UBox).
std::vector<exp_field> ubox_ctl(cpu_model cpu) {
    std::vector<exp_field> f = {
        rsv(63, 29),
        {"thresh", 28, 24, attr::rw},
        {"en", 22, 22, attr::rw},
        rsv(21, 21),
        rsv(19, 19),
        {"edge_det", 18, 18, attr::rw},
        {"rst", 17, 17, attr::wo},
        rsv(16, 16),
        {"umask", 15, 8, attr::rw},
        {"ev_sel", 7, 0, attr::rw},
    };
    if (cpu == snb) {
        f.push_back({"invert", 23, 23, attr::rw});
        f.push_back(rsv(20, 20));
    } else {
        f.push_back(rsv(23, 23));
        f.push_back({"ov_en", 20, 20, attr::rw});
    }
    return f;
}

// U_MSR_PMON_UCLK_FIXED_CTL, §4.4: en 22 (RW on SNB, RW-V on IVB), ov_en 20 on IVB.
std::vector<exp_field> ubox_fixed_ctl(cpu_model cpu) {
    if (cpu == snb) return {rsv(63, 23), {"en", 22, 22, attr::rw}, rsv(21, 20), rsv(19, 0)};
    return {rsv(63, 23), {"en", 22, 22, attr::rw_v}, rsv(21, 21), {"ov_en", 20, 20, attr::rw_v},
            rsv(19, 0)};
}

// Counters: event_count (width-1):0 RW-V, the rest reserved (§4.3, §5.5,
// qpi-ll.md §1.6; fixed counter 48 bits per DECISIONS.md / note A1).
std::vector<exp_field> counter(unsigned width) {
    return {rsv(63, width), {"event_count", width - 1, 0, attr::rw_v}};
}

std::vector<exp_reg> expected_ubox(cpu_model cpu) {
    std::vector<exp_reg> r = {
        {"U_MSR_PMON_UCLK_FIXED_CTL", 0xC08, 8, 0, ubox_fixed_ctl(cpu)},
        {"U_MSR_PMON_UCLK_FIXED_CTR", 0xC09, 8, 0, counter(48)},
        {"U_MSR_PMON_CTL0", 0xC10, 8, 0, ubox_ctl(cpu)},
        {"U_MSR_PMON_CTL1", 0xC11, 8, 0, ubox_ctl(cpu)},
        {"U_MSR_PMON_CTR0", 0xC16, 8, 0, counter(44)},
        {"U_MSR_PMON_CTR1", 0xC17, 8, 0, counter(44)},
    };
    if (cpu == snb) return r;  // no box status, no global registers on SNB-EP
    // §1.4 Table 2-5, address 0xC15 (likwid; DECISIONS.md "Freeze and overflow").
    r.push_back({"U_MSR_PMON_BOX_STATUS", 0xC15, 8, 0, {rsv(63, 2), {"ov", 1, 0, attr::rw1c}}});
    // §1.3 Table 2-2.
    r.push_back({"U_MSR_PMON_GLOBAL_CTL", 0xC00, 8, 0,
                 {rsv(63, 32),
                  {"frz_all", 31, 31, attr::wo},
                  {"wk_on_pmi", 30, 30, attr::rw},
                  {"unfrz_all", 29, 29, attr::wo},
                  rsv(28, 27),
                  rsv(26, 15),
                  {"pmi_core_sel", 14, 0, attr::rw}}});
    // §1.3 Table 2-3 (secondary sources; DECISIONS.md "GLOBAL_STATUS bit map").
    r.push_back({"U_MSR_PMON_GLOBAL_STATUS", 0xC01, 8, 0,
                 {rsv(63, 27),
                  {"ov_rp", 26, 26, attr::rw1c},
                  {"ov_rq1", 25, 25, attr::rw1c},
                  {"ov_rq0", 24, 24, attr::rw1c},
                  {"ov_q1", 23, 23, attr::rw1c},
                  {"ov_q0", 22, 22, attr::rw1c},
                  {"ov_m1", 21, 21, attr::rw1c},
                  {"ov_m0", 20, 20, attr::rw1c},
                  {"ov_h1", 19, 19, attr::rw1c},
                  {"ov_h0", 18, 18, attr::rw1c},
                  {"ov_c", 17, 3, attr::rw1c},
                  {"ov_p", 2, 2, attr::rw1c},
                  {"ov_u", 1, 1, attr::rw1c},
                  {"ov_u_fixed", 0, 0, attr::rw1c}}});
    // Table 2-4 was not retrieved; DECISIONS.md: "GLOBAL_CONFIG (0xC06) is
    // stored and has no effect" -> the 32 documented bits are plain RW.
    r.push_back({"U_MSR_PMON_GLOBAL_CONFIG", 0xC06, 8, 0,
                 {rsv(63, 32), {"config", 31, 0, attr::rw}}});
    return r;
}

// --- PCI PMON functions (ubox-r2pcie-global.md §1.4, §5; qpi-ll.md §1.2-§1.6) --

exp_reg vid_did(uint16_t device_id) {
    return {"VID_DID", 0x00, 4, (uint64_t{device_id} << 16) | 0x8086,
            {{"device_id", 31, 16, attr::ro}, {"vendor_id", 15, 0, attr::ro}}};
}

// BOX_CTL at 0xF4. SNB-EP (qpi-ll.md Table 2-85 / notes §1.4): frz_en 16,
// frz 8 read back as written (DECISIONS.md), bit 17 stored without effect
// (DECISIONS.md, datasheet "Overflow Enable"). IVB-EP (Table 2-129): 17:16
// "SW must write 1", frz 8 alone.
std::vector<exp_field> box_ctl(cpu_model cpu) {
    if (cpu == snb)
        return {rsv(31, 18),
                {"ov_en", 17, 17, attr::rw},
                {"frz_en", 16, 16, attr::rw},
                rsv(15, 9),
                {"frz", 8, 8, attr::rw},
                rsv(7, 2),
                {"rst_ctrs", 1, 1, attr::wo},
                {"rst_ctrl", 0, 0, attr::wo}};
    return {rsv(31, 18),
            {"rsv", 17, 16, attr::rv_w1},
            rsv(15, 9),
            {"frz", 8, 8, attr::rw},
            rsv(7, 2),
            {"rst_ctrs", 1, 1, attr::wo},
            {"rst_ctrl", 0, 0, attr::wo}};
}

// CTL{0-3} at 0xD8 + 4i (notes §5.4, qpi-ll.md §1.5): every defined field RW-V,
// rst WO; thresh 8 bits; bit 21 = ev_sel_ext in QPI only; invert SNB only;
// ov_en IVB only; 19 and 16 reserved.
std::vector<exp_field> pci_ctl(cpu_model cpu, bool qpi) {
    std::vector<exp_field> f = {
        {"thresh", 31, 24, attr::rw_v},
        {"en", 22, 22, attr::rw_v},
        rsv(19, 19),
        {"edge_det", 18, 18, attr::rw_v},
        {"rst", 17, 17, attr::wo},
        rsv(16, 16),
        {"umask", 15, 8, attr::rw_v},
        {"ev_sel", 7, 0, attr::rw_v},
    };
    f.push_back(cpu == snb ? exp_field{"invert", 23, 23, attr::rw_v} : rsv(23, 23));
    f.push_back(qpi ? exp_field{"ev_sel_ext", 21, 21, attr::rw_v} : rsv(21, 21));
    f.push_back(cpu == ivb ? exp_field{"ov_en", 20, 20, attr::rw_v} : rsv(20, 20));
    return f;
}

std::vector<exp_reg> expected_pci_pmon(const std::string& prefix, uint16_t did, cpu_model cpu,
                                       bool qpi) {
    const unsigned width = qpi ? 48 : 44;
    return {
        vid_did(did),
        {prefix + "_BOX_CTL", 0xF4, 4, 0, box_ctl(cpu)},
        {prefix + "_BOX_STATUS", 0xF8, 4, 0, {rsv(31, 4), {"ov", 3, 0, attr::rw1c}}},
        {prefix + "_CTL0", 0xD8, 4, 0, pci_ctl(cpu, qpi)},
        {prefix + "_CTL1", 0xDC, 4, 0, pci_ctl(cpu, qpi)},
        {prefix + "_CTL2", 0xE0, 4, 0, pci_ctl(cpu, qpi)},
        {prefix + "_CTL3", 0xE4, 4, 0, pci_ctl(cpu, qpi)},
        {prefix + "_CTR0", 0xA0, 8, 0, counter(width)},
        {prefix + "_CTR1", 0xA8, 8, 0, counter(width)},
        {prefix + "_CTR2", 0xB0, 8, 0, counter(width)},
        {prefix + "_CTR3", 0xB8, 8, 0, counter(width)},
    };
}

// Device IDs (notes §5.1, qpi-ll.md §1.1).
struct qpi_ids {
    uint16_t pmon, filter, misc;
};
// SNB-EP: PMON 0x3C41/0x3C42, filter 0x3C86/0x3C96, misc D8:F0 0x3C80.
// IVB-EP: PMON 0x0E32/0x0E33/0x0E3A, filter 0x0E86/0x0E96, misc D8:F0 0x0E80.
// The port-1 misc IDs (0x3C90, 0x0E90) and the port-2 filter/misc IDs
// (0x0EC6 and 0x0EC0, likwid's numbers in qpi-ll.md §1.1) are the model's
// documented assumptions (DECISIONS.md: port-2 filter and misc "our own
// assumption"); they are pinned here so that a change is deliberate.
qpi_ids expected_qpi_ids(cpu_model cpu, unsigned port) {
    if (cpu == snb) return port == 0 ? qpi_ids{0x3C41, 0x3C86, 0x3C80} : qpi_ids{0x3C42, 0x3C96, 0x3C90};
    static const qpi_ids ivb_ids[3] = {
        {0x0E32, 0x0E86, 0x0E80}, {0x0E33, 0x0E96, 0x0E90}, {0x0E3A, 0x0EC6, 0x0EC0}};
    return ivb_ids[port];
}

// MATCH0/MASK0 and MATCH1/MASK1, qpi-ll.md §2.1.
std::vector<exp_field> match0_layout() {
    return {{"rnid_4", 31, 31, attr::rw}, rsv(30, 18),         {"dnid", 17, 13, attr::rw},
            {"mc", 12, 9, attr::rw},      {"opc", 8, 5, attr::rw}, {"vnw", 4, 3, attr::rw},
            rsv(2, 0)};
}
std::vector<exp_field> match1_layout() {
    return {rsv(31, 20), {"rds", 19, 16, attr::rw}, rsv(15, 4), {"rnid_3_0", 3, 0, attr::rw}};
}

std::vector<exp_reg> expected_qpi_filter(cpu_model cpu, unsigned port) {
    const std::string p = "Q_P" + std::to_string(port) + "_PCI_PMON_PKT_";
    return {vid_did(expected_qpi_ids(cpu, port).filter),
            {p + "MATCH0", 0x228, 4, 0, match0_layout()},
            {p + "MATCH1", 0x22C, 4, 0, match1_layout()},
            {p + "MASK0", 0x238, 4, 0, match0_layout()},
            {p + "MASK1", 0x23C, 4, 0, match1_layout()}};
}

// QPI_RATE_STATUS, qpi-ll.md §1.7: slow_mode 4 and qpi_rate 2:0 RO-V. Its
// value is hardware state (the configured link rate), so its table reset is
// not pinned (see `check_table`).
std::vector<exp_reg> expected_qpi_misc(cpu_model cpu, unsigned port) {
    return {vid_did(expected_qpi_ids(cpu, port).misc),
            {"QPI_RATE_STATUS", 0xD4, 4, 0,
             {rsv(31, 5), {"slow_mode", 4, 4, attr::ro_v}, rsv(3, 3), {"qpi_rate", 2, 0, attr::ro_v}}}};
}

std::vector<unsigned> ports(cpu_model cpu) {
    return cpu == snb ? std::vector<unsigned>{0, 1} : std::vector<unsigned>{0, 1, 2};
}

const char* cpu_name(cpu_model cpu) { return cpu == snb ? "snb-ep" : "ivb-ep"; }

using field_key = std::tuple<std::string, unsigned, unsigned, attr>;

// `msr`: the offsets are MSR addresses (one address per 8-byte register,
// looked up exactly), not byte offsets into a PCI function.
void check_table(const register_table& t, const std::vector<exp_reg>& expected,
                 const std::string& what, bool msr = false) {
    SCOPED_TRACE(what);
    ASSERT_EQ(t.regs.size(), expected.size()) << "number of registers";
    for (const exp_reg& e : expected) {
        SCOPED_TRACE(e.name);
        const register_def* r = t.find(e.name);
        ASSERT_NE(r, nullptr) << "register missing";
        EXPECT_EQ(r->offset, e.offset);
        EXPECT_EQ(msr ? t.find(e.offset) : t.find(e.offset), r) << "lookup by address";
        if (!msr) {  // every byte of a PCI register finds it
            EXPECT_EQ(t.find(e.offset + e.size - 1), r) << "lookup of the last byte";
        }
        EXPECT_EQ(r->size, e.size);
        if (e.name != "QPI_RATE_STATUS") {
            EXPECT_EQ(r->reset, e.reset);
        }

        std::set<field_key> want, got;
        uint64_t want_rv = 0;
        for (const exp_field& f : e.fields) {
            if (f.a == attr::rv)
                want_rv |= mask(f.hi, f.lo);
            else
                want.insert({f.name, f.hi, f.lo, f.a});
        }
        for (const field_def& f : r->fields)
            if (f.a != attr::rv) got.insert({f.name, f.hi, f.lo, f.a});
        EXPECT_EQ(got, want) << "named fields (name, hi, lo, attribute)";
        EXPECT_EQ(r->mask_of(attr::rv), want_rv) << "reserved bits";
    }
}

TEST(TableSpec, UboxMsrsMatchTheNotes) {
    for (cpu_model cpu : {snb, ivb})
        check_table(ubox_register_table(cpu), expected_ubox(cpu), cpu_name(cpu), true);
}

TEST(TableSpec, R2pcieFunctionMatchesTheNotes) {
    // DIDs: SNB-EP 0x3C43, IVB-EP 0x0E34 (notes §5.1).
    check_table(r2pcie_register_table(snb), expected_pci_pmon("R2_PCI_PMON", 0x3C43, snb, false),
                "snb-ep");
    check_table(r2pcie_register_table(ivb), expected_pci_pmon("R2_PCI_PMON", 0x0E34, ivb, false),
                "ivb-ep");
}

TEST(TableSpec, QpiPmonFunctionsMatchTheNotes) {
    for (cpu_model cpu : {snb, ivb})
        for (unsigned port : ports(cpu))
            check_table(qpi_pmon_register_table(cpu, port),
                        expected_pci_pmon("Q_P" + std::to_string(port) + "_PCI_PMON",
                                          expected_qpi_ids(cpu, port).pmon, cpu, true),
                        std::string(cpu_name(cpu)) + " port " + std::to_string(port));
}

TEST(TableSpec, QpiFilterFunctionsMatchTheNotes) {
    for (cpu_model cpu : {snb, ivb})
        for (unsigned port : ports(cpu))
            check_table(qpi_filter_register_table(cpu, port), expected_qpi_filter(cpu, port),
                        std::string(cpu_name(cpu)) + " port " + std::to_string(port));
}

TEST(TableSpec, QpiMiscFunctionsMatchTheNotes) {
    for (cpu_model cpu : {snb, ivb})
        for (unsigned port : ports(cpu))
            check_table(qpi_misc_register_table(cpu, port), expected_qpi_misc(cpu, port),
                        std::string(cpu_name(cpu)) + " port " + std::to_string(port));
}

// The device IDs spelled out once more as a flat list, so that a swapped pair
// (e.g. PMON and filter of one port) cannot hide behind shared helpers.
TEST(TableSpec, DeviceIdsByPortAndPersonality) {
    auto did = [](const register_table& t) { return static_cast<uint16_t>(t.find("VID_DID")->reset >> 16); };
    auto vid = [](const register_table& t) { return static_cast<uint16_t>(t.find("VID_DID")->reset); };
    EXPECT_EQ(did(r2pcie_register_table(snb)), 0x3C43);
    EXPECT_EQ(did(r2pcie_register_table(ivb)), 0x0E34);
    EXPECT_EQ(did(qpi_pmon_register_table(snb, 0)), 0x3C41);
    EXPECT_EQ(did(qpi_pmon_register_table(snb, 1)), 0x3C42);
    EXPECT_EQ(did(qpi_filter_register_table(snb, 0)), 0x3C86);
    EXPECT_EQ(did(qpi_filter_register_table(snb, 1)), 0x3C96);
    EXPECT_EQ(did(qpi_misc_register_table(snb, 0)), 0x3C80);
    EXPECT_EQ(did(qpi_pmon_register_table(ivb, 0)), 0x0E32);
    EXPECT_EQ(did(qpi_pmon_register_table(ivb, 1)), 0x0E33);
    EXPECT_EQ(did(qpi_pmon_register_table(ivb, 2)), 0x0E3A);
    EXPECT_EQ(did(qpi_filter_register_table(ivb, 0)), 0x0E86);
    EXPECT_EQ(did(qpi_filter_register_table(ivb, 1)), 0x0E96);
    EXPECT_EQ(did(qpi_misc_register_table(ivb, 0)), 0x0E80);
    for (cpu_model cpu : {snb, ivb}) {
        EXPECT_EQ(vid(r2pcie_register_table(cpu)), 0x8086);
        for (unsigned port : ports(cpu)) {
            EXPECT_EQ(vid(qpi_pmon_register_table(cpu, port)), 0x8086);
            EXPECT_EQ(vid(qpi_filter_register_table(cpu, port)), 0x8086);
            EXPECT_EQ(vid(qpi_misc_register_table(cpu, port)), 0x8086);
        }
    }
}

// SNB-EP has two QPI ports, IVB-EP three (DECISIONS.md "Topology").
TEST(TableSpec, QpiPortCountByPersonality) {
    EXPECT_THROW(qpi_pmon_register_table(snb, 2), std::out_of_range);
    EXPECT_THROW(qpi_filter_register_table(snb, 2), std::out_of_range);
    EXPECT_THROW(qpi_misc_register_table(snb, 2), std::out_of_range);
    EXPECT_THROW(qpi_pmon_register_table(ivb, 3), std::out_of_range);
    EXPECT_NO_THROW(qpi_pmon_register_table(ivb, 2));
}

// An MSR that the personality does not implement is not in its table
// (DECISIONS.md: 0xC00 on snb-ep is an access error).
TEST(TableSpec, SnbUboxHasNoGlobalOrStatusMsrs) {
    const register_table t = ubox_register_table(snb);
    for (uint32_t msr : {0xC00u, 0xC01u, 0xC06u, 0xC15u})
        EXPECT_EQ(t.find(msr), nullptr) << std::hex << msr;
    const register_table i = ubox_register_table(ivb);
    for (uint32_t msr : {0xC00u, 0xC01u, 0xC06u, 0xC15u})
        EXPECT_NE(i.find(msr), nullptr) << std::hex << msr;
}

// --- Nehalem-EP / Westmere-EP (SDM Vol. 3B 18.8.2, Figures 18-36..18-40) ---

std::vector<exp_reg> expected_nhm() {
    const std::vector<exp_field> evtsel = {
        rsv(63, 32), {"cmask", 31, 24, attr::rw}, {"inv", 23, 23, attr::rw}, {"en", 22, 22, attr::rw},
        rsv(21, 21), {"pmi", 20, 20, attr::rw}, rsv(19, 19), {"edge", 18, 18, attr::rw},
        {"occ_ctr_rst", 17, 17, attr::wo}, rsv(16, 16), {"umask", 15, 8, attr::rw}, {"event", 7, 0, attr::rw}};
    std::vector<exp_reg> r = {
        // EN_PMI_CORE has four bits also on six-core Westmere-EP (decisions.md N7).
        {"MSR_UNCORE_PERF_GLOBAL_CTRL", 0x391, 8, 0,
         {{"pmi_frz", 63, 63, attr::rw}, rsv(62, 52), {"en_pmi_core", 51, 48, attr::rw}, rsv(47, 33),
          {"en_fc0", 32, 32, attr::rw}, rsv(31, 8), {"en_pc", 7, 0, attr::rw}}},
        {"MSR_UNCORE_PERF_GLOBAL_STATUS", 0x392, 8, 0,
         {{"chg", 63, 63, attr::ro_v}, rsv(62, 62), {"ovf_pmi", 61, 61, attr::ro_v}, rsv(60, 33),
          {"ovf_fc0", 32, 32, attr::ro_v}, rsv(31, 8), {"ovf_pc", 7, 0, attr::ro_v}}},
        {"MSR_UNCORE_PERF_GLOBAL_OVF_CTRL", 0x393, 8, 0,
         {{"clr_chg", 63, 63, attr::wo}, rsv(62, 62), {"clr_ovf_pmi", 61, 61, attr::wo}, rsv(60, 33),
          {"clr_ovf_fc0", 32, 32, attr::wo}, rsv(31, 8), {"clr_ovf_pc", 7, 0, attr::wo}}},
        {"MSR_UNCORE_FIXED_CTR0", 0x394, 8, 0, counter(48)},
        {"MSR_UNCORE_FIXED_CTR_CTRL", 0x395, 8, 0,
         {rsv(63, 3), {"pmi", 2, 2, attr::rw}, rsv(1, 1), {"en", 0, 0, attr::rw}}},
        // ADDR: 39:3 as the text says (the figure draws 39:4), decisions.md N2.
        {"MSR_UNCORE_ADDR_OPCODE_MATCH", 0x396, 8, 0,
         {{"match_sel", 63, 61, attr::rw}, rsv(60, 48), {"opcode", 47, 40, attr::rw}, {"addr", 39, 3, attr::rw},
          rsv(2, 0)}},
    };
    for (unsigned i = 0; i < 8; ++i) r.push_back({"MSR_UNCORE_PMC" + std::to_string(i), 0x3B0 + i, 8, 0, counter(48)});
    for (unsigned i = 0; i < 8; ++i) r.push_back({"MSR_UNCORE_PERFEVTSEL" + std::to_string(i), 0x3C0 + i, 8, 0, evtsel});
    return r;
}

TEST(TableSpec, NehalemAndWestmereUncoreMsrsMatchTheSdm) {
    for (cpu_model cpu : {cpu_model::nhm_ep, cpu_model::wsm_ep})
        check_table(nhm_uncore_register_table(cpu), expected_nhm(), to_string(cpu), true);
}

// ===========================================================================
// (b) Every bit of every register is in exactly one field.

std::vector<std::pair<std::string, register_table>> all_tables() {
    std::vector<std::pair<std::string, register_table>> t;
    for (cpu_model cpu : {cpu_model::nhm_ep, cpu_model::wsm_ep})
        t.push_back({std::string(to_string(cpu)) + " uncore (msr)", nhm_uncore_register_table(cpu)});
    for (cpu_model cpu : {snb, ivb}) {
        const std::string c = cpu_name(cpu);
        t.push_back({c + " ubox", ubox_register_table(cpu)});
        t.push_back({c + " r2pcie", r2pcie_register_table(cpu)});
        for (unsigned port : ports(cpu)) {
            const std::string p = " port " + std::to_string(port);
            t.push_back({c + " qpi pmon" + p, qpi_pmon_register_table(cpu, port)});
            t.push_back({c + " qpi filter" + p, qpi_filter_register_table(cpu, port)});
            t.push_back({c + " qpi misc" + p, qpi_misc_register_table(cpu, port)});
        }
    }
    return t;
}

TEST(TableCoverage, FieldsCoverEveryBitExactlyOnce) {
    for (const auto& [what, table] : all_tables()) {
        for (const register_def& r : table.regs) {
            SCOPED_TRACE(what + " " + r.name);
            ASSERT_TRUE(r.size == 4 || r.size == 8);
            const unsigned bits = r.size * 8u;
            std::vector<int> hits(bits, 0);
            for (const field_def& f : r.fields) {
                ASSERT_LE(f.lo, f.hi) << f.name;
                ASSERT_LT(f.hi, bits) << f.name << " lies outside the register";
                for (unsigned b = f.lo; b <= f.hi; ++b) ++hits[b];
            }
            for (unsigned b = 0; b < bits; ++b) EXPECT_EQ(hits[b], 1) << "bit " << b;
        }
    }
}

// PCI functions only: there a register spans `size` bytes of config space.
// (MSRs are one address each; the MSR addresses are pinned in TableSpec.)
TEST(TableCoverage, OffsetsDoNotOverlapWithinAFunction) {
    for (const auto& [what, table] : all_tables()) {
        if (what.find("ubox") != std::string::npos || what.find("(msr)") != std::string::npos) continue;
        for (size_t i = 0; i < table.regs.size(); ++i)
            for (size_t j = i + 1; j < table.regs.size(); ++j) {
                const register_def& a = table.regs[i];
                const register_def& b = table.regs[j];
                EXPECT_TRUE(a.offset + a.size <= b.offset || b.offset + b.size <= a.offset)
                    << what << ": " << a.name << " overlaps " << b.name;
            }
    }
}

// ===========================================================================
// (c) The tables' semantics through box_core.

struct box_id {
    box_kind kind;
    cpu_model cpu;
    unsigned unit;
    unsigned width;  // counter width, literal from the notes
};

std::vector<box_id> all_boxes() {
    return {{box_kind::ubox, snb, 0, 44},       {box_kind::ubox, ivb, 0, 44},
            {box_kind::ubox_fixed, snb, 0, 48}, {box_kind::ubox_fixed, ivb, 0, 48},
            {box_kind::r2pcie, snb, 0, 44},     {box_kind::r2pcie, ivb, 0, 44},
            {box_kind::qpi, snb, 0, 48},        {box_kind::qpi, snb, 1, 48},
            {box_kind::qpi, ivb, 0, 48},        {box_kind::qpi, ivb, 1, 48},
            {box_kind::qpi, ivb, 2, 48}};
}

std::string describe(const box_id& b) {
    return std::string(cpu_name(b.cpu)) + " " + to_string(b.kind) + " " + std::to_string(b.unit);
}

// A box with its own diagnostic sink (the sink must outlive the box: it is
// declared first).
struct box_under_test {
    diagnostic_sink diags;
    box_core box;
    explicit box_under_test(const box_id& b)
        : box(make_box_spec(b.kind, b.cpu, b.unit), clock_domain(1000000000ull), &diags) {}
};

std::unique_ptr<box_under_test> make(const box_id& b) { return std::make_unique<box_under_test>(b); }

uint64_t full(const register_def& r) { return r.size == 8 ? ~0ull : 0xFFFFFFFFull; }

uint64_t rd(box_under_test& t, const register_def& r) { return t.box.read_reg(r, full(r), 0); }
void wr(box_under_test& t, const register_def& r, uint64_t v) { t.box.write_reg(r, v, full(r), 0); }

const register_def& reg(box_under_test& t, const std::string& name) {
    const register_def* r = t.box.spec().table.find(name);
    if (!r) throw std::runtime_error("no register " + name);
    return *r;
}

// Writing `v` must not log anything; returns the read-back.
uint64_t wr_rd_quiet(box_under_test& t, const register_def& r, uint64_t v) {
    const size_t before = t.diags.records().size();
    wr(t, r, v);
    EXPECT_EQ(t.diags.records().size(), before) << r.name << " <- 0x" << std::hex << v;
    return rd(t, r);
}

// The registers box_core owns, per box (the global MSRs and the misc
// function belong to the UBox/socket model, not to a box_core).
TEST(TableBox, BoxOwnsTheExpectedRegisters) {
    auto names = [](const box_id& b) {
        std::set<std::string> n;
        for (const auto& r : make_box_spec(b.kind, b.cpu, b.unit).table.regs) n.insert(r.name);
        return n;
    };
    EXPECT_EQ(names({box_kind::ubox, snb, 0, 44}),
              (std::set<std::string>{"U_MSR_PMON_CTL0", "U_MSR_PMON_CTL1", "U_MSR_PMON_CTR0",
                                     "U_MSR_PMON_CTR1"}));
    EXPECT_EQ(names({box_kind::ubox, ivb, 0, 44}),
              (std::set<std::string>{"U_MSR_PMON_CTL0", "U_MSR_PMON_CTL1", "U_MSR_PMON_CTR0",
                                     "U_MSR_PMON_CTR1", "U_MSR_PMON_BOX_STATUS"}));
    EXPECT_EQ(names({box_kind::ubox_fixed, ivb, 0, 48}),
              (std::set<std::string>{"U_MSR_PMON_UCLK_FIXED_CTL", "U_MSR_PMON_UCLK_FIXED_CTR"}));
    const auto q = names({box_kind::qpi, ivb, 1, 48});
    EXPECT_TRUE(q.count("Q_P1_PCI_PMON_PKT_MATCH0") && q.count("Q_P1_PCI_PMON_PKT_MASK1") &&
                q.count("Q_P1_PCI_PMON_CTR3") && q.count("Q_P1_PCI_PMON_BOX_CTL"));
    EXPECT_EQ(q.size(), 11u + 4u);  // PMON function + 4 filter registers
}

TEST(TableBox, ResetValuesReadBack) {
    for (const box_id& b : all_boxes()) {
        auto t = make(b);
        for (const register_def& r : t->box.spec().table.regs) {
            SCOPED_TRACE(describe(b) + " " + r.name);
            // Literal resets: everything 0 except the PCI ID dword (0x8086 + DID).
            const uint64_t want = r.role == reg_role::vendor_device ? r.reset : 0;
            EXPECT_EQ(rd(*t, r), want);
            if (r.role == reg_role::vendor_device) {
                EXPECT_EQ(rd(*t, r) & 0xFFFF, 0x8086u);
            }
        }
        EXPECT_TRUE(t->diags.records().empty());
    }
}

// At power-on every counter is disabled (DECISIONS.md "Freeze and overflow").
TEST(TableBox, PowerOnCountersAreDisabled) {
    for (const box_id& b : all_boxes()) {
        auto t = make(b);
        for (unsigned i = 0; i < t->box.spec().counters; ++i) {
            EXPECT_EQ(t->box.counter_ctl(i), 0u);
            EXPECT_FALSE(t->box.counter_counts(i)) << describe(b) << " counter " << i;
        }
        t->box.advance_to(1000);
        for (unsigned i = 0; i < t->box.spec().counters; ++i) EXPECT_EQ(t->box.counter_value(i), 0u);
    }
}

// Every RW / RW-V field (and the IVB-EP "write 1" bits) reads back what was
// written: all ones, an alternating pattern, and zero again. Counter fields are
// checked the same way (they are writable: DECISIONS.md "preload").
TEST(TableBox, ReadWriteFieldsReadBackWhatWasWritten) {
    for (const box_id& b : all_boxes()) {
        for (const register_def& r : make_box_spec(b.kind, b.cpu, b.unit).table.regs) {
            for (const field_def& f : r.fields) {
                if (f.a != attr::rw && f.a != attr::rw_v && f.a != attr::rv_w1) continue;
                SCOPED_TRACE(describe(b) + " " + r.name + "." + f.name);
                auto t = make(b);
                const register_def& rr = reg(*t, r.name);
                const uint64_t m = mask(f.hi, f.lo);
                wr(*t, rr, m);
                EXPECT_EQ(rd(*t, rr), m);
                wr(*t, rr, m & 0xAAAAAAAAAAAAAAAAull);
                EXPECT_EQ(rd(*t, rr), m & 0xAAAAAAAAAAAAAAAAull);
                wr(*t, rr, m & 0x5555555555555555ull);
                EXPECT_EQ(rd(*t, rr), m & 0x5555555555555555ull);
                wr(*t, rr, 0);
                EXPECT_EQ(rd(*t, rr), 0u);
            }
        }
    }
}

// Read-only ID dwords and the read-only rate register ignore writes.
TEST(TableBox, ReadOnlyIdIgnoresWrites) {
    for (const box_id& b : all_boxes()) {
        if (b.kind != box_kind::r2pcie && b.kind != box_kind::qpi) continue;
        auto t = make(b);
        const register_def& id = reg(*t, "VID_DID");
        const uint64_t before = rd(*t, id);
        wr(*t, id, 0x12345678);
        EXPECT_EQ(rd(*t, id), before) << describe(b);
    }
}

// Reserved bits read 0, ignore writes (the rest of the same write still
// lands) and log exactly one diagnostic naming the register.
TEST(TableBox, ReservedBitsReadZeroIgnoreWritesAndLogOnce) {
    for (const box_id& b : all_boxes()) {
        for (const register_def& r : make_box_spec(b.kind, b.cpu, b.unit).table.regs) {
            const uint64_t rv = r.mask_of(attr::rv);
            if (rv == 0) continue;
            SCOPED_TRACE(describe(b) + " " + r.name);
            auto t = make(b);
            const register_def& rr = reg(*t, r.name);
            // Alongside the reserved bits write every storing bit that has no
            // side effect of its own: not en (a live CTL can log its own
            // diagnostics), and the IVB-EP "write 1" bits as 1 (writing them
            // as 0 is a different diagnostic).
            uint64_t keep = rr.mask_of(attr::rw) | rr.mask_of(attr::rw_v) | rr.mask_of(attr::rv_w1);
            if (rr.role == reg_role::ctl || rr.role == reg_role::fixed_ctl) keep &= ~(1ull << 22);
            keep &= 0xA5A5A5A5A5A5A5A5ull | rr.mask_of(attr::rv_w1);
            const uint64_t v = rv | keep;
            wr(*t, rr, v);
            EXPECT_EQ(rd(*t, rr), keep) << "reserved bits must read 0, the rest must be stored";
            EXPECT_EQ(rd(*t, rr) & rv, 0u);
            ASSERT_EQ(t->diags.records().size(), 1u);
            const diagnostic& d = t->diags.records()[0];
            EXPECT_EQ(d.reg, r.name);
            EXPECT_EQ(d.box, t->box.spec().name);
            EXPECT_EQ(d.value, v);
            EXPECT_NE(d.reason.find("reserved"), std::string::npos) << d.reason;
            // Writing only defined bits is silent.
            EXPECT_EQ(wr_rd_quiet(*t, rr, keep), keep);
        }
    }
}

// IVB-EP BOX_CTL 17:16 "SW must write 1": read back as written, no effect,
// writing 0 there logs a diagnostic (DECISIONS.md "Counter control").
TEST(TableBox, IvbBoxCtlWriteOneBits) {
    for (const box_id& b : all_boxes()) {
        if (b.cpu != ivb || (b.kind != box_kind::r2pcie && b.kind != box_kind::qpi)) continue;
        SCOPED_TRACE(describe(b));
        auto t = make(b);
        const register_def& bc =
            reg(*t, b.kind == box_kind::r2pcie ? "R2_PCI_PMON_BOX_CTL"
                                               : "Q_P" + std::to_string(b.unit) + "_PCI_PMON_BOX_CTL");
        EXPECT_EQ(wr_rd_quiet(*t, bc, 0x30000), 0x30000u);
        EXPECT_FALSE(t->box.frozen()) << "bits 17:16 have no effect (bit 16 is not frz_en on IVB-EP)";

        for (uint64_t v : {0x0ull, 0x10000ull, 0x20000ull, 0x100ull}) {
            t->diags.clear();
            wr(*t, bc, v);
            EXPECT_EQ(rd(*t, bc), v) << "read back as written";
            ASSERT_EQ(t->diags.records().size(), 1u) << std::hex << v;
            EXPECT_EQ(t->diags.records()[0].reg, bc.name);
            EXPECT_EQ(t->box.frozen(), (v & 0x100) != 0) << "only frz (bit 8) freezes";
        }
        // A byte write to the low byte does not cover bits 17:16: no complaint,
        // and bits 17:16 keep what they hold.
        wr(*t, bc, 0x30000);
        t->diags.clear();
        t->box.write_reg(bc, 0x100, 0xFF00, 0);
        EXPECT_TRUE(t->diags.records().empty());
        EXPECT_EQ(rd(*t, bc), 0x30100u);
    }
}

// WO: CTL.rst reads 0, clears the paired counter, and the rest of the write
// is applied (DECISIONS.md "WO action bits").
TEST(TableBox, CtlRstReadsZeroClearsCounterAndAppliesRest) {
    for (const box_id& b : all_boxes()) {
        for (const register_def& r : make_box_spec(b.kind, b.cpu, b.unit).table.regs) {
            if (r.role != reg_role::ctl) continue;
            SCOPED_TRACE(describe(b) + " " + r.name);
            auto t = make(b);
            const register_def* ctr = nullptr;
            for (const auto& x : t->box.spec().table.regs)
                if (x.role == reg_role::ctr && x.index == r.index) ctr = &x;
            ASSERT_NE(ctr, nullptr);
            const register_def& ctl = reg(*t, r.name);
            wr(*t, *ctr, 0x123456789ull);
            // Another counter keeps its value: rst acts on the paired counter only.
            const unsigned other = r.index == 0 ? 1 : 0;
            const register_def* other_ctr = nullptr;
            for (const auto& x : t->box.spec().table.regs)
                if (x.role == reg_role::ctr && x.index == other) other_ctr = &x;
            wr(*t, *other_ctr, 777);

            const uint64_t rest = 0x00000A5A;  // umask 0x0A, ev_sel 0x5A, not enabled
            EXPECT_EQ(wr_rd_quiet(*t, ctl, (1u << 17) | rest), rest) << "rst reads 0";
            EXPECT_EQ(rd(*t, *ctr), 0u) << "rst cleared the paired counter";
            EXPECT_EQ(rd(*t, *other_ctr), 777u);
            // Without rst the counter is left alone.
            wr(*t, *ctr, 55);
            wr(*t, ctl, rest);
            EXPECT_EQ(rd(*t, *ctr), 55u);
        }
    }
}

// The fixed counter's control has no rst: bit 17 is reserved there.
TEST(TableBox, FixedCtlHasNoRst) {
    for (cpu_model cpu : {snb, ivb}) {
        auto t = make({box_kind::ubox_fixed, cpu, 0, 48});
        const register_def& ctl = reg(*t, "U_MSR_PMON_UCLK_FIXED_CTL");
        const register_def& ctr = reg(*t, "U_MSR_PMON_UCLK_FIXED_CTR");
        wr(*t, ctr, 99);
        wr(*t, ctl, 1u << 17);
        EXPECT_EQ(rd(*t, ctr), 99u);
        EXPECT_EQ(rd(*t, ctl), 0u);
        EXPECT_EQ(t->diags.records().size(), 1u);
    }
}

// WO: BOX_CTL.rst_ctrs clears the counters only; rst_ctrl clears the CTLs
// only, and BOX_CTL keeps the rest of the write (DECISIONS.md).
TEST(TableBox, BoxCtlResetBitsActOnceAndReadZero) {
    for (const box_id& b : all_boxes()) {
        if (b.kind != box_kind::r2pcie && b.kind != box_kind::qpi) continue;
        SCOPED_TRACE(describe(b));
        auto t = make(b);
        const std::string p = b.kind == box_kind::r2pcie ? "R2_PCI_PMON"
                                                         : "Q_P" + std::to_string(b.unit) + "_PCI_PMON";
        const register_def& bc = reg(*t, p + "_BOX_CTL");
        // Frozen (so nothing counts), with the personality's extra bits.
        const uint64_t frz = b.cpu == snb ? 0x10100 : 0x30100;
        wr(*t, bc, frz);
        auto preload = [&] {
            for (unsigned i = 0; i < 4; ++i) {
                wr(*t, reg(*t, p + "_CTR" + std::to_string(i)), 1000 + i);
                wr(*t, reg(*t, p + "_CTL" + std::to_string(i)), 0x00000300u + i);
            }
        };
        preload();
        t->diags.clear();
        EXPECT_EQ(wr_rd_quiet(*t, bc, frz | 0x2), frz) << "rst_ctrs reads 0, the rest is stored";
        for (unsigned i = 0; i < 4; ++i) {
            EXPECT_EQ(rd(*t, reg(*t, p + "_CTR" + std::to_string(i))), 0u);
            EXPECT_EQ(rd(*t, reg(*t, p + "_CTL" + std::to_string(i))), 0x300u + i) << "CTLs untouched";
        }
        preload();
        EXPECT_EQ(wr_rd_quiet(*t, bc, frz | 0x1), frz) << "rst_ctrl reads 0, BOX_CTL itself is kept";
        for (unsigned i = 0; i < 4; ++i) {
            EXPECT_EQ(rd(*t, reg(*t, p + "_CTL" + std::to_string(i))), 0u);
            EXPECT_EQ(rd(*t, reg(*t, p + "_CTR" + std::to_string(i))), 1000u + i) << "counters untouched";
        }
        preload();
        EXPECT_EQ(wr_rd_quiet(*t, bc, frz | 0x3), frz);
        for (unsigned i = 0; i < 4; ++i) {
            EXPECT_EQ(rd(*t, reg(*t, p + "_CTL" + std::to_string(i))), 0u);
            EXPECT_EQ(rd(*t, reg(*t, p + "_CTR" + std::to_string(i))), 0u);
        }
    }
}

// RW1C status bits: set by carries, cleared only by writing 1, bit by bit.
TEST(TableBox, StatusBitsClearOnlyOnOne) {
    struct status_case {
        box_id b;
        std::string status, ctl_prefix, ctr_prefix, event;
        uint32_t ev_sel;
        unsigned counters;
    };
    const std::vector<status_case> cases = {
        {{box_kind::ubox, ivb, 0, 44}, "U_MSR_PMON_BOX_STATUS", "U_MSR_PMON_CTL", "U_MSR_PMON_CTR",
         "LOCK_CYCLES", 0x44, 2},
        {{box_kind::r2pcie, snb, 0, 44}, "R2_PCI_PMON_BOX_STATUS", "R2_PCI_PMON_CTL", "R2_PCI_PMON_CTR",
         "CLOCKTICKS", 0x01, 4},
        {{box_kind::r2pcie, ivb, 0, 44}, "R2_PCI_PMON_BOX_STATUS", "R2_PCI_PMON_CTL", "R2_PCI_PMON_CTR",
         "CLOCKTICKS", 0x01, 4},
        {{box_kind::qpi, snb, 1, 48}, "Q_P1_PCI_PMON_BOX_STATUS", "Q_P1_PCI_PMON_CTL",
         "Q_P1_PCI_PMON_CTR", "CLOCKTICKS", 0x14, 4},
        {{box_kind::qpi, ivb, 0, 48}, "Q_P0_PCI_PMON_BOX_STATUS", "Q_P0_PCI_PMON_CTL",
         "Q_P0_PCI_PMON_CTR", "CLOCKTICKS", 0x14, 4},
        {{box_kind::qpi, ivb, 2, 48}, "Q_P2_PCI_PMON_BOX_STATUS", "Q_P2_PCI_PMON_CTL",
         "Q_P2_PCI_PMON_CTR", "CLOCKTICKS", 0x14, 4},
    };
    for (const status_case& c : cases) {
        SCOPED_TRACE(describe(c.b));
        auto t = make(c.b);
        const register_def& st = reg(*t, c.status);
        const uint32_t all = (1u << c.counters) - 1;
        // Every counter one below the carry, enabled (with ov_en on IVB-EP).
        const uint32_t ctl = (1u << 22) | c.ev_sel | (c.b.cpu == ivb ? (1u << 20) : 0);
        for (unsigned i = 0; i < c.counters; ++i) {
            wr(*t, reg(*t, c.ctr_prefix + std::to_string(i)), (1ull << c.b.width) - 1);
            wr(*t, reg(*t, c.ctl_prefix + std::to_string(i)), ctl);
        }
        // CLOCKTICKS is the box's own clock (one per cycle, no input needed);
        // the UBox event has to be driven.
        if (c.event != "CLOCKTICKS")
            t->box.post_run(0, 1, *t->box.spec().catalog->find_input(c.event, ""), 1);
        t->box.advance_to(1);
        ASSERT_EQ(rd(*t, st), all);
        // Writing 1 to a set bit is the only way to clear it.
        EXPECT_EQ(wr_rd_quiet(*t, st, 0), all) << "writing 0 clears nothing";
        EXPECT_EQ(wr_rd_quiet(*t, st, 0x1), all & ~0x1u);
        EXPECT_EQ(wr_rd_quiet(*t, st, 0x1), all & ~0x1u) << "clearing a clear bit is harmless";
        EXPECT_EQ(wr_rd_quiet(*t, st, all & 0xA), all & ~0x1u & ~0xAu);
        EXPECT_EQ(wr_rd_quiet(*t, st, all), 0u);
        // Software cannot set a status bit.
        EXPECT_EQ(t->box.box_status(), 0u);
    }
}

// Bits above the counter width read 0 and ignore writes: 44 bits for the UBox
// general counters and R2PCIe, 48 for the UBox fixed counter and QPI.
TEST(TableBox, CounterBitsAboveWidthReadZero) {
    for (const box_id& b : all_boxes()) {
        for (const register_def& r : make_box_spec(b.kind, b.cpu, b.unit).table.regs) {
            if (r.role != reg_role::ctr && r.role != reg_role::fixed_ctr) continue;
            SCOPED_TRACE(describe(b) + " " + r.name);
            auto t = make(b);
            const register_def& c = reg(*t, r.name);
            wr(*t, c, ~0ull);
            EXPECT_EQ(rd(*t, c), (1ull << b.width) - 1);
            EXPECT_EQ(t->diags.records().size(), 1u) << "setting bits above the width is a diagnostic";
            EXPECT_EQ(t->box.counter_value(c.index), (1ull << b.width) - 1);
        }
    }
}

// A PCI counter is two dwords; a dword write changes only its own half
// (DECISIONS.md "Widths"). access_mask selects the half in register bit
// coordinates: 0xFFFFFFFF = low dword (offset +0), 0xFFFFFFFF00000000 =
// high dword (+4, value already shifted into bits 63:32).
TEST(TableBox, DwordWriteToPciCounterChangesOnlyItsHalf) {
    for (const box_id& b : all_boxes()) {
        if (b.kind != box_kind::r2pcie && b.kind != box_kind::qpi) continue;
        const std::string p = b.kind == box_kind::r2pcie ? "R2_PCI_PMON"
                                                         : "Q_P" + std::to_string(b.unit) + "_PCI_PMON";
        for (unsigned i = 0; i < 4; ++i) {
            SCOPED_TRACE(describe(b) + " CTR" + std::to_string(i));
            auto t = make(b);
            const register_def& c = reg(*t, p + "_CTR" + std::to_string(i));
            wr(*t, c, 0x00000ABC12345678ull);
            t->box.write_reg(c, 0xDEADBEEF, 0xFFFFFFFFull, 0);
            EXPECT_EQ(rd(*t, c), 0x00000ABCDEADBEEFull) << "low dword replaced, high kept";
            t->box.write_reg(c, 0x00000123ull << 32, 0xFFFFFFFF00000000ull, 0);
            EXPECT_EQ(rd(*t, c), 0x00000123DEADBEEFull) << "high dword replaced, low kept";
            // Low-dword write with garbage in the high half of `value`: ignored.
            t->box.write_reg(c, 0xFFFFFFFF00000001ull, 0xFFFFFFFFull, 0);
            EXPECT_EQ(rd(*t, c), 0x0000012300000001ull);
            EXPECT_TRUE(t->diags.records().empty());
            // High-dword write reaching above the width: the excess is dropped
            // and is a reserved-bit diagnostic.
            t->box.write_reg(c, 0xFFFFFFFFull << 32, 0xFFFFFFFF00000000ull, 0);
            const uint64_t hi_valid = ((1ull << b.width) - 1) & 0xFFFFFFFF00000000ull;
            EXPECT_EQ(rd(*t, c), hi_valid | 1u);
            EXPECT_EQ(t->diags.records().size(), 1u);
            // Each read half, as a driver would assemble it.
            EXPECT_EQ(t->box.read_reg(c, 0xFFFFFFFFull, 0) & 0xFFFFFFFFull, 1u);
            EXPECT_EQ(t->box.read_reg(c, 0xFFFFFFFF00000000ull, 0) >> 32, hi_valid >> 32);
        }
    }
}

// The QPI packet filter registers are stored per half and reach the matcher
// as {MATCH1, MATCH0} / {MASK1, MASK0} (qpi-ll.md §2.1).
TEST(TableBox, QpiFilterHalvesFormOneSixtyFourBitFilter) {
    for (cpu_model cpu : {snb, ivb}) {
        auto t = make({box_kind::qpi, cpu, 1, 48});
        wr(*t, reg(*t, "Q_P1_PCI_PMON_PKT_MATCH0"), 0x80001C00);
        wr(*t, reg(*t, "Q_P1_PCI_PMON_PKT_MATCH1"), 0x00080003);
        wr(*t, reg(*t, "Q_P1_PCI_PMON_PKT_MASK0"), 0x0003FFF8);
        wr(*t, reg(*t, "Q_P1_PCI_PMON_PKT_MASK1"), 0x000F0000);
        EXPECT_EQ(t->box.filter_match(), 0x0008000380001C00ull);
        EXPECT_EQ(t->box.filter_mask(), 0x000F00000003FFF8ull);
        EXPECT_EQ(rd(*t, reg(*t, "Q_P1_PCI_PMON_PKT_MATCH0")), 0x80001C00u);
        EXPECT_EQ(rd(*t, reg(*t, "Q_P1_PCI_PMON_PKT_MATCH1")), 0x00080003u);
        EXPECT_EQ(rd(*t, reg(*t, "Q_P1_PCI_PMON_PKT_MASK0")), 0x0003FFF8u);
        EXPECT_EQ(rd(*t, reg(*t, "Q_P1_PCI_PMON_PKT_MASK1")), 0x000F0000u);
        EXPECT_TRUE(t->diags.records().empty());
    }
}

// Memory-controller channels (decisions.md B1-B3): device, function and ID of
// every channel, spelled out; the registers at their offsets; the SNB-EP
// channel without reset bits; BOX_STATUS bit 0 for the fixed counter.
TEST(TableSpec, ImcChannelFunctionsMatchTheManuals) {
    struct where { unsigned dev, fn; uint16_t did; };
    const where snb_ch[] = {{16, 0, 0x3CB0}, {16, 1, 0x3CB1}, {16, 4, 0x3CB4}, {16, 5, 0x3CB5}};
    const where ivb_ch[] = {{16, 4, 0x0EB4}, {16, 5, 0x0EB5}, {16, 0, 0x0EB0}, {16, 1, 0x0EB1},
                            {30, 4, 0x0EF4}, {30, 5, 0x0EF5}, {30, 0, 0x0EF0}, {30, 1, 0x0EF1}};
    auto check = [](cpu_model cpu, const where* w, unsigned n) {
        const box_desc& m = describe(cpu).need(box_kind::imc);
        ASSERT_EQ(m.units, n);
        for (unsigned u = 0; u < n; ++u) {
            EXPECT_EQ(m.pci[u].device, w[u].dev) << u;
            EXPECT_EQ(m.pci[u].fn, w[u].fn) << u;
            const register_table t = imc_register_table(cpu, u);
            EXPECT_EQ(t.find("VID_DID")->reset, (uint64_t{w[u].did} << 16) | 0x8086u) << u;
            const std::string p = "MC" + std::to_string(u / 4) + "_CH" + std::to_string(u % 4) + "_PCI_PMON_";
            EXPECT_EQ(t.find(p + "BOX_CTL")->offset, 0xF4u);
            EXPECT_EQ(t.find(p + "BOX_STATUS")->offset, 0xF8u);
            EXPECT_EQ(t.find(p + "FIXED_CTL")->offset, 0xF0u);
            EXPECT_EQ(t.find(p + "FIXED_CTR")->offset, 0xD0u);
            for (unsigned i = 0; i < 4; ++i) {
                EXPECT_EQ(t.find(p + "CTL" + std::to_string(i))->offset, 0xD8u + 4 * i);
                EXPECT_EQ(t.find(p + "CTR" + std::to_string(i))->offset, 0xA0u + 8 * i);
            }
            EXPECT_EQ(t.find(0xD4)->name, p + "FIXED_CTR") << "0xD4 is the DCLK counter's high dword";
        }
    };
    check(snb, snb_ch, 4);
    check(ivb, ivb_ch, 8);

    const register_table s = imc_register_table(snb, 0), i = imc_register_table(ivb, 0);
    const register_def& sbox = *s.find("MC0_CH0_PCI_PMON_BOX_CTL");
    EXPECT_EQ(sbox.mask_of(attr::wo), 0u) << "SNB-EP: no rst_ctrs/rst_ctrl";
    EXPECT_EQ(sbox.mask_of(attr::rw), 0x10100u) << "frz_en, frz";
    EXPECT_EQ(i.find("MC0_CH0_PCI_PMON_BOX_CTL")->mask_of(attr::wo), 0x3u);
    EXPECT_EQ(s.find("MC0_CH0_PCI_PMON_CTL0")->mask_of(attr::wo), 0u) << "SNB-EP: bit 17 reserved";
    EXPECT_EQ(i.find("MC0_CH0_PCI_PMON_CTL0")->mask_of(attr::wo), 1u << 17);
    EXPECT_EQ(s.find("MC0_CH0_PCI_PMON_CTL0")->mask_of(attr::rw_v), 0xFFC4FFFFu) << "thresh, invert, en, edge, umask, ev_sel";
    EXPECT_EQ(i.find("MC0_CH0_PCI_PMON_CTL0")->mask_of(attr::rw_v), 0xFF54FFFFu) << "thresh, en, ov_en, edge, umask, ev_sel";
    EXPECT_EQ(s.find("MC0_CH0_PCI_PMON_FIXED_CTL")->mask_of(attr::rw_v), 1u << 22);
    EXPECT_EQ(i.find("MC0_CH0_PCI_PMON_FIXED_CTL")->mask_of(attr::rw_v), (1u << 22) | (1u << 20));
    for (const register_table* t : {&s, &i}) {
        EXPECT_EQ(t->find("MC0_CH0_PCI_PMON_FIXED_CTL")->mask_of(attr::wo), 1u << 19);
        EXPECT_EQ(t->find("MC0_CH0_PCI_PMON_BOX_STATUS")->mask_of(attr::rw1c), 0x1Fu) << "fixed at bit 0, CTRi at i+1";
    }
}

// Home agents and R3QPI links (decisions.md B5-B7): place and ID of every
// unit, the HA's match registers, three R3QPI counters of 44 bits.
TEST(TableSpec, HomeAgentAndR3qpiFunctionsMatchTheManuals) {
    struct where { box_kind kind; cpu_model cpu; unsigned unit, dev, fn; uint16_t did; };
    const where all[] = {{box_kind::ha, snb, 0, 14, 1, 0x3C46},    {box_kind::ha, ivb, 0, 14, 1, 0x0E30},
                         {box_kind::ha, ivb, 1, 28, 1, 0x0E38},    {box_kind::r3qpi, snb, 0, 19, 5, 0x3C44},
                         {box_kind::r3qpi, snb, 1, 19, 6, 0x3C45}, {box_kind::r3qpi, ivb, 0, 19, 5, 0x0E36},
                         {box_kind::r3qpi, ivb, 1, 19, 6, 0x0E37}, {box_kind::r3qpi, ivb, 2, 18, 5, 0x0E3E}};
    for (const where& w : all) {
        const box_desc& d = describe(w.cpu).need(w.kind);
        EXPECT_EQ(d.pci.at(w.unit).device, w.dev);
        EXPECT_EQ(d.pci.at(w.unit).fn, w.fn);
        const register_table t = w.kind == box_kind::ha ? ha_register_table(w.cpu, w.unit)
                                                       : r3qpi_register_table(w.cpu, w.unit);
        EXPECT_EQ(t.find("VID_DID")->reset, (uint64_t{w.did} << 16) | 0x8086u) << t.title;
    }
    EXPECT_EQ(describe(snb).units(box_kind::ha), 1u);
    EXPECT_EQ(describe(ivb).units(box_kind::r3qpi), 3u);

    const register_table h = ha_register_table(ivb, 1);
    EXPECT_EQ(h.find("HA1_PCI_PMON_BOX_ADDRMATCH0")->offset, 0x40u);
    EXPECT_EQ(h.find("HA1_PCI_PMON_BOX_ADDRMATCH0")->mask_of(attr::rw), 0xFFFFFFC0u);
    EXPECT_EQ(h.find("HA1_PCI_PMON_BOX_ADDRMATCH1")->mask_of(attr::rw), 0x3FFFu) << "address bits 45:32";
    EXPECT_EQ(h.find("HA1_PCI_PMON_BOX_OPCODEMATCH")->mask_of(attr::rw), 0x3Fu);
    EXPECT_EQ(h.find("HA1_PCI_PMON_BOX_STATUS")->mask_of(attr::rw1c), 0xFu);
    EXPECT_EQ(ha_register_table(snb, 0).find("HA0_PCI_PMON_BOX_CTL")->mask_of(attr::wo), 0u) << "no resets (B5)";

    const register_table r = r3qpi_register_table(snb, 1);
    EXPECT_EQ(r.find("R3_L1_PCI_PMON_CTL2")->offset, 0xE0u);
    EXPECT_EQ(r.find("R3_L1_PCI_PMON_CTR2")->offset, 0xB0u);
    EXPECT_EQ(r.find(0xE4), nullptr) << "three counters";
    EXPECT_EQ(r.find("R3_L1_PCI_PMON_CTR0")->fields.at(1).hi, 43u) << "44 bits";
    EXPECT_EQ(r.find("R3_L1_PCI_PMON_BOX_CTL")->mask_of(attr::wo), 0x3u);
}

// Caching agents (decisions.md B8): MSRs of box n from 0xD04 + 0x20n, the
// SNB-EP filter and the IVB-EP filter pair, 44-bit counters, no BOX_STATUS.
TEST(TableSpec, CachingAgentMsrsMatchTheManuals) {
    const register_table s7 = cbo_register_table(snb, 7), i14 = cbo_register_table(ivb, 14);
    EXPECT_TRUE(s7.msr_space);
    EXPECT_EQ(s7.find("C7_MSR_PMON_BOX_CTL")->offset, 0xDE4u);
    EXPECT_EQ(s7.find("C7_MSR_PMON_CTL0")->offset, 0xDF0u);
    EXPECT_EQ(s7.find("C7_MSR_PMON_BOX_FILTER")->offset, 0xDF4u);
    EXPECT_EQ(s7.find("C7_MSR_PMON_CTR3")->offset, 0xDF9u);
    EXPECT_EQ(s7.find("C7_MSR_PMON_BOX_FILTER")->mask_of(attr::rw), 0xFFFFFC1Fu) << "opc, state, nid, tid";
    EXPECT_EQ(s7.find("C7_MSR_PMON_CTL0")->mask_of(attr::rw_v), 0xFFCCFFFFu) << "thresh, invert, en, tid_en, edge";
    EXPECT_EQ(s7.find("C7_MSR_PMON_BOX_CTL")->mask_of(attr::rw), 0x10100u);
    EXPECT_EQ(i14.find("C14_MSR_PMON_BOX_CTL")->offset, 0xEC4u);
    EXPECT_EQ(i14.find("C14_MSR_PMON_CTL3")->offset, 0xED3u);
    EXPECT_EQ(i14.find("C14_MSR_PMON_BOX_FILTER0")->offset, 0xED4u);
    EXPECT_EQ(i14.find("C14_MSR_PMON_BOX_FILTER1")->offset, 0xEDAu);
    EXPECT_EQ(i14.find("C14_MSR_PMON_CTR0")->offset, 0xED6u);
    EXPECT_EQ(i14.find("C14_MSR_PMON_BOX_FILTER0")->mask_of(attr::rw), 0x7E01FFu) << "state 22:17, link 8:5, tid";
    EXPECT_EQ(i14.find("C14_MSR_PMON_BOX_FILTER1")->mask_of(attr::rw), 0xFFF0FFFFu) << "isoc, nc, c6, opc, nid";
    EXPECT_EQ(i14.find("C14_MSR_PMON_CTL0")->mask_of(attr::rw_v), 0xFF5CFFFFu) << "no invert; ov_en";
    for (const register_table* t : {&s7, &i14}) {
        EXPECT_EQ(t->find(t == &s7 ? 0xDF5u : 0xED5u), nullptr) << "no BOX_STATUS";
        EXPECT_EQ(t->find(t == &s7 ? "C7_MSR_PMON_CTR0" : "C14_MSR_PMON_CTR0")->fields.at(1).hi, 43u) << "44 bits";
    }
    EXPECT_EQ(make_box_spec(box_kind::cbo, ivb, 14).global_bit, 17);
    EXPECT_EQ(make_box_spec(box_kind::cbo, snb, 7).global_bit, -1);
}

// The PCU: 327043-001 Table 2-73..2-79, 329468-002 Table 2-118..2-125
// (BOX_STATUS 0xC35 is likwid's address; decisions.md B10-B12).
TEST(TableSpec, PcuMsrsMatchTheManuals) {
    const register_table s = pcu_register_table(snb), i = pcu_register_table(ivb);
    for (const register_table* t : {&s, &i}) {
        EXPECT_TRUE(t->msr_space);
        EXPECT_EQ(t->find("PCU_MSR_PMON_BOX_CTL")->offset, 0xC24u);
        EXPECT_EQ(t->find("PCU_MSR_PMON_CTL0")->offset, 0xC30u);
        EXPECT_EQ(t->find("PCU_MSR_PMON_CTL3")->offset, 0xC33u);
        EXPECT_EQ(t->find("PCU_MSR_PMON_BOX_FILTER")->offset, 0xC34u);
        EXPECT_EQ(t->find("PCU_MSR_PMON_BOX_FILTER")->mask_of(attr::rw_v), 0xFFFFFFFFu) << "four band bytes";
        EXPECT_EQ(t->find("PCU_MSR_PMON_CTR0")->offset, 0xC36u);
        EXPECT_EQ(t->find("PCU_MSR_PMON_CTR3")->offset, 0xC39u);
        EXPECT_EQ(t->find("PCU_MSR_PMON_CTR3")->fields.at(1).hi, 47u) << "48 bits";
        EXPECT_EQ(t->find("PCU_MSR_CORE_C3_CTR")->offset, 0x3FCu);
        EXPECT_EQ(t->find("PCU_MSR_CORE_C6_CTR")->offset, 0x3FDu);
        EXPECT_EQ(t->find("PCU_MSR_CORE_C6_CTR")->mask_of(attr::rw_v), ~0ull) << "64 bits";
    }
    EXPECT_EQ(s.find("PCU_MSR_PMON_CTL0")->mask_of(attr::rw_v), 0xDFE4C0FFu)
        << "occ_edge, occ_invert, thresh 28:24, invert, en, ext, edge, occ_sel, ev_sel";
    EXPECT_EQ(i.find("PCU_MSR_PMON_CTL0")->mask_of(attr::rw_v), 0xDF74C0FFu) << "no invert; ov_en";
    EXPECT_EQ(s.find(0xC35u), nullptr) << "no BOX_STATUS on SNB-EP";
    EXPECT_EQ(i.find(0xC35u)->mask_of(attr::rw1c), 0xFu);
    EXPECT_EQ(s.find("PCU_MSR_PMON_BOX_CTL")->mask_of(attr::rw), 0x10100u) << "frz_en, frz";
    EXPECT_EQ(make_box_spec(box_kind::pcu, ivb).global_bit, 2) << "ov_p";
    EXPECT_EQ(make_box_spec(box_kind::pcu, ivb).counters, 6u) << "four PMON counters and the two residency counters";
}

// The IRP: Linux's ivbep_uncore_irp and likwid (decisions.md B13).
TEST(TableSpec, IrpFunctionMatchesLinuxAndLikwid) {
    const register_table t = irp_register_table(ivb);
    EXPECT_EQ(t.find(0u)->reset, 0x0E398086u);
    EXPECT_EQ(t.find("IRP_PCI_PMON_BOX_CTL")->offset, 0xF4u);
    EXPECT_EQ(t.find("IRP_PCI_PMON_BOX_STATUS")->offset, 0xF8u);
    EXPECT_EQ(t.find("IRP_PCI_PMON_BOX_STATUS")->mask_of(attr::rw1c), 0xFu);
    const uint32_t ctls[] = {0xD8, 0xDC, 0xE0, 0xE4}, ctrs[] = {0xA0, 0xB0, 0xB8, 0xC0};
    for (unsigned i = 0; i < 4; ++i) {
        EXPECT_EQ(t.find("IRP_PCI_PMON_CTL" + std::to_string(i))->offset, ctls[i]);
        EXPECT_EQ(t.find("IRP_PCI_PMON_CTR" + std::to_string(i))->offset, ctrs[i]);
        EXPECT_EQ(t.find("IRP_PCI_PMON_CTR" + std::to_string(i))->fields.at(1).hi, 47u) << "48 bits";
    }
    EXPECT_EQ(t.find("IRP_PCI_PMON_CTL0")->mask_of(attr::rw_v), 0xFF54FFFFu) << "no invert; ov_en";
    const pci_unit& u = describe(ivb).need(box_kind::irp).pci.at(0);
    EXPECT_EQ(u.device, 5u);
    EXPECT_EQ(u.fn, 6u);
    EXPECT_EQ(describe(snb).box(box_kind::irp), nullptr);
}

}  // namespace
}  // namespace pmonsim
