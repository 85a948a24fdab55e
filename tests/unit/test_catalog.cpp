// Unit tests of the event catalog API (event_catalog::select / find_input /
// input_name / find_preset) using the project's real catalogs, plus the data
// rules the catalogs must keep: unique (code, ext), counter masks inside the
// box, max_inc per event (qpi-ll.md §3.3, ubox-r2pcie-global.md §5.6-5.8) and
// well-formed CTO_COUNT presets (qpi-ll.md §2.1, §2.3).
#include <gtest/gtest.h>

#include <bitset>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "catalog/catalog.h"

namespace pmonsim {
namespace {

const event_catalog& snb(box_kind box) { return catalog_for(box, cpu_model::snb_ep); }
const event_catalog& ivb(box_kind box) { return catalog_for(box, cpu_model::ivb_ep); }

std::vector<std::string> input_names(const event_catalog& cat, const std::vector<unsigned>& in) {
    std::vector<std::string> names;
    for (unsigned i : in) names.push_back(cat.input_name(i));
    return names;
}

using names = std::vector<std::string>;

// ---------------------------------------------------------------------------
// catalog_for

TEST(CatalogRegistry, ReturnsOneCatalogPerBoxAndPersonality) {
    for (cpu_model cpu : {cpu_model::snb_ep, cpu_model::ivb_ep}) {
        for (box_kind box :
             {box_kind::ubox, box_kind::ubox_fixed, box_kind::r2pcie, box_kind::qpi}) {
            const event_catalog& c = catalog_for(box, cpu);
            EXPECT_EQ(c.kind(), box);
            EXPECT_EQ(c.cpu(), cpu);
            EXPECT_EQ(&c, &catalog_for(box, cpu)) << "catalogs are built once";
        }
    }
    EXPECT_NE(&snb(box_kind::qpi), &ivb(box_kind::qpi));
}

TEST(CatalogRegistry, FixedUboxCounterHasNoEvents) {
    for (const event_catalog* c : {&snb(box_kind::ubox_fixed), &ivb(box_kind::ubox_fixed)}) {
        EXPECT_TRUE(c->events().empty());
        EXPECT_EQ(c->input_count(), 0u);
        EXPECT_NE(c->select(0xFF, false, 0).error, "");
    }
}

// ---------------------------------------------------------------------------
// select(): unknown events

TEST(CatalogSelect, UnknownEventIsAnError) {
    // ev_sel 0 on a UBox general counter is not an event (DECISIONS.md).
    auto s = ivb(box_kind::ubox).select(0x00, false, 0);
    EXPECT_FALSE(s.event.has_value());
    EXPECT_TRUE(s.inputs.empty());
    EXPECT_NE(s.error.find("not in the ubox catalog"), std::string::npos) << s.error;
}

TEST(CatalogSelect, CtoCountNeedsTheExtBit) {
    const event_catalog& q = ivb(box_kind::qpi);
    EXPECT_NE(q.select(0x38, false, 0).error, "");  // 0x38 without ext: no event
    auto s = q.select(0x38, true, 0);
    EXPECT_EQ(s.error, "");
    ASSERT_TRUE(s.event.has_value());
    EXPECT_EQ(q.events()[*s.event].name, "CTO_COUNT");
}

TEST(CatalogSelect, SameCodeWithAndWithoutExtAreDifferentEvents) {
    const event_catalog& q = snb(box_kind::qpi);
    auto tx_g0 = q.select(0x00, false, 0x02);
    auto tx_g1 = q.select(0x00, true, 0x02);
    EXPECT_EQ(input_names(q, tx_g0.inputs), names{"TxL_FLITS_G0.DATA"});
    EXPECT_EQ(input_names(q, tx_g1.inputs), names{"TxL_FLITS_G1.HOM_REQ"});
}

TEST(CatalogSelect, EventOfTheOtherGenerationIsUnknown) {
    // RxL_STALLS_VN1 (0x3A + ext) exists only on IVB-EP.
    EXPECT_EQ(ivb(box_kind::qpi).select(0x3A, true, 0x01).error, "");
    EXPECT_NE(snb(box_kind::qpi).select(0x3A, true, 0x01).error, "");
    // MSG_CHNL_SIZE_COUNT (0x47) exists only on SNB-EP.
    EXPECT_EQ(snb(box_kind::ubox).select(0x47, false, 0x01).error, "");
    EXPECT_NE(ivb(box_kind::ubox).select(0x47, false, 0x01).error, "");
}

TEST(CatalogSelect, SnbUboxExtraEventsAreSelectedWithoutExt) {
    const event_catalog& u = snb(box_kind::ubox);
    EXPECT_EQ(u.select(0x45, false, 0x01).error, "");
    EXPECT_NE(u.select(0x45, true, 0x01).error, "");  // the UBox has no ext bit
}

// ---------------------------------------------------------------------------
// select(): umask handling

TEST(CatalogSelect, UndefinedUmaskBitsAreAnError) {
    // RxR_CYCLES_NE.DRS (0x08) exists on SNB-EP, not on IVB-EP.
    auto ok = snb(box_kind::r2pcie).select(0x10, false, 0x08);
    EXPECT_EQ(input_names(snb(box_kind::r2pcie), ok.inputs), names{"RxR_CYCLES_NE.DRS"});
    auto bad = ivb(box_kind::r2pcie).select(0x10, false, 0x18);
    EXPECT_TRUE(bad.inputs.empty());
    ASSERT_TRUE(bad.event.has_value()) << "the event is known even if the umask is not";
    EXPECT_NE(bad.error.find("umask bits 0x08"), std::string::npos) << bad.error;
}

TEST(CatalogSelect, UmaskZeroSelectsNothingWhenSubEventsExist) {
    auto s = ivb(box_kind::qpi).select(0x02, true, 0x00);  // RxL_FLITS_G1
    EXPECT_TRUE(s.inputs.empty());
    EXPECT_NE(s.error.find("umask 0"), std::string::npos) << s.error;
}

TEST(CatalogSelect, UmaskZeroMeansAllWhereTheJsonListsIt) {
    const event_catalog& q = ivb(box_kind::qpi);
    auto s = q.select(0x09, true, 0x00);  // RxL_INSERTS_DRS, umask0_all
    EXPECT_EQ(s.error, "");
    EXPECT_EQ(input_names(q, s.inputs), (names{"RxL_INSERTS_DRS.VN0", "RxL_INSERTS_DRS.VN1"}));
    EXPECT_EQ(s.inputs, q.select(0x09, true, 0x03).inputs);

    const event_catalog& r = ivb(box_kind::r2pcie);
    auto b = r.select(0x12, false, 0x00);  // RxR_AK_BOUNCES
    EXPECT_EQ(input_names(r, b.inputs), (names{"RxR_AK_BOUNCES.CW", "RxR_AK_BOUNCES.CCW"}));
}

TEST(CatalogSelect, SnbPerClassInsertsHaveNoSubEvents) {
    // On SNB-EP the same RxL_INSERTS_DRS code has no VN sub-events.
    const event_catalog& q = snb(box_kind::qpi);
    auto s = q.select(0x09, true, 0x00);
    EXPECT_EQ(input_names(q, s.inputs), names{"RxL_INSERTS_DRS"});
    EXPECT_NE(q.select(0x09, true, 0x01).error.find("no sub-events"), std::string::npos);
}

TEST(CatalogSelect, EventWithoutSubEventsHasOneInput) {
    const event_catalog& q = ivb(box_kind::qpi);
    auto s = q.select(0x14, false, 0x00);  // CLOCKTICKS
    ASSERT_EQ(s.inputs.size(), 1u);
    EXPECT_EQ(q.input(s.inputs[0]).bit, -1);
    EXPECT_EQ(q.input_name(s.inputs[0]), "CLOCKTICKS");
    EXPECT_NE(q.select(0x14, false, 0x01).error, "");
}

TEST(CatalogSelect, SingleBitAndCombinationUmasks) {
    const event_catalog& q = snb(box_kind::qpi);
    auto one = q.select(0x02, true, 0x08);  // RxL_FLITS_G1.DRS_DATA
    EXPECT_EQ(input_names(q, one.inputs), names{"RxL_FLITS_G1.DRS_DATA"});
    auto drs = q.select(0x02, true, 0x18);  // the named combination DRS
    EXPECT_EQ(input_names(q, drs.inputs),
              (names{"RxL_FLITS_G1.DRS_DATA", "RxL_FLITS_G1.DRS_NONDATA"}));
    auto g1_all = q.select(0x02, true, 0x1F);  // any OR of defined bits is allowed
    EXPECT_EQ(g1_all.inputs.size(), 5u);
}

TEST(CatalogSelect, RingCombinationOnIvbCoversBothVirtualRings) {
    const event_catalog& r = ivb(box_kind::r2pcie);
    auto cw = r.select(0x07, false, 0x33);  // RING_AD_USED.CW
    EXPECT_EQ(input_names(r, cw.inputs),
              (names{"RING_AD_USED.CW_VR0_EVEN", "RING_AD_USED.CW_VR0_ODD",
                     "RING_AD_USED.CW_VR1_EVEN", "RING_AD_USED.CW_VR1_ODD"}));
}

// ---------------------------------------------------------------------------
// find_input() / input_name()

TEST(CatalogFindInput, SingleBitUmaskByName) {
    const event_catalog& q = ivb(box_kind::qpi);
    auto i = q.find_input("RxL_FLITS_G1", "DRS_DATA");
    ASSERT_TRUE(i.has_value());
    EXPECT_EQ(q.input_name(*i), "RxL_FLITS_G1.DRS_DATA");
    EXPECT_EQ(q.input(*i).bit, 3);
    EXPECT_EQ(q.select(0x02, true, 0x08).inputs, std::vector<unsigned>{*i});
    EXPECT_EQ(q.find_input("rxl_flits_g1", "drs_data"), i) << "names are case-insensitive";
}

TEST(CatalogFindInput, CombinationIsNotAnInput) {
    EXPECT_FALSE(ivb(box_kind::qpi).find_input("RxL_FLITS_G1", "DRS").has_value());
    EXPECT_FALSE(ivb(box_kind::r2pcie).find_input("RING_IV_USED", "ANY").has_value());
}

TEST(CatalogFindInput, EventWithoutSubEvents) {
    const event_catalog& q = snb(box_kind::qpi);
    auto i = q.find_input("CLOCKTICKS", "");
    ASSERT_TRUE(i.has_value());
    EXPECT_EQ(q.input_name(*i), "CLOCKTICKS");
    EXPECT_FALSE(q.find_input("RxL_FLITS_G1", "").has_value()) << "needs a sub-event";
    EXPECT_FALSE(q.find_input("CLOCKTICKS", "DATA").has_value());
}

TEST(CatalogFindInput, UnknownNames) {
    const event_catalog& q = snb(box_kind::qpi);
    EXPECT_FALSE(q.find_input("NO_SUCH_EVENT", "").has_value());
    EXPECT_FALSE(q.find_input("RxL_FLITS_G1", "NO_SUCH_UMASK").has_value());
    EXPECT_FALSE(q.find_input("RxL_STALLS_VN0", "GV").has_value()) << "IVB-EP only";
}

TEST(CatalogFindInput, UnnamedBitsAreReachedAsBitN) {
    // SNB-EP RING_IV_USED only names the combination ANY (0x0F).
    const event_catalog& r = snb(box_kind::r2pcie);
    auto i = r.find_input("RING_IV_USED", "bit2");
    ASSERT_TRUE(i.has_value());
    EXPECT_EQ(r.input_name(*i), "RING_IV_USED.bit2");
    EXPECT_FALSE(r.find_input("RING_IV_USED", "bit4").has_value());
    EXPECT_TRUE(ivb(box_kind::r2pcie).find_input("RING_IV_USED", "bit4").has_value());
}

TEST(CatalogFindInput, InputOfMapsEventAndBit) {
    const event_catalog& u = snb(box_kind::ubox);
    unsigned ev = *u.find("EVENT_MSG");
    auto i = u.input_of(ev, 4);
    ASSERT_TRUE(i.has_value());
    EXPECT_EQ(u.input_name(*i), "EVENT_MSG.INT_PRIO");
    EXPECT_FALSE(u.input_of(ev, 5).has_value());
    EXPECT_FALSE(u.input_of(static_cast<unsigned>(u.events().size()), 0).has_value());
}

// ---------------------------------------------------------------------------
// Input counts: one input per defined umask bit, one per event without umasks.

unsigned expected_inputs(const event_catalog& c) {
    unsigned n = 0;
    for (const auto& ev : c.events()) {
        unsigned bits = static_cast<unsigned>(std::bitset<8>(ev.valid_umask()).count());
        n += bits == 0 ? 1 : bits;
    }
    return n;
}

TEST(CatalogInputs, CountsPerCatalog) {
    // Hand counts from the JSON-derived tables (see the catalog_*.cpp files).
    const std::map<std::pair<box_kind, cpu_model>, unsigned> want = {
        {{box_kind::ubox, cpu_model::snb_ep}, 23},   {{box_kind::ubox, cpu_model::ivb_ep}, 20},
        {{box_kind::r2pcie, cpu_model::snb_ep}, 39}, {{box_kind::r2pcie, cpu_model::ivb_ep}, 59},
        {{box_kind::qpi, cpu_model::snb_ep}, 78},    {{box_kind::qpi, cpu_model::ivb_ep}, 147},
    };
    for (const auto& [key, count] : want) {
        const event_catalog& c = catalog_for(key.first, key.second);
        SCOPED_TRACE(std::string(to_string(key.first)) + " " + to_string(key.second));
        EXPECT_EQ(c.input_count(), count);
        EXPECT_EQ(c.input_count(), expected_inputs(c));
    }
}

TEST(CatalogInputs, InputsOfAnEventAreContiguousAndOrderedByBit) {
    const event_catalog& q = ivb(box_kind::qpi);
    for (unsigned i = 1; i < q.input_count(); ++i) {
        const input_ref& a = q.input(i - 1);
        const input_ref& b = q.input(i);
        EXPECT_TRUE(b.event == a.event + 1 || (b.event == a.event && b.bit > a.bit)) << i;
    }
}

// ---------------------------------------------------------------------------
// Data rules of every catalog

const std::vector<const event_catalog*>& all_event_catalogs() {
    static const std::vector<const event_catalog*> all = {
        &snb(box_kind::ubox), &ivb(box_kind::ubox), &snb(box_kind::r2pcie),
        &ivb(box_kind::r2pcie), &snb(box_kind::qpi), &ivb(box_kind::qpi)};
    return all;
}

uint8_t box_counters(box_kind box) { return box == box_kind::ubox ? 0x3 : 0xF; }

TEST(CatalogData, EventsAreWellFormed) {
    for (const event_catalog* c : all_event_catalogs()) {
        std::set<std::string> seen_names;
        std::set<std::pair<int, bool>> seen_codes;
        for (const auto& ev : c->events()) {
            SCOPED_TRACE(std::string(to_string(c->kind())) + " " + ev.name);
            EXPECT_TRUE(seen_names.insert(ev.name).second) << "duplicate name";
            EXPECT_TRUE(seen_codes.insert({ev.code, ev.ext}).second) << "duplicate code";
            EXPECT_NE(int(ev.counters), 0);
            EXPECT_EQ(ev.counters & ~box_counters(c->kind()), 0);
            EXPECT_FALSE(ev.description.empty());
            EXPECT_GE(ev.max_inc, 1);
            EXPECT_TRUE(c->kind() == box_kind::qpi || !ev.ext) << "only QPI has an ext bit";
            EXPECT_TRUE(!ev.umask0_all || !ev.umasks.empty());
            std::set<std::string> umask_names;
            std::set<int> umask_values;
            for (const auto& u : ev.umasks) {
                EXPECT_NE(u.value, 0) << u.name;
                EXPECT_TRUE(umask_names.insert(u.name).second) << "duplicate umask " << u.name;
                EXPECT_TRUE(umask_values.insert(u.value).second) << "duplicate value " << u.name;
            }
        }
    }
}

// max_inc per the brief derived from qpi-ll.md §3.3 and ubox-r2pcie-global.md
// §5.8; everything not listed here adds at most 1 per cycle.
uint16_t expected_max_inc(box_kind box, const std::string& name) {
    auto starts = [&](const char* p) { return name.rfind(p, 0) == 0; };
    auto ends = [&](const char* s) {
        std::string t(s);
        return name.size() >= t.size() && name.compare(name.size() - t.size(), t.size(), t) == 0;
    };
    if (box == box_kind::r2pcie) return name == "RxR_OCCUPANCY" ? 31 : 1;
    if (box != box_kind::qpi) return 1;
    if (starts("TxL_FLITS_G") || starts("RxL_FLITS_G")) return 2;
    if (name == "CTO_COUNT" || name == "RxL_CREDITS_CONSUMED_VN1") return 2;
    if (starts("RxL_OCCUPANCY")) return 128;
    if (name == "VNA_CREDIT_RETURN_OCCUPANCY") return 128;
    if (starts("TxR_") && ends("_CREDIT_OCCUPANCY")) return 128;
    return 1;  // includes TxL_OCCUPANCY, documented as 1
}

TEST(CatalogData, MaxIncrementPerEvent) {
    for (const event_catalog* c : all_event_catalogs())
        for (const auto& ev : c->events())
            EXPECT_EQ(ev.max_inc, expected_max_inc(c->kind(), ev.name))
                << to_string(c->kind()) << " " << to_string(c->cpu()) << " " << ev.name;
    auto tx_occ = ivb(box_kind::qpi).find("TxL_OCCUPANCY");
    ASSERT_TRUE(tx_occ.has_value());
    EXPECT_EQ(ivb(box_kind::qpi).events()[*tx_occ].max_inc, 1);
}

// ---------------------------------------------------------------------------
// CTO_COUNT presets

TEST(CatalogPresets, OnlyQpiCatalogsHavePresetsAndBothHaveTheSame) {
    EXPECT_TRUE(snb(box_kind::ubox).presets().empty());
    EXPECT_TRUE(ivb(box_kind::r2pcie).presets().empty());
    const auto& a = snb(box_kind::qpi).presets();
    const auto& b = ivb(box_kind::qpi).presets();
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(a.size(), 33u);  // 18 manual rows + 15 inferred (qpi-ll.md §2.3)
    for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].name, b[i].name);
        EXPECT_EQ(a[i].match0, b[i].match0);
        EXPECT_EQ(a[i].mask0, b[i].mask0);
        EXPECT_EQ(a[i].match1, b[i].match1);
        EXPECT_EQ(a[i].mask1, b[i].mask1);
    }
}

