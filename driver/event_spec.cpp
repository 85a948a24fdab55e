#include "driver/event_spec.h"
#include "driver/request_terms.h"

#include "desc/nearest.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <vector>

#include "desc/box_spec.h"

namespace pmonsim::driver {

namespace {


// --- strings ------------------------------------------------------------------

std::string trim(const std::string& s) {
    auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return {};
    auto e = s.find_last_not_of(" \t\r\n");
    return s.substr(b, e - b + 1);
}

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool iequal(const std::string& a, const std::string& b) { return lower(a) == lower(b); }

bool istarts(const std::string& s, const std::string& prefix) {
    return s.size() >= prefix.size() && iequal(s.substr(0, prefix.size()), prefix);
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::string::size_type b = 0;
    for (;;) {
        auto e = s.find(sep, b);
        out.push_back(s.substr(b, e == std::string::npos ? std::string::npos : e - b));
        if (e == std::string::npos) return out;
        b = e + 1;
    }
}

std::string hex(uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
    return b;
}

std::string hex8(uint32_t v) {
    char b[16];
    std::snprintf(b, sizeof b, "0x%08x", v);
    return b;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
    std::string out;
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
    return out;
}

// --- boxes --------------------------------------------------------------------

// The facts parse_event needs from the box description.
const box_spec& spec_of(box_kind kind, cpu_model cpu) { return spec_for(kind, cpu); }

std::string box_label(box_kind kind, unsigned unit) { return unit_name(kind, unit); }

unsigned max_qpi_ports(cpu_model cpu) { return describe(cpu).units(box_kind::qpi); }

// The boxes of a CPU as events name them: "ubox, ubox_fixed, r2pcie, qpi0, qpi1".
std::vector<std::string> split_names(const std::string& list) {
    std::vector<std::string> out;
    for (const std::string& n : split(list, ',')) out.push_back(trim(n));
    return out;
}

std::string box_names(cpu_model cpu) {
    std::string s;
    for (const box_desc& b : describe(cpu).boxes)
        for (unsigned u = 0; u < b.units; ++u) s += (s.empty() ? "" : ", ") + box_label(b.kind, u);
    return s;
}

// Linux's PMUs for the CPU's boxes: "uncore_ubox, uncore_r2pcie, uncore_qpi_0..1".
std::string pmu_names(cpu_model cpu, unsigned qpi_ports) {
    std::string s;
    auto add = [&](const std::string& n) { s += (s.empty() ? "" : ", ") + n; };
    const cpu_desc& c = describe(cpu);
    for (const box_desc& b : c.boxes) {
        if (!b.events) continue;  // a fixed counter: its general counters' PMU
        const unsigned n = b.kind == box_kind::qpi ? std::min(qpi_ports, b.units) : b.units;
        if (n == 1) add(linux_pmu_name(c, b.kind, 0));
        else if (n > 1) add(linux_pmu_name(c, b.kind, 0) + ".." + std::to_string(n - 1));
    }
    return s;
}

// The box behind one of Linux's PMU names on the CPU (linux_pmu_name():
// "uncore_ubox", "uncore_qpi_1", "uncore_ha" on snb-ep, "uncore"); a fixed
// counter shares its general counters' PMU, so the general kind (listed
// first) answers. A name of a unit beyond the CPU's is still its kind's (with
// that unit), for set_box() to refuse by name.
std::optional<std::pair<box_kind, unsigned>> box_of_pmu(const std::string& pmu, cpu_model cpu) {
    const cpu_desc& c = describe(cpu);
    for (unsigned k = 0; k < box_kind_count; ++k) {
        const box_kind kind = static_cast<box_kind>(k);
        const std::string base = linux_pmu(kind);
        if (pmu == base && c.units(kind) <= 1) return std::pair{kind, 0u};
        // (A type of several boxes names each "_N", as the driver does.)
        if (pmu.size() > base.size() + 1 && pmu.size() <= base.size() + 3 && pmu.compare(0, base.size(), base) == 0 &&
            pmu[base.size()] == '_' && c.units(kind) != 1) {
            unsigned n = 0;
            bool digits = true;
            for (size_t i = base.size() + 1; i < pmu.size(); ++i) {
                digits = digits && pmu[i] >= '0' && pmu[i] <= '9';
                n = n * 10 + static_cast<unsigned>(pmu[i] - '0');
            }
            if (digits) return std::pair{kind, n};
        }
    }
    return std::nullopt;
}

// The fixed counter that counts a box's clock (ubox/UCLK is ubox_fixed).
std::optional<box_kind> fixed_of(box_kind kind) {
    switch (kind) {
        case box_kind::ubox:
        case box_kind::ubox_fixed: return box_kind::ubox_fixed;
        case box_kind::uncore:
        case box_kind::uncore_fixed: return box_kind::uncore_fixed;
        case box_kind::r2pcie:
        case box_kind::qpi:
        case box_kind::ha:
        case box_kind::r3qpi:
        case box_kind::cbo:
        case box_kind::pcu:
        case box_kind::irp:
        case box_kind::imc: return std::nullopt;  // (the iMC's DCLK counter is in its own box)
    }
    return std::nullopt;
}

const char* name_prefix(box_kind kind) { return event_prefix(kind); }

// --- the event being built ------------------------------------------------------

struct draft {
    draft(const std::string& t, cpu_model c) : text(t), cpu(c) {}

