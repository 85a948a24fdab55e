// Oracle test: the project's event catalogs against Intel's perfmon event files
// (tests/data/perfmon, with their licence: Jaketown_uncore.json = SNB-EP, ivytown_uncore.json =
// IVB-EP; units "UBOX", "R2PCIe", "QPI LL", "iMC", "HA", "R3QPI", "CBO", "PCU", "IRP"). DECISIONS.md makes these files the
// authority for event code, ExtSel, UMask and Counter.
//
// Every JSON entry of the three units must match our catalog, except the
// entries in the "differs on purpose" table, which must match the documented
// difference instead. The reverse direction is checked too: nothing in our
// catalogs may be invented, apart from the combination aliases listed below.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "catalog/catalog.h"

namespace pmonsim {
namespace {

using nlohmann::json;

// ---------------------------------------------------------------------------
// JSON side

struct json_event {
    std::string full_name;  // UNC_Q_RxL_FLITS_G1.DRS_DATA
    box_kind box;
    std::string base;  // RxL_FLITS_G1 (no UNC_x_ prefix, no sub-event)
    std::string sub;   // DRS_DATA, or empty
    uint8_t code;
    bool ext;
    uint8_t umask;
    uint8_t counters;  // bitmask
    uint8_t filters;   // request_field bits of the caching/home agent filter fields in "Filter"
};

std::string json_path(cpu_model cpu) {
    return std::string(PMONSIM_SOURCE_DIR) + "/tests/data/perfmon/" +
           (cpu == cpu_model::snb_ep ? "Jaketown_uncore.json" : "ivytown_uncore.json");
}

std::optional<box_kind> box_of_unit(const std::string& unit) {
    if (unit == "UBOX") return box_kind::ubox;
    if (unit == "R2PCIe") return box_kind::r2pcie;
    if (unit == "QPI LL") return box_kind::qpi;
    if (unit == "iMC") return box_kind::imc;
    if (unit == "HA") return box_kind::ha;
    if (unit == "R3QPI") return box_kind::r3qpi;
    if (unit == "CBO") return box_kind::cbo;
    if (unit == "PCU") return box_kind::pcu;
    if (unit == "IRP") return box_kind::irp;
    return std::nullopt;
}

std::string prefix_of(box_kind box) { return event_prefix(box); }

// "0,1,2,3" -> 0x0F
uint8_t counter_mask(const std::string& list) {
    uint8_t mask = 0;
    for (char c : list)
        if (c >= '0' && c <= '7') mask |= static_cast<uint8_t>(1u << (c - '0'));
    return mask;
}

uint8_t hex_byte(const std::string& s) { return static_cast<uint8_t>(std::stoul(s, nullptr, 16)); }

// The "Filter" column's caching-agent and home-agent fields as request_field
// bits (decisions.md B14); the other units' filters (PCU bands, QPI match,
// UBox, IRP) are not request attributes.
uint8_t request_filters(const json& e) {
    if (!e.contains("Filter") || !e.at("Filter").is_string()) return 0;
    const std::string f = e.at("Filter").get<std::string>();
    const std::pair<const char*, uint8_t> fields[] = {
        {"CBoFilter[22:18]", request_field::state},  {"CBoFilter0[23:17]", request_field::state},
        {"CBoFilter[17:10]", request_field::nid},    {"CBoFilter1[15:0]", request_field::nid},
        {"CBoFilter[31:23]", request_field::opc},    {"CBoFilter1[28:20]", request_field::opc},
        {"HA_AddrMatch0[31:6]", request_field::addr}, {"HA_AddrMatch1[13:0]", request_field::addr},
        {"HA_OpcodeMatch[5:0]", request_field::opc}};
    uint8_t bits = 0;
    for (const auto& [name, bit] : fields)
        if (f.find(name) != std::string::npos) bits |= bit;
    // A deliberate difference: IVB-EP's LLC_LOOKUP.NID lists the state field
    // alone, but its umask's NID bit is a node match as on SNB-EP, whose
    // entry lists both, and Linux's IVB-EP driver gives it both (B14).
    if (e.at("EventName").get<std::string>() == "UNC_C_LLC_LOOKUP.NID") bits |= request_field::nid;
    return bits;
}

json_event parse_entry(const json& e, box_kind box) {
    json_event j;
    j.full_name = e.at("EventName").get<std::string>();
    j.box = box;
    std::string name = j.full_name.substr(prefix_of(box).size());
    auto dot = name.find('.');  // MESSAGE.DRS.AnyDataC: everything after the first dot
    j.base = name.substr(0, dot);
    j.sub = dot == std::string::npos ? "" : name.substr(dot + 1);
    j.code = hex_byte(e.at("EventCode").get<std::string>());
    j.ext = e.at("ExtSel").get<std::string>() == "1";
    j.umask = hex_byte(e.at("UMask").get<std::string>());
    j.counters = counter_mask(e.at("Counter").get<std::string>());
    j.filters = request_filters(e);
    return j;
}

std::vector<json_event> load_entries(const std::string& path) {
    std::ifstream in(path);
    json doc = json::parse(in);
    const json& events = doc.is_array() ? doc : doc.at("Events");
    std::vector<json_event> out;
    for (const auto& e : events) {
        auto box = box_of_unit(e.value("Unit", ""));
        if (box) out.push_back(parse_entry(e, *box));
    }
    return out;
}

// ---------------------------------------------------------------------------
// The "differs on purpose" table

enum class difference { no_clockticks, ubox_ext_dropped, cto_with_preset, cto_user_filter, irp_all_counters };

struct deliberate_difference {
    std::optional<cpu_model> cpu;  // nullopt: both personalities
    box_kind box;
    std::string base;  // JSON event name without prefix and sub-event ("*": every event of the box)
    difference kind;
    const char* reason;
};

const std::vector<deliberate_difference>& differs_on_purpose() {
    static const std::vector<deliberate_difference> table = {
        {std::nullopt, box_kind::ubox, "CLOCKTICKS", difference::no_clockticks,
         "DECISIONS.md: ev_sel 0 on a UBox general counter counts nothing (the manual's "
         "'enabled, no event' idiom); UCLK cycles come from the fixed counter (note A11)"},
        {cpu_model::snb_ep, box_kind::ubox, "PHOLD_CYCLES", difference::ubox_ext_dropped,
         "the UBox CTL has no ext bit (bit 21 reserved, note A10); IVB-EP lists the code with "
         "ExtSel 0"},
        {cpu_model::snb_ep, box_kind::ubox, "RACU_REQUESTS", difference::ubox_ext_dropped,
         "the UBox CTL has no ext bit (bit 21 reserved, note A10)"},
        {cpu_model::snb_ep, box_kind::ubox, "MSG_CHNL_SIZE_COUNT", difference::ubox_ext_dropped,
         "the UBox CTL has no ext bit (bit 21 reserved, note A10)"},
        {cpu_model::ivb_ep, box_kind::qpi, "MESSAGE", difference::cto_with_preset,
         "UNC_Q_MESSAGE.<name> is CTO_COUNT (0x38, ext) with the packet filter programmed; "
         "we model it as CTO_COUNT plus the filter preset <name>"},
        {cpu_model::ivb_ep, box_kind::qpi, "MATCH_MASK", difference::cto_user_filter,
         "UNC_Q_MATCH_MASK is CTO_COUNT with a match/mask the user chooses; no preset"},
        {cpu_model::ivb_ep, box_kind::irp, "*", difference::irp_all_counters,
         "decisions.md B13: the JSON's counters 0,1 are one IRP unit's pair; the box's four counters "
         "are both units' pairs, and every event counts on each (as Linux schedules them)"},
    };
    return table;
}

const deliberate_difference* find_difference(cpu_model cpu, const json_event& j) {
    for (const auto& d : differs_on_purpose())
        if ((!d.cpu || *d.cpu == cpu) && d.box == j.box && (d.base == j.base || d.base == "*")) return &d;
    return nullptr;
}

// Combination umasks of ours that are not JSON entries. Each must be an OR of
// bits the JSON defines for that event (no new sub-event bits).
struct alias_row {
    cpu_model cpu;
    box_kind box;
    std::vector<std::string> events;
    std::vector<std::string> umasks;
    const char* reason;
};

const std::vector<alias_row>& combination_aliases() {
    static const std::vector<alias_row> table = {
        {cpu_model::snb_ep, box_kind::r2pcie, {"RING_AD_USED", "RING_AK_USED", "RING_BL_USED"},
         {"CW", "CCW", "ANY"}, "per-direction and all-direction sums of the even/odd bits"},
        {cpu_model::ivb_ep, box_kind::r2pcie, {"RING_AD_USED", "RING_AK_USED", "RING_BL_USED"},
         {"ANY"}, "all eight ring bits, as the JSON names it for RING_IV_USED"},
    };
    return table;
}

bool is_alias(cpu_model cpu, box_kind box, const std::string& event, const std::string& umask) {
    for (const auto& a : combination_aliases()) {
        if (a.cpu != cpu || a.box != box) continue;
        bool ev = std::find(a.events.begin(), a.events.end(), event) != a.events.end();
        bool um = std::find(a.umasks.begin(), a.umasks.end(), umask) != a.umasks.end();
        if (ev && um) return true;
    }
    return false;
}

// Presets that have no UNC_Q_MESSAGE entry: rows of the manual's table only.
const std::set<std::string>& manual_only_presets() {
    static const std::set<std::string> names = {"NCB.AnyResp"};  // 329468-002 Table 2-137
    return names;
}

// Number of JSON entries per unit, so the comparison cannot pass vacuously
// (and a new JSON version is noticed).
struct expected_counts {
    unsigned ubox, r2pcie, qpi, imc, ha, r3qpi, cbo, pcu, irp, deliberate, absent;
};

expected_counts expected_for(cpu_model cpu) {
    // SNB-EP deliberate: CLOCKTICKS 1 + PHOLD_CYCLES 2 + RACU_REQUESTS 1 + MSG_CHNL_SIZE_COUNT 2.
    // IVB-EP deliberate: CLOCKTICKS 1 + MESSAGE.* 32 + MATCH_MASK 1 + the IRP's 38.
    // Absent: SNB-EP's catalog lists 37 IRP entries, but SNB-EP has no IRP PMON
    // function that Linux or likwid program (decisions.md B13).
    return cpu == cpu_model::snb_ep ? expected_counts{24, 36, 84, 51, 109, 63, 97, 39, 0, 6, 37}
                                    : expected_counts{21, 61, 200, 198, 198, 127, 157, 74, 38, 72, 0};
}

// ---------------------------------------------------------------------------
// Checks

const umask_def* find_umask(const event_def& ev, const std::string& name) {
    for (const auto& u : ev.umasks)
        if (u.name == name) return &u;
    return nullptr;
}

void expect_umask_matches(const event_catalog& cat, const event_def& ev, const json_event& j,
                          bool ext) {
    if (j.umask != 0) {
        const umask_def* u = find_umask(ev, j.sub);
        ASSERT_NE(u, nullptr) << j.full_name << ": no umask named " << j.sub;
        EXPECT_EQ(int(u->value), int(j.umask)) << j.full_name;
        EXPECT_EQ(int(u->filters), int(j.filters)) << j.full_name << ": the filter fields it compares";
    } else {
        EXPECT_TRUE(j.sub.empty()) << j.full_name << ": named sub-event with umask 0";
        EXPECT_TRUE(ev.umasks.empty() || ev.umask0_all)
            << j.full_name << " lists umask 0 beside sub-events";
    }
    EXPECT_EQ(cat.select(j.code, ext, j.umask).error, "") << j.full_name;
}

void expect_same_event(const event_catalog& cat, const json_event& j, bool ext) {
    auto e = cat.find(j.base);
    ASSERT_TRUE(e.has_value()) << j.full_name << ": no event " << j.base;
    const event_def& ev = cat.events()[*e];
    // (The JSON's second name for a code is one of the event's other names.)
    const bool other = std::find(ev.other_names.begin(), ev.other_names.end(), j.base) != ev.other_names.end();
    EXPECT_TRUE(ev.name == j.base || other) << "spelling differs from perfmon";
    EXPECT_EQ(int(ev.code), int(j.code)) << j.full_name;
    EXPECT_EQ(ev.ext, ext) << j.full_name;
    EXPECT_EQ(int(ev.counters), int(j.counters)) << j.full_name;
    EXPECT_EQ(cat.find(ev.code, ev.ext), e) << j.full_name << ": (code, ext) is ambiguous";
    expect_umask_matches(cat, ev, j, ext);
}

void expect_cto_count(const event_catalog& cat, const json_event& j) {
    auto e = cat.find("CTO_COUNT");
    ASSERT_TRUE(e.has_value());
    const event_def& cto = cat.events()[*e];
    EXPECT_EQ(int(j.code), 0x38) << j.full_name;
    EXPECT_TRUE(j.ext) << j.full_name;
    EXPECT_EQ(int(cto.code), int(j.code));
    EXPECT_EQ(cto.ext, j.ext);
    EXPECT_EQ(int(cto.counters), int(j.counters)) << j.full_name;
}

void expect_difference(const event_catalog& cat, const deliberate_difference& d,
                       const json_event& j) {
    SCOPED_TRACE(std::string("differs on purpose: ") + d.reason);
    switch (d.kind) {
        case difference::no_clockticks:
            EXPECT_FALSE(cat.find(j.base).has_value()) << j.full_name;
            EXPECT_FALSE(cat.find(j.code, j.ext).has_value()) << j.full_name;
            EXPECT_NE(cat.select(j.code, j.ext, j.umask).error, "");
            break;
        case difference::ubox_ext_dropped:
            EXPECT_TRUE(j.ext) << j.full_name << ": the JSON no longer sets ExtSel";
            expect_same_event(cat, j, false);
            EXPECT_FALSE(cat.find(j.code, true).has_value());
            break;
        case difference::cto_with_preset:
            expect_cto_count(cat, j);
            ASSERT_NE(cat.find_preset(j.sub), nullptr) << "no preset " << j.sub;
            EXPECT_EQ(cat.find_preset(j.sub)->name, j.sub) << "spelling differs from perfmon";
            break;
        case difference::cto_user_filter:
            expect_cto_count(cat, j);
            break;
        case difference::irp_all_counters: {
            EXPECT_EQ(int(j.counters), 0x3) << j.full_name << ": the JSON no longer says 0,1";
            json_event all = j;
            all.counters = 0xF;
            expect_same_event(cat, all, j.ext);
            break;
        }
    }
}

// ---------------------------------------------------------------------------
// Tests, one instance per personality

class CatalogOracle : public ::testing::TestWithParam<cpu_model> {
protected:
    void SetUp() override {
        std::string path = json_path(GetParam());
        // The data is part of the repository: missing, the oracle fails (it never skips).
        ASSERT_TRUE(std::ifstream(path).good()) << "perfmon JSON not found: " << path;
        entries_ = load_entries(path);
    }
    const event_catalog& catalog(box_kind box) const { return catalog_for(box, GetParam()); }