TEST(CatalogPresets, MatchBitsStayInsideMaskAndDefinedFields) {
    std::set<std::string> names;
    for (const auto& p : ivb(box_kind::qpi).presets()) {
        SCOPED_TRACE(p.name);
        EXPECT_TRUE(names.insert(p.name).second) << "duplicate preset";
        EXPECT_EQ(p.match0 & ~p.mask0, 0u);  // match bits outside the mask stay 0
        EXPECT_EQ(p.match1 & ~p.mask1, 0u);
        EXPECT_EQ(p.mask0 & ~0x8003FFF8u, 0u);  // RNID4, DNID, MC, OPC, VNW
        EXPECT_EQ(p.mask1 & ~0x000F000Fu, 0u);  // RDS, RNID[3:0]
        EXPECT_NE(p.mask0, 0u) << "every preset selects a message class";
    }
}

TEST(CatalogPresets, ValuesFromTheManualTable) {
    const event_catalog& q = snb(box_kind::qpi);
    const filter_preset* m = q.find_preset("DRS.DataC_M");
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->match0, 0x1C00u);
    EXPECT_EQ(m->mask0, 0x1FE0u);
    EXPECT_EQ(m->match1, 0x00080000u);  // RDS = M (1000) in bits 19:16
    EXPECT_EQ(m->mask1, 0x000F0000u);
    const filter_preset* any = q.find_preset("drs.anydatac");  // case-insensitive
    ASSERT_NE(any, nullptr);
    EXPECT_EQ(any->match0, 0x1C00u);
    EXPECT_EQ(any->mask0, 0x1F80u);
    EXPECT_EQ(any->mask1, 0u);
    const filter_preset* ndr = q.find_preset("NDR.AnyCmp");
    ASSERT_NE(ndr, nullptr);
    EXPECT_EQ(ndr->match0, 0x0400u);  // MC 0010 in bits 12:9
    EXPECT_EQ(ndr->mask0, 0x1E00u);
    EXPECT_EQ(q.find_preset("DRS.NoSuchThing"), nullptr);
}

}  // namespace
}  // namespace pmonsim