    const std::string& text;
    cpu_model cpu;
    box_kind kind = box_kind::r2pcie;
    unsigned unit = 0;
    const box_spec* box = nullptr;
    bool fixed = false;

    uint8_t code = 0;
    bool ext = false;
    uint8_t umask = 0;
    unsigned thresh = 0;
    bool edge = false, inv = false;
    bool occ_invert = false, occ_edge = false;  // the PCU's occupancy events
    int band = -1;                  // filter_bandK given: K, and its byte
    uint8_t band_value = 0;
    uint64_t match = 0, mask = 0;
    request_values req;                   // request-filter terms given (B14)
    bool tid_en = false;                  // the caching agents' CTL bit 19
    std::string filter_term;              // the first filter term given, for errors
    std::string modifier_term;            // the first thresh/edge/inv term given, for errors
    std::optional<unsigned> socket;

    [[noreturn]] void fail(const std::string& reason) const {
        throw event_error(text + ": " + reason);
    }
    std::string box_name() const { return box_label(kind, unit); }
    const event_catalog& catalog() const { return catalog_for(kind, cpu); }
};

void set_box(draft& d, box_kind kind, unsigned unit, unsigned qpi_ports) {
    if (!describe(d.cpu).box(kind))
        d.fail(box_label(kind, unit) + " does not exist on " + to_string(d.cpu) + " (" + box_names(d.cpu) + ")");
    if (numbered(kind) && kind != box_kind::qpi && unit >= describe(d.cpu).units(kind))
        d.fail(box_label(kind, unit) + " does not exist on " + to_string(d.cpu) + " (" + box_label(kind, 0) + ".." +
               box_label(kind, describe(d.cpu).units(kind) - 1) + ")");
    if (kind == box_kind::qpi) {
        const std::string name = box_label(kind, unit);
        if (unit >= max_qpi_ports(d.cpu))
            d.fail(name + " does not exist on " + to_string(d.cpu) + " (" +
                   std::to_string(max_qpi_ports(d.cpu)) + " QPI ports)");
        if (unit >= qpi_ports)
            d.fail(name + " does not exist: " + std::to_string(qpi_ports) + " QPI port" +
                   (qpi_ports == 1 ? "" : "s") + " configured");
    }
    d.kind = kind;
    d.unit = unit;
    d.box = &spec_of(kind, d.cpu);
}

uint64_t parse_number(const draft& d, const std::string& term, const std::string& s) {
    std::string v = trim(s);
    int base = 10;
    std::size_t i = 0;
    if (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
        base = 16;
        i = 2;
    }
    if (i >= v.size()) d.fail(term + ": '" + s + "' is not a number");
    uint64_t out = 0;
    for (; i < v.size(); ++i) {
        int digit;
        char c = static_cast<char>(std::tolower(static_cast<unsigned char>(v[i])));
        if (c >= '0' && c <= '9') digit = c - '0';
        else if (base == 16 && c >= 'a' && c <= 'f') digit = c - 'a' + 10;
        else d.fail(term + ": '" + s + "' is not a number");
        if (out > (~uint64_t{0} - static_cast<uint64_t>(digit)) / static_cast<uint64_t>(base))
            d.fail(term + ": '" + s + "' does not fit in 64 bits");
        out = out * static_cast<uint64_t>(base) + static_cast<uint64_t>(digit);
    }
    return out;
}

// --- filter fields ----------------------------------------------------------------

struct filter_field {
    std::string name;
    bool is_mask;       // config2 (MASK) rather than config1 (MATCH)
    unsigned lo, hi;
    bool raw;           // a whole register: check the documented bits
};

// Linux's format fields (uncore_snbep.c, qpi-ll.md §2.1), at the filter
// fields' declared places, plus the project's raw names.
const std::vector<filter_field>& filter_fields() {
    static const std::vector<filter_field> f = [] {
        namespace m = match_bits;
        const std::pair<const char*, bitfield> linux_names[] = {
            {"vnw", m::vnw}, {"opc", m::opc}, {"mc", m::mc}, {"dnid", m::dnid},
            {"rnid4", m::rnid_4}, {"rnid30", m::rnid_3_0}, {"rds", m::rds}};
        std::vector<filter_field> v;
        for (const bool is_mask : {false, true}) {
            const std::string p = is_mask ? "mask" : "match";
            for (const auto& [n, b] : linux_names)
                v.push_back({p + "_" + n, is_mask, b.lo, b.hi, false});
            v.push_back({p + "0", is_mask, 0, 31, true});
            v.push_back({p + "1", is_mask, 32, 63, true});
            v.push_back({p, is_mask, 0, 63, true});
            v.push_back({is_mask ? "config2" : "config1", is_mask, 0, 63, true});
        }
        return v;
    }();
    return f;
}

void apply_filter(draft& d, const filter_field& f, const std::string& term, uint64_t v) {
    const unsigned width = f.hi - f.lo + 1;
    if (width < 64 && (v >> width) != 0)
        d.fail(term + " does not fit in " + std::to_string(width) + " bit" + (width == 1 ? "" : "s"));
    const uint64_t field_mask = (width == 64 ? ~uint64_t{0} : ((uint64_t{1} << width) - 1)) << f.lo;
    const uint64_t bits = v << f.lo;
    if (const uint64_t bad = bits & ~filter_valid_bits) {
        const bool low = (bad & 0xFFFFFFFFull) != 0;
        const std::string reg = std::string(f.is_mask ? "MASK" : "MATCH") + (low ? "0" : "1");
        const uint32_t half = low ? static_cast<uint32_t>(bad) : static_cast<uint32_t>(bad >> 32);
        const uint32_t valid = low ? static_cast<uint32_t>(filter_valid_bits)
                                   : static_cast<uint32_t>(filter_valid_bits >> 32);
        d.fail(term + " sets " + reg + " bits " + hex(half) + " outside its documented fields (" +
               hex8(valid) + ")");
    }
    uint64_t& reg = f.is_mask ? d.mask : d.match;
    reg = (reg & ~field_mask) | bits;
    if (d.filter_term.empty()) d.filter_term = term;
}

// --- modifiers common to both spellings -------------------------------------------------

void set_thresh(draft& d, const std::string& term, uint64_t v) {
    const unsigned bits = d.box->thresh_bits;
    if (v >= (uint64_t{1} << bits))
        d.fail(term + " does not fit the " + d.box_name() + " " + std::to_string(bits) +
               "-bit threshold (0-" + std::to_string((1u << bits) - 1) + ")");
    d.thresh = static_cast<unsigned>(v);
}

void set_inv(draft& d, const std::string& term, bool on) {
    if (on && !d.box->has_invert)
        d.fail(term + ": invert does not exist on " + to_string(d.cpu) +
               " (CTL bit 23 is reserved)");
    d.inv = on;
}

bool parse_flag(const draft& d, const std::string& term, const std::optional<std::string>& value) {
    if (!value) return true;
    uint64_t v = parse_number(d, term, *value);
    if (v > 1) d.fail(term + ": must be 0 or 1");
    return v == 1;
}

// Applies a term shared by both spellings; false if the key is not one of them.
bool apply_common(draft& d, const std::string& key, const std::optional<std::string>& value,
                  const std::string& term) {
    auto need_value = [&]() -> uint64_t {
        if (!value) d.fail(term + " needs a value (" + key + "=N)");
        return parse_number(d, term, *value);
    };
    if (key == "thresh" || key == "cmask") {  // (cmask: the Nehalem uncore's name)
        set_thresh(d, term, need_value());
    } else if (key == "edge") {
        d.edge = parse_flag(d, term, value);
    } else if (key == "inv") {
        set_inv(d, term, parse_flag(d, term, value));
    } else if (key == "occ_invert" || key == "occ_edge") {
        if (!d.box->occupancy) d.fail(term + ": only the PCU's occupancy events have " + key);
        (key == "occ_invert" ? d.occ_invert : d.occ_edge) = parse_flag(d, term, value);
    } else if (key.size() == 12 && key.compare(0, 11, "filter_band") == 0 && key[11] >= '0' && key[11] <= '3') {
        if (!describe(d.cpu).need(d.kind).band_filter) d.fail(term + ": only the PCU has a band filter");
        const uint64_t v = need_value();
        if (v > 0xFF) d.fail(term + " does not fit the band filter's byte (0-255, 100 MHz steps)");
        if (d.band >= 0 && d.band != key[11] - '0') d.fail(term + ": one band per event");
        d.band = key[11] - '0';
        d.band_value = static_cast<uint8_t>(v);
        return true;
    } else if (key == "tid_en") {
        if (d.box->requests != request_filter::cbo_one_filter && d.box->requests != request_filter::cbo_two_filters)
            d.fail(term + ": only the caching agents' counters have tid_en");
        d.tid_en = parse_flag(d, term, value);
        return true;
    } else if (key.compare(0, 7, "filter_") == 0 && !request_terms(d.box->requests).empty()) {
        const uint64_t v = need_value();
        try {
            if (!apply_request_term(d.box->requests, key, v, d.req)) {
                std::string names;
                for (const request_term& t : request_terms(d.box->requests))
                    if (names.find(t.name) == std::string::npos) names += std::string(names.empty() ? "" : ", ") + t.name;
                d.fail(term + ": not a filter term of " + d.box_name() + " (" + names + ")");
            }
        } catch (const std::invalid_argument& e) {
            d.fail(term + " " + e.what());
        }
        if (d.req.first_term.empty()) d.req.first_term = term;
        return true;
    } else if (key == "socket") {
        uint64_t v = need_value();
        if (v > 0xFFFF) d.fail(term + ": no such socket");
        d.socket = static_cast<unsigned>(v);
        return true;
    } else {
        for (const filter_field& f : filter_fields())
            if (key == f.name) {
                apply_filter(d, f, term, need_value());
                return true;
            }
        return false;
    }
    if (d.modifier_term.empty()) d.modifier_term = term;
    return true;
}

struct term {
    std::string text, key;
    std::optional<std::string> value;
};

std::vector<term> split_terms(const draft& d, const std::string& s, const char* what) {
    std::vector<term> out;
    for (const std::string& raw : split(s, ',')) {
        term t;
        t.text = trim(raw);
        if (t.text.empty()) d.fail(std::string("empty ") + what);
        auto eq = t.text.find('=');
        t.key = lower(trim(t.text.substr(0, eq)));
        if (eq != std::string::npos) t.value = trim(t.text.substr(eq + 1));
        out.push_back(std::move(t));
    }
    return out;
}

// --- the canonical name ------------------------------------------------------------

std::string umask_names(const event_def& ev, uint8_t umask) {
    for (const auto& u : ev.umasks)
        if (u.value == umask) return u.name;
    std::vector<std::string> parts;
    uint8_t left = umask;
    for (const auto& u : ev.umasks)
        if (u.value != 0 && (u.value & left) == u.value) {
            parts.push_back(u.name);
            left = static_cast<uint8_t>(left & ~u.value);
        }
    for (int b = 0; b < 8; ++b)
        if (left & (1u << b)) parts.push_back("bit" + std::to_string(b));
    return join(parts, "|");
}

std::string modifiers_suffix(const draft& d) {
    std::string s;
    if (d.thresh) s += ",thresh=" + std::to_string(d.thresh);
    if (d.edge) s += ",edge";
    if (d.inv) s += ",inv";
    if (d.occ_edge) s += ",occ_edge";
    if (d.occ_invert) s += ",occ_invert";
    if (d.band >= 0) s += ",filter_band" + std::to_string(d.band) + "=" + std::to_string(d.band_value);
    if (d.tid_en) s += ",tid_en";
    std::string done;  // (filter_addr is two fields of one term)
    for (const request_term& t : request_terms(d.box->requests)) {
        if (!(d.req.mask[t.reg] & t.field.mask()) || done.find(std::string(t.name) + ";") != std::string::npos) continue;
        done += std::string(t.name) + ";";
        uint64_t v = 0;
        for (const request_term& u : request_terms(d.box->requests))
            if (std::string(u.name) == t.name) v |= u.field.get(d.req.value[u.reg]) << u.shift;
        s += "," + std::string(t.name) + "=" + hex(v);
    }
    return s;
}

std::string canonical_name(const draft& d, const event_def* ev, bool cto) {
    std::string s = d.box_name() + "/";
    if (d.fixed) {
        s += "UCLK";
    } else {
        s += ev->name;
        if (d.umask) s += "." + umask_names(*ev, d.umask);
        // A filter equal to a preset is named by the (first such) preset;
        // any other non-empty filter is spelled out with match=/mask=.
        std::string raw_filter;
        if (cto && (d.match || d.mask)) {
            const filter_preset* preset = nullptr;
            for (const auto& p : d.catalog().presets())
                if (!preset && (uint64_t{p.match1} << 32 | p.match0) == d.match &&
                    (uint64_t{p.mask1} << 32 | p.mask0) == d.mask)
                    preset = &p;
            if (preset) s += ":" + preset->name;
            else raw_filter = ",match=" + hex(d.match) + ",mask=" + hex(d.mask);
        }
        s += modifiers_suffix(d) + raw_filter;
    }
    if (d.socket) s += ",socket=" + std::to_string(*d.socket);
    return s;
}

// --- finishing ------------------------------------------------------------------

event_spec finish(draft& d) {
    event_spec s;
    s.text = d.text;
    s.cpu = d.cpu;
    s.kind = d.kind;
    s.unit = d.unit;
    s.socket = d.socket;
    const uint8_t box_counters = static_cast<uint8_t>((1u << d.box->counters) - 1);

    if (d.fixed) {
        if (!d.modifier_term.empty())
            d.fail(d.modifier_term + ": the UCLK fixed counter has no threshold, edge or invert");
        if (!d.filter_term.empty())
            d.fail(d.filter_term + ": the UCLK fixed counter has no packet filter");
        s.fixed = true;
        s.ctl = 0;
        s.counters = box_counters;
        s.name = canonical_name(d, nullptr, false);
        return s;
    }

    const event_catalog& cat = d.catalog();
    const auto idx = cat.find(d.code, d.ext);
    const event_def& ev = cat.events().at(*idx);
    const bool cto = d.kind == box_kind::qpi && d.ext && d.code == d.box->cto_code;

    if (!d.filter_term.empty() && !cto)
        d.fail(d.filter_term + ": match/mask filters apply only to QPI CTO_COUNT (event=0x138), not to " +
               ev.name);
    if (d.edge && d.thresh == 0)
        d.fail("edge needs thresh >= 1 (edge detection acts on the threshold comparison)");
    if (d.inv && d.thresh == 0)
        d.fail("inv needs thresh >= 1 (invert acts on the threshold comparison)");
    // The PCU (decisions.md B10, B11): occupancy events take occ_edge and
    // occ_invert instead of edge and inv; a band event takes its byte.
    const bool occupancy = d.box->occupancy && pcu_bits::occ_event.test(d.code);
    if ((d.occ_edge || d.occ_invert) && !occupancy)
        d.fail(std::string(d.occ_edge ? "occ_edge" : "occ_invert") +
               " applies to occupancy events (ev_sel bit 7: POWER_STATE_OCCUPANCY), not to " + ev.name);
    if (occupancy && (d.edge || d.inv))
        d.fail(std::string(d.edge ? "edge" : "inv") + " does not apply to an occupancy event: use " +
               (d.edge ? "occ_edge" : "occ_invert"));
    if ((d.occ_edge || d.occ_invert) && d.thresh == 0)
        d.fail("occ_edge and occ_invert need thresh >= 1 (they act on the threshold comparison)");
    if (d.band >= 0 && ev.band != d.band)
        d.fail("filter_band" + std::to_string(d.band) + ": " + ev.name + " reads " +
               (ev.band < 0 ? std::string("no band") : "band " + std::to_string(ev.band)));

    // The request filter (decisions.md B14): the fields the selected
    // sub-events compare, each term given for one of them (or stored only).
    uint8_t uses = d.tid_en ? request_field::tid : 0;
    for (unsigned in : cat.select(d.code, d.ext, d.umask).inputs) uses |= cat.input_filters(in);
    if (const uint8_t extra = d.req.compares & ~uses; extra) {
        const char* what = (extra & request_field::tid) ? "the thread without tid_en=1"
                           : (extra & request_field::state) ? "the line's state"
                           : (extra & request_field::nid)   ? "the target node"
                           : (extra & request_field::opc)   ? "the opcode"
                                                            : "the address";
        d.fail(d.req.first_term + ": " + ev.name + (d.umask ? "." + umask_names(ev, d.umask) : std::string()) +
               " does not compare " + what);
    }
    const request_values claim = claimed(d.box->requests, d.req, uses);
    s.req_mask = claim.mask;
    s.req_value = claim.value;

    s.event = *idx;
    s.ctl = static_cast<uint32_t>(cbo_bits::tid_en.put(d.tid_en) | ctl_bits::ev_sel.put(d.code) | ctl_bits::umask.put(d.umask) |
                                  ctl_bits::edge.put(d.edge) | ctl_bits::ext.put(d.ext) |
                                  ctl_bits::invert.put(d.inv) | d.box->thresh.put(d.thresh) |
                                  pcu_bits::occ_invert.put(d.occ_invert) | pcu_bits::occ_edge.put(d.occ_edge));
    s.band = ev.band;
    s.band_value = d.band_value;
    s.has_filter = cto;
    s.match = d.match;
    s.mask = d.mask;
    s.counters = static_cast<uint8_t>(ev.counters & box_counters);
    s.name = canonical_name(d, &ev, cto);
    return s;
}

std::string umask_choices(const event_def& ev) {
    std::vector<std::string> names;
    for (const auto& u : ev.umasks) names.push_back(u.name);
    return join(names, ", ");
}

// --- catalog names -------------------------------------------------------------------

event_spec parse_catalog_name(draft& d, const std::string& text, unsigned qpi_ports) {
    const auto comma = text.find(',');
    const std::string body = trim(text.substr(0, comma));
    const std::string mods = comma == std::string::npos ? std::string() : text.substr(comma + 1);

    const auto slash = body.find('/');
    if (slash == std::string::npos) {
        std::string kinds;  // the CPU's box kinds, a numbered one as "qpi0.."
        for (const box_desc& b : describe(d.cpu).boxes)
            kinds += (kinds.empty() ? "" : ", ") + std::string(to_string(b.kind)) + (numbered(b.kind) ? "0.." : "");
        d.fail("expected BOX/EVENT (box " + kinds + ") or a Linux perf PMU/event=...,umask=.../");
    }
    const std::string box = lower(trim(body.substr(0, slash)));
    std::string rest = trim(body.substr(slash + 1));

    // A box of any CPU's ("uncore" on ivb-ep is refused by name), or a
    // numbered kind's unit ("qpi2" where there are two).
    std::optional<std::pair<box_kind, unsigned>> named;
    for (unsigned k = 0; k < box_kind_count && !named; ++k) {
        const auto kind = static_cast<box_kind>(k);
        const std::string base = to_string(kind);
        if (!numbered(kind) && box == base) named = std::pair{kind, 0u};
        if (numbered(kind) && box.size() > base.size() && box.size() <= base.size() + 2 &&
            box.compare(0, base.size(), base) == 0 &&
            std::all_of(box.begin() + static_cast<std::ptrdiff_t>(base.size()), box.end(),
                        [](char c) { return c >= '0' && c <= '9'; }))
            named = std::pair{kind, static_cast<unsigned>(std::stoul(box.substr(base.size())))};
    }
    if (named)
        set_box(d, named->first, named->second, qpi_ports);
    else
        d.fail("unknown box '" + body.substr(0, slash) + "' (" + box_names(d.cpu) + ")" +
               did_you_mean(body.substr(0, slash), split_names(box_names(d.cpu))));
    if (rest.empty()) d.fail("no event after '" + body.substr(0, slash + 1) + "'");
    if (rest.find('/') != std::string::npos) d.fail("unexpected '/' in '" + rest + "'");

    std::string preset, mods_after_colon;
    if (auto colon = rest.find(':'); colon != std::string::npos) {
        preset = trim(rest.substr(colon + 1));
        rest = trim(rest.substr(0, colon));
        if (preset.empty()) d.fail("no filter preset after ':'");
        // perf's EVENT:modifier spelling: `:thresh=1`, `:edge:inv` are
        // modifiers (a preset name has no '='), as after a comma.
        bool modifiers = true;
        for (const std::string& m : split(preset, ':'))
            modifiers = modifiers && (m.find('=') != std::string::npos || iequal(trim(m), "edge") ||
                                      iequal(trim(m), "inv"));
        if (modifiers) {
            for (const std::string& m : split(preset, ':'))
                mods_after_colon += (mods_after_colon.empty() ? "" : ",") + trim(m);
            preset.clear();
        }
    }
    std::string name = rest, sub;
    if (auto dot = rest.find('.'); dot != std::string::npos) {
        name = trim(rest.substr(0, dot));
        sub = trim(rest.substr(dot + 1));
        if (sub.empty()) d.fail("no sub-event after '" + name + ".'");
    }
    if (istarts(name, name_prefix(d.kind))) name = name.substr(std::string(name_prefix(d.kind)).size());
    const std::string all_mods =
        mods_after_colon.empty() ? mods : mods.empty() ? mods_after_colon : mods_after_colon + "," + mods;
    const std::vector<term> terms = comma == std::string::npos && mods_after_colon.empty()
                                        ? std::vector<term>{}
                                        : split_terms(d, all_mods, "modifier");  // ("X," is an empty modifier)

    // The UCLK fixed counter: no event select, so only socket= applies.
    const std::optional<box_kind> fixed = fixed_of(d.kind);
    if (fixed && (d.kind == *fixed || iequal(name, "UCLK") || iequal(name, "CLOCKTICKS"))) {
        if (!iequal(name, "UCLK") && !iequal(name, "CLOCKTICKS"))
            d.fail(std::string(to_string(*fixed)) + " counts UCLK cycles only: its one event is UCLK, not '" +
                   name + "'");
        if (!sub.empty() || !preset.empty())
            d.fail("the UCLK fixed counter has no sub-events or filter");
        set_box(d, *fixed, 0, qpi_ports);
        d.fixed = true;
        for (const term& t : terms) {
            if (t.key != "socket")
                d.fail(t.text + ": the UCLK fixed counter has no event select, threshold, edge, "
                       "invert or filter");
            apply_common(d, t.key, t.value, t.text);
        }
        return finish(d);
    }

    // IVB-EP perfmon spellings of CTO_COUNT with a filter.
    const event_catalog& cat = d.catalog();
    if (d.kind == box_kind::qpi && (iequal(name, "MESSAGE") || iequal(name, "MATCH_MASK"))) {
        if (iequal(name, "MESSAGE")) {
            if (sub.empty()) d.fail("MESSAGE needs a filter preset, e.g. MESSAGE.DRS.AnyDataC");
            if (!preset.empty()) d.fail("MESSAGE." + sub + " already names a filter preset");
            preset = sub;
        } else if (!sub.empty()) {
            d.fail("MATCH_MASK takes its filter from match/mask modifiers, not '." + sub + "'");
        }
        sub.clear();
        name = "CTO_COUNT";
    }

    const auto idx = cat.find(name);
    if (!idx) {
        std::string reason = d.box_name() + " has no event '" + name + "' on " + to_string(d.cpu);
        std::string others;
        for (const cpu_desc& c : cpu_registry())
            if (c.key != d.cpu && c.box(d.kind) && catalog_for(d.kind, c.key).find(name))
                others += (others.empty() ? "" : ", ") + std::string(c.name);
        if (!others.empty()) reason += " (only " + others + " has it)";
        std::vector<std::string> names;
        for (const event_def& e : cat.events()) names.push_back(e.name);
        d.fail(reason + did_you_mean(name, names));
    }
    const event_def& ev = cat.events()[*idx];
    d.code = ev.code;
    d.ext = ev.ext;
    const bool cto = d.kind == box_kind::qpi && ev.ext && ev.code == d.box->cto_code;

    if (cto && !sub.empty() && preset.empty()) {  // CTO_COUNT.DRS.AnyDataC
        preset = sub;
        sub.clear();
    }
    if (!sub.empty()) {
        if (ev.umasks.empty()) d.fail(ev.name + " has no sub-events ('." + sub + "')");
        uint8_t umask = 0;
        for (const std::string& part : split(sub, '|')) {
            const std::string p = trim(part);
            const umask_def* found = nullptr;
            for (const auto& u : ev.umasks)
                if (!found && iequal(u.name, p)) found = &u;
            if (found) {
                umask = static_cast<uint8_t>(umask | found->value);
                continue;
            }
            if (p.size() == 4 && istarts(p, "bit") && p[3] >= '0' && p[3] <= '7' &&
                (ev.valid_umask() & (1u << (p[3] - '0')))) {
                umask = static_cast<uint8_t>(umask | (1u << (p[3] - '0')));
                continue;
            }
            std::vector<std::string> subs;
            for (const auto& u : ev.umasks) subs.push_back(u.name);
            d.fail(ev.name + " has no sub-event '" + p + "' (" + umask_choices(ev) + ")" + did_you_mean(p, subs));
        }
        d.umask = umask;
    } else if (!ev.umasks.empty() && !ev.umask0_all) {
        d.fail(ev.name + " needs a sub-event: " + umask_choices(ev));
    }

    if (!preset.empty()) {
        if (!cto)
            d.fail("'" + preset + "' is a CTO_COUNT filter preset, and " + ev.name +
                   " uses no filter");
        const filter_preset* p = cat.find_preset(preset);
        if (!p) {
            std::vector<std::string> names;
            for (const auto& q : cat.presets()) names.push_back(q.name);
            d.fail("no CTO_COUNT filter preset '" + preset + "'" + did_you_mean(preset, names));
        }
        // The preset first; modifiers after it refine it (e.g. match_dnid).
        d.match = uint64_t{p->match1} << 32 | p->match0;
        d.mask = uint64_t{p->mask1} << 32 | p->mask0;
    }
    for (const term& t : terms)
        if (!apply_common(d, t.key, t.value, t.text))
            d.fail("unknown modifier '" + t.text +
                   "' (thresh=, edge, inv, socket=, for CTO_COUNT match0=/match1=/mask0=/mask1=, "
                   "match=/mask=, config1=/config2=, match_*/mask_*, for the PCU occ_edge, occ_invert, "
                   "filter_band0..3=, for the caching agents tid_en and their filter_*=, for the home agents "
                   "filter_addr=, filter_opc=)");
    return finish(d);
}

// --- Linux perf syntax --------------------------------------------------------------

event_spec parse_perf(draft& d, const std::string& text, unsigned qpi_ports) {
    const auto open = text.find('/');
    if (open == std::string::npos) d.fail("expected PMU/terms/");
    const std::string pmu = trim(text.substr(0, open));
    const auto close = text.rfind('/');
    if (close == open) d.fail("missing the closing '/'");
    if (const std::string after = trim(text.substr(close + 1)); !after.empty())
        d.fail("nothing may follow the closing '/': '" + after + "'");
    const std::string body = text.substr(open + 1, close - open - 1);

    if (const auto box = box_of_pmu(pmu, d.cpu)) set_box(d, box->first, box->second, qpi_ports);
    else d.fail("unknown PMU '" + pmu + "' (" + pmu_names(d.cpu, qpi_ports) + ")");
    if (trim(body).empty()) d.fail("no terms between the slashes");

    // Linux's format: event is config:0-7 (QPI, and the PCU here: config:0-7,21), umask config:8-15.
    const bool qpi = d.box->has_ext;
    const unsigned event_bits = qpi ? 9 : 8;
    bool have_event = false;
    for (const term& t : split_terms(d, body, "term")) {
        auto value = [&]() -> uint64_t {
            if (!t.value) d.fail(t.text + " needs a value (" + t.key + "=N)");
            return parse_number(d, t.text, *t.value);
        };
        if (t.key == "event") {
            uint64_t v = value();
            if (v >> event_bits)
                d.fail(t.text + " does not fit " + pmu + "'s event field (" +
                       (qpi ? "config:0-7,21: 0x0-0x1ff" : "config:0-7: 0x0-0xff") + ")");
            d.code = static_cast<uint8_t>(v & 0xFF);
            d.ext = qpi && (v & 0x100);
            have_event = true;
        } else if (t.key == "umask") {
            uint64_t v = value();
            if (v > 0xFF) d.fail(t.text + " does not fit the umask field (config:8-15)");
            d.umask = static_cast<uint8_t>(v);
        } else if (t.key == "occ_sel" && d.box->occupancy) {  // the PCU: config:14-15
            uint64_t v = value();
            if (v > 3) d.fail(t.text + " does not fit occ_sel (config:14-15: 0-3)");
            d.umask = static_cast<uint8_t>((d.umask & 0x3F) | v << (pcu_bits::occ_sel.lo - ctl_bits::umask.lo));
        } else if (t.key == "config") {
            uint64_t v = value();
            namespace c = ctl_bits;
            const uint64_t allowed = c::ev_sel.mask() | c::umask.mask() | c::edge.mask() |
                                     (qpi ? c::ext.mask() : 0) | c::invert.mask() | d.box->thresh.mask() |
                                     (d.box->occupancy ? pcu_bits::occ_invert.mask() | pcu_bits::occ_edge.mask() : 0);
            if (const uint64_t bad = v & ~allowed)
                d.fail(t.text + " sets bits " + hex(bad) +
                       " that are not event, umask, edge, inv or thresh");
            d.code = static_cast<uint8_t>(c::ev_sel.get(v));
            d.umask = static_cast<uint8_t>(c::umask.get(v));
            d.edge = c::edge.test(v);
            d.ext = c::ext.test(v);
            set_inv(d, t.text, c::invert.test(v));
            d.thresh = static_cast<unsigned>(d.box->thresh.get(v));
            d.occ_invert = pcu_bits::occ_invert.test(v);
            d.occ_edge = pcu_bits::occ_edge.test(v);
            if (d.modifier_term.empty() && (d.edge || d.inv || d.thresh)) d.modifier_term = t.text;
            have_event = true;
        } else if (!apply_common(d, t.key, t.value, t.text)) {
            d.fail("unknown term '" + t.text + "' for " + pmu);
        }
    }
    if (!have_event) d.fail("no event= term");

    const uint16_t event_value = static_cast<uint16_t>(d.code | (d.ext ? 0x100 : 0));
    char ev_text[16];
    std::snprintf(ev_text, sizeof ev_text, qpi ? "0x%03x" : "0x%02x", event_value);

    // Linux: uncore_ubox/event=0xff/ (and uncore/event=0xff/ on Nehalem) is
    // the UCLK fixed counter.
    if (fixed_of(d.kind) && d.code == 0xFF) {
        if (d.umask) d.fail("event=0xff is the UCLK fixed counter, which has no umask");
        set_box(d, *fixed_of(d.kind), 0, qpi_ports);
        d.fixed = true;
        return finish(d);
    }

    const event_catalog& cat = d.catalog();
    if (!cat.find(d.code, d.ext)) {
        std::string reason = "event=" + std::string(ev_text) + " is not a " +
                             to_string(d.kind) + " event on " + to_string(d.cpu);
        if (qpi && !d.ext && d.code == d.box->cto_code)
            reason += " (CTO_COUNT is event=0x138: it needs the ext bit)";
        d.fail(reason);
    }
    const auto sel = cat.select(d.code, d.ext, d.umask);
    if (!sel.error.empty()) d.fail(sel.error);
    return finish(d);
}

}  // namespace

std::string event_spec::box_name() const { return box_label(kind, unit); }

std::string event_spec::local_name() const {
    auto slash = name.find('/');
    return slash == std::string::npos ? name : name.substr(slash + 1);
}

std::vector<std::string> expand_full_name(const std::string& text, cpu_model cpu, unsigned qpi_ports,
                                          const std::function<unsigned(box_kind)>& present) {
    const std::string t = trim(text);
    const std::string body = t.substr(0, t.find_first_of(",:"));
    if (body.find('/') != std::string::npos) return {t};
    // Intel's full names (UNC_Q_RxL_FLITS_G1.DRS_DATA) name a box type by
    // their prefix; perf counts them on every box of the type: so do we. The
    // longest prefix wins (UNC_R2_ before Nehalem's UNC_).
    const box_desc* best = nullptr;
    std::size_t best_len = 0;
    for (const box_desc& b : describe(cpu).boxes) {
        if (!b.events) continue;
        const std::string prefix = name_prefix(b.kind);
        if (prefix.size() > best_len && istarts(body, prefix) && catalog_for(b.kind, cpu).find(
                                                                     trim(body.substr(prefix.size(), body.find('.') - prefix.size())))) {
            best = &b;
            best_len = prefix.size();
        }
    }
    if (!best) return {t};  // (parse_event says what is wrong)
    std::vector<std::string> out;
    unsigned units = best->units;
    if (best->kind == box_kind::qpi) units = std::min(qpi_ports, units);
    else if (present && numbered(best->kind)) units = std::min(present(best->kind), units);
    if (units == 0) throw event_error(t + ": this machine has no " + std::string(to_string(best->kind)) + " box to count it on");
    for (unsigned u = 0; u < units; ++u) out.push_back(box_label(best->kind, u) + "/" + t);
    return out;
}

event_spec parse_event(const std::string& text, cpu_model cpu, unsigned qpi_ports) {
    draft d(text, cpu);
    const std::string t = trim(text);
    if (t.empty()) throw event_error("empty event specification");
    // (Nehalem's PMU is "uncore", like the catalog box: uncore/event=..,umask=../
    // is perf's syntax, uncore/QMC_WRITES.FULL_ANY a catalog name.)
    const std::string head = lower(t.substr(0, t.find('/')));
    if ((istarts(t, "uncore_") && head != "uncore_fixed") || (head == "uncore" && t.back() == '/'))
        return parse_perf(d, t, qpi_ports);
    return parse_catalog_name(d, t, qpi_ports);
}

}  // namespace pmonsim::driver