    std::vector<json_event> entries_;
};

TEST_P(CatalogOracle, EveryJsonEntryMatchesOurCatalog) {
    std::map<box_kind, unsigned> compared;
    unsigned deliberate = 0, absent = 0;
    for (const auto& j : entries_) {
        SCOPED_TRACE(j.full_name);
        if (!describe(GetParam()).box(j.box)) {  // a unit the CPU has no PMON box for
            ++absent;
            continue;
        }
        ++compared[j.box];
        if (const auto* d = find_difference(GetParam(), j)) {
            ++deliberate;
            expect_difference(catalog(j.box), *d, j);
        } else {
            expect_same_event(catalog(j.box), j, j.ext);
        }
    }
    expected_counts want = expected_for(GetParam());
    EXPECT_EQ(compared[box_kind::ubox], want.ubox);
    EXPECT_EQ(compared[box_kind::r2pcie], want.r2pcie);
    EXPECT_EQ(compared[box_kind::qpi], want.qpi);
    EXPECT_EQ(compared[box_kind::imc], want.imc);
    EXPECT_EQ(compared[box_kind::ha], want.ha);
    EXPECT_EQ(compared[box_kind::r3qpi], want.r3qpi);
    EXPECT_EQ(compared[box_kind::cbo], want.cbo);
    EXPECT_EQ(compared[box_kind::pcu], want.pcu);
    EXPECT_EQ(compared[box_kind::irp], want.irp);
    EXPECT_EQ(deliberate, want.deliberate);
    EXPECT_EQ(absent, want.absent);
}

TEST_P(CatalogOracle, EveryDeliberateDifferenceStillApplies) {
    for (const auto& d : differs_on_purpose()) {
        if (d.cpu && *d.cpu != GetParam()) continue;
        bool used = std::any_of(entries_.begin(), entries_.end(), [&](const json_event& j) {
            return j.box == d.box && (j.base == d.base || d.base == "*");
        });
        EXPECT_TRUE(used) << "table row " << d.base << " matches no JSON entry";
    }
}

// Reverse direction: each event and umask of ours comes from the JSON (or is a
// listed alias made only of JSON bits), and umask0_all is set only where the
// JSON lists umask 0 for that event.
TEST_P(CatalogOracle, NothingInOurCatalogIsInvented) {
    for (box_kind box : {box_kind::ubox, box_kind::r2pcie, box_kind::qpi, box_kind::imc, box_kind::ha,
                         box_kind::r3qpi, box_kind::cbo, box_kind::pcu, box_kind::irp}) {
        if (!describe(GetParam()).box(box)) continue;
        for (const auto& ev : catalog(box).events()) {
            SCOPED_TRACE(ev.name);
            uint8_t json_bits = 0;
            bool json_has_event = false, json_has_umask0 = false;
            std::set<std::string> json_subs;
            for (const auto& j : entries_) {
                const bool named = j.base == ev.name || std::find(ev.other_names.begin(), ev.other_names.end(),
                                                                  j.base) != ev.other_names.end();
                if (j.box != box || !named) continue;
                json_has_event = true;
                json_bits |= j.umask;
                json_has_umask0 |= j.umask == 0;
                if (j.umask != 0) json_subs.insert(j.sub);
            }
            EXPECT_TRUE(json_has_event);
            EXPECT_EQ(int(ev.valid_umask()), int(json_bits)) << "sub-event bits differ";
            EXPECT_EQ(ev.umask0_all, json_has_umask0 && !ev.umasks.empty());
            for (const auto& u : ev.umasks) {
                bool listed = json_subs.count(u.name) || is_alias(GetParam(), box, ev.name, u.name);
                EXPECT_TRUE(listed) << "umask " << u.name << " is neither in the JSON nor an alias";
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(BothPersonalities, CatalogOracle,
                         ::testing::Values(cpu_model::snb_ep, cpu_model::ivb_ep),
                         [](const ::testing::TestParamInfo<cpu_model>& info) {
                             return std::string(info.param == cpu_model::snb_ep ? "snb_ep"
                                                                                : "ivb_ep");
                         });

// Only the IVB-EP JSON names the presets (UNC_Q_MESSAGE.*); both personalities
// share one preset list, so both are checked against those names.
TEST(CatalogOraclePresets, EveryPresetIsAJsonMessageOrAManualRow) {
    std::string path = json_path(cpu_model::ivb_ep);
    ASSERT_TRUE(std::ifstream(path).good()) << "perfmon JSON not found: " << path;
    std::set<std::string> messages;
    for (const auto& j : load_entries(path))
        if (j.box == box_kind::qpi && j.base == "MESSAGE") messages.insert(j.sub);
    ASSERT_EQ(messages.size(), 32u);
    for (cpu_model cpu : {cpu_model::snb_ep, cpu_model::ivb_ep}) {
        const event_catalog& q = catalog_for(box_kind::qpi, cpu);
        for (const auto& p : q.presets())
            EXPECT_TRUE(messages.count(p.name) || manual_only_presets().count(p.name))
                << to_string(cpu) << " preset " << p.name;
        for (const auto& m : messages)
            EXPECT_NE(q.find_preset(m), nullptr) << to_string(cpu) << " has no preset " << m;
    }
}

}  // namespace
}  // namespace pmonsim
