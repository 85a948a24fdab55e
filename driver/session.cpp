#include "driver/session.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <tuple>

#include "desc/bits.h"
#include "desc/box_spec.h"

namespace pmonsim::driver {

namespace {

// Register addresses come from the model's register tables (one source of
// truth for both targets).
const register_def& reg(const register_table& t, reg_role role, unsigned index = 0) {
    for (const auto& r : t.regs)
        if (r.role == role && r.index == index) return r;
    throw session_error("no register for role in " + t.title);
}

// The registers a box owns (for QPI: the PMON function's and the packet
// filter's; the offsets are the same on every port).
// (Units of an MSR box have registers of their own: the caching agents'.)
const register_table& table_of(cpu_model cpu, box_kind kind, unsigned unit) { return spec_for(kind, cpu, unit).table; }

std::string hex(uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
    return b;
}


}  // namespace

pmon_session::pmon_session(target& t, topology topo)
    : t_(t), topo_(std::move(topo)), msr_table_(socket_msr_table(topo_.cpu)) {
    if (topo_.sockets.empty()) throw session_error("the topology has no socket");
    // The MSR boxes with MSRs of their own (the caching agents, the PCU):
    // every unit the CPU can have (one the machine lacks refuses the access,
    // and the setup is undone).
    for (const box_desc& b : describe(topo_.cpu).boxes)
        for (unsigned u = 0; u < (numbered(b.kind) ? b.units : 1u); ++u) {
            const register_table& t = spec_for(b.kind, topo_.cpu, u).table;
            if (!t.msr_space || t.regs.empty() || msr_table_.find(t.regs.front().offset)) break;  // (the socket's)
            msr_table_.regs.insert(msr_table_.regs.end(), t.regs.begin(), t.regs.end());
        }
}

std::size_t pmon_session::add(const std::string& text) {
    if (programmed_) throw session_error("events must be added before program()");
    unsigned ports = 0;
    for (const auto& s : topo_.sockets)
        for (unsigned p : s.qpi_ports) ports = std::max(ports, p + 1);
    event_spec e = parse_event(text, topo_.cpu, ports);
    // An event asked twice (by -e and by a metric, or twice in -e) takes
    // one counter and is read once, as perf does.
    for (std::size_t i = 0; i < events_.size(); ++i)
        if (events_[i].name == e.name && events_[i].socket == e.socket) return i;
    events_.push_back(std::move(e));
    return events_.size() - 1;
}

unsigned pmon_session::cpu_of(unsigned socket) const {
    const unsigned c = topo_.sockets.at(socket).first_cpu;
    if (c == socket_info::no_cpu) throw session_error("socket " + std::to_string(socket) + " has no CPU for MSR access");
    return c;
}

void pmon_session::msr_write(unsigned socket, uint32_t msr, uint64_t v) {
    // (Only the CPU's PMON MSRs: a wrong address here would reach a real
    // machine's other MSRs.)
    if (!msr_table_.find(msr)) {
        char b[96];
        std::snprintf(b, sizeof b, "MSR 0x%x is not a PMON register of %s: refusing to write to it", msr,
                      to_string(topo_.cpu));
        throw session_error(b);
    }
    if (recording_) {  // (an old value that cannot be read is not put back)
        uint64_t old = 0;
        if (t_.msr_read(cpu_of(socket), msr, old)) undo_.push_back({true, socket, {}, msr, old});
    }
    if (!t_.msr_write(cpu_of(socket), msr, v))
        throw session_error("wrmsr " + hex(msr) + " = " + hex(v) + " failed on CPU " + std::to_string(cpu_of(socket)));
}

uint64_t pmon_session::msr_read(unsigned socket, uint32_t msr) {
    uint64_t v = 0;
    if (!t_.msr_read(cpu_of(socket), msr, v))
        throw session_error("rdmsr " + hex(msr) + " failed on CPU " + std::to_string(cpu_of(socket)));
    return v;
}

void pmon_session::pci_write(const pci_address& a, uint32_t off, uint32_t v) {
    require_function(a);
    if (recording_) {
        uint64_t old = 0;
        if (t_.pci_read(a, off, 4, old)) undo_.push_back({false, 0, a, off, old});
    }
    if (!t_.pci_write(a, off, 4, v))
        throw session_error("PCI config write " + hex(off) + " = " + hex(v) + " failed at bus " + hex(a.bus) +
                            " device " + std::to_string(a.dev) + " function " + std::to_string(a.fn));
}

uint32_t pmon_session::pci_read(const pci_address& a, uint32_t off) {
    uint64_t v = 0;
    if (!t_.pci_read(a, off, 4, v))
        throw session_error("PCI config read " + hex(off) + " failed at bus " + hex(a.bus) + " device " +
                            std::to_string(a.dev) + " function " + std::to_string(a.fn));
    return static_cast<uint32_t>(v);
}

// The hardware target writes only to functions discovery found with their
// expected vendor and device IDs (topology.h): anything else at a computed
// address is refused, naming what is there.
void pmon_session::require_function(const pci_address& a) {
    for (const socket_info& s : topo_.sockets) {
        if (s.domain != a.domain || s.bus != a.bus) continue;
        if (a == r2pcie_address(s) && s.has_r2pcie) return;
        for (unsigned p : s.qpi_ports)
            if (a == qpi_address(s, p, qpi_function::pmon)) return;
        for (unsigned p : s.qpi_filters)
            if (a == qpi_address(s, p, qpi_function::filter)) return;
        for (const auto& [kind, unit] : s.pci_units)
            if (a == pmon_address(s, topo_.cpu, kind, unit)) return;
    }
    uint64_t id = 0;
    char found[32] = "nothing readable";
    if (t_.pci_read(a, 0, 4, id))
        std::snprintf(found, sizeof found, "%04x:%04x", static_cast<unsigned>(id & 0xFFFF),
                      static_cast<unsigned>((id >> 16) & 0xFFFF));
    char b[192];
    std::snprintf(b, sizeof b,
                  "%04x:%02x:%02x.%u is not a PMON function discovery found (%s there): refusing to write to it",
                  a.domain, a.bus, a.dev, a.fn, found);
    throw session_error(b);
}

// Puts back, last first, what the setup wrote before it failed (best effort:
// the failure may be the device itself).
void pmon_session::unwind() {
    recording_ = false;
    for (auto it = undo_.rbegin(); it != undo_.rend(); ++it)
        if (it->msr) t_.msr_write(cpu_of(it->socket), it->reg, it->old);
        else t_.pci_write(it->pci, it->reg, 4, it->old);
    undo_.clear();
}

pci_address pmon_session::pci_of(unsigned socket, box_kind kind, unsigned unit) const {
    const socket_info& s = topo_.sockets.at(socket);
    if (kind == box_kind::r2pcie) return r2pcie_address(s);
    if (kind == box_kind::qpi) return qpi_address(s, unit, qpi_function::pmon);
    return pmon_address(s, topo_.cpu, kind, unit);
}

// Stops or restarts a box's counters:
// - a PCI box by its BOX_CTL: frz, with frz_en where frz only acts with it
//   (SNB-EP), and the bits software must write as 1 (IVB-EP 17:16); reset
//   clears its controls and counters;
// - a Nehalem/Westmere box by the global enables (EN_PCn, EN_FC0) of the
//   counters the session placed on it, read-modify-write so that other
//   enables and the PMI settings stay; reset is program()'s business;
// - the UBox has neither: start() writes its events (see program()).
void pmon_session::box_freeze(unsigned socket, box_kind kind, unsigned unit, bool frozen, bool reset) {
    const box_spec& spec = spec_for(kind, topo_.cpu, unit);
    switch (describe(topo_.cpu).global) {
        case global_control::none:
        case global_control::ubox_freeze: {
            if (!spec.has_box_ctl) return;
            namespace b = box_ctl_bits;
            const register_def& r = reg(spec.table, reg_role::box_ctl);
            const uint64_t base = r.mask_of(attr::rv_w1) | (spec.freeze_needs_frz_en ? b::frz_en.mask() : 0);
            const uint64_t v =
                base | (frozen ? b::frz.mask() : 0) | (reset ? b::rst_ctrl.mask() | b::rst_ctrs.mask() : 0);
            if (spec.table.msr_space) msr_write(socket, r.offset, v);
            else pci_write(pci_of(socket, kind, unit), r.offset, static_cast<uint32_t>(v));
            return;
        }
        case global_control::uncore_global_ctrl: {
            uint64_t mine = 0;
            for (const placed& p : placed_)
                if (p.a.socket == socket && p.a.kind == kind)
                    mine |= spec.fixed ? nhm_bits::en_fc0.mask() : nhm_bits::en_pc.put(1ull << p.a.counter);
            const uint32_t ctl = reg(socket_msr_table(topo_.cpu), reg_role::global_ctl).offset;
            const uint64_t v = msr_read(socket, ctl);
            msr_write(socket, ctl, frozen ? v & ~mine : v | mine);
            return;
        }
    }
}

void pmon_session::recorded(const std::function<void()>& step) {
    recording_ = true;
    try {
        step();
    } catch (...) {
        unwind();
        throw;
    }
    recording_ = false;
}

void pmon_session::program() {
    undo_.clear();
    recorded([this] { program_boxes(); });
    programmed_ = true;
}

void pmon_session::program_boxes() {
    std::vector<assignment> as = schedule(events_, static_cast<unsigned>(topo_.sockets.size()));
    placed_.clear();
    for (const assignment& a : as) {
        const event_spec& e = events_[a.event];
        placed_.push_back({a, make_box_spec(e.kind, topo_.cpu, e.unit).width});
    }
    // Boxes in use, frozen and reset first (the manuals' steps a, b, e).
    std::set<std::tuple<unsigned, box_kind, unsigned>> boxes;
    for (const placed& p : placed_) boxes.insert({p.a.socket, p.a.kind, p.a.unit});
    for (const auto& [s, kind, unit] : boxes) box_freeze(s, kind, unit, true, true);
    // The PCU's band filter: the bytes of its band events (the scheduler
    // refused two values for one band).
    std::map<std::tuple<unsigned, box_kind, unsigned>, uint64_t> bands;
    for (const placed& p : placed_) {
        const event_spec& e = events_[p.a.event];
        if (e.band >= 0) bands[{p.a.socket, e.kind, e.unit}] |= pcu_bits::band[e.band].put(e.band_value);
    }
    for (const auto& [box, value] : bands) {
        const auto& [s, kind, unit] = box;
        msr_write(s, reg(spec_for(kind, topo_.cpu, unit).table, reg_role::band_filter).offset, value);
    }
    // The caching and home agents' request filters: what their events claim
    // (the scheduler refused disagreeing claims).
    std::map<std::tuple<unsigned, box_kind, unsigned>, std::array<uint64_t, 4>> filters;  // values, and which are used
    for (const placed& p : placed_) {
        const event_spec& e = events_[p.a.event];
        auto& f = filters[{p.a.socket, e.kind, e.unit}];
        for (std::size_t k = 0; k < e.req_mask.size(); ++k) {
            f[k] |= e.req_value[k];
            if (e.req_mask[k]) f[3] |= 1u << k;
        }
    }
    for (const auto& [box, f] : filters) {
        const auto& [s, kind, unit] = box;
        const register_table& t = spec_for(kind, topo_.cpu, unit).table;
        for (unsigned k = 0; k < 3; ++k) {
            if (!(f[3] & (1u << k))) continue;
            const uint32_t off = reg(t, reg_role::stored, k).offset;
            if (t.msr_space) msr_write(s, off, f[k]);
            else pci_write(pci_of(s, kind, unit), off, static_cast<uint32_t>(f[k]));
        }
    }
    for (const placed& p : placed_) {
        const event_spec& e = events_[p.a.event];
        const unsigned s = p.a.socket;
        const box_spec& spec = spec_for(e.kind, topo_.cpu, e.unit);
        const register_table& t = spec.table;
        if (spec.table.msr_space && spec.fixed) {
            msr_write(s, reg(t, reg_role::fixed_ctl).offset, 0);
            msr_write(s, reg(t, reg_role::fixed_ctr).offset, 0);
        } else if (spec.table.msr_space && spec.ev_sel0_is_idle) {
            // The UBox: no box control: enabled with ev_sel 0 ("enabled but
            // no event") until start() writes the event (327043-001 §2.1,
            // UBox note).
            msr_write(s, reg(t, reg_role::ctl, p.a.counter).offset, ctl_bits::en.mask());
            msr_write(s, reg(t, reg_role::ctr, p.a.counter).offset, 0);
        } else if (spec.table.msr_space) {
            // Nehalem/Westmere: stopped by its global enable (box_freeze).
            msr_write(s, reg(t, reg_role::ctl, p.a.counter).offset, e.ctl_enabled());
            msr_write(s, reg(t, reg_role::ctr, p.a.counter).offset, 0);
        } else {
            const pci_address a = pci_of(s, e.kind, e.unit);
            if (e.has_filter) {
                const pci_address f = qpi_address(topo_.sockets[s], e.unit, qpi_function::filter);
                pci_write(f, reg(t, reg_role::pkt_match0).offset, static_cast<uint32_t>(e.match));
                pci_write(f, reg(t, reg_role::pkt_match1).offset, static_cast<uint32_t>(e.match >> 32));
                pci_write(f, reg(t, reg_role::pkt_mask0).offset, static_cast<uint32_t>(e.mask));
                pci_write(f, reg(t, reg_role::pkt_mask1).offset, static_cast<uint32_t>(e.mask >> 32));
            }
            pci_write(a, reg(t, reg_role::ctl, p.a.counter).offset, e.ctl_enabled());
        }
    }
}

void pmon_session::start() {
    if (!programmed_) program();
    recorded([this] { start_boxes(); });  // (a failure undoes the start and the setup before it)
    undo_.clear();
    running_ = true;
}

void pmon_session::start_boxes() {
    for (placed& p : placed_) {
        const event_spec& e = events_[p.a.event];
        const box_spec& spec = spec_for(e.kind, topo_.cpu, e.unit);
        const register_table& t = spec.table;
        if (spec.table.msr_space && spec.fixed) msr_write(p.a.socket, reg(t, reg_role::fixed_ctl).offset, spec.en.mask());
        if (spec.ev_sel0_is_idle) msr_write(p.a.socket, reg(t, reg_role::ctl, p.a.counter).offset, e.ctl_enabled());
        p.last = 0;
        p.total = 0;
    }
    std::set<std::tuple<unsigned, box_kind, unsigned>> boxes;
    for (const placed& p : placed_) boxes.insert({p.a.socket, p.a.kind, p.a.unit});
    for (const auto& [s, kind, unit] : boxes) box_freeze(s, kind, unit, false);
}

uint64_t pmon_session::read_counter(const placed& p) {
    const event_spec& e = events_[p.a.event];
    const register_table& t = table_of(topo_.cpu, e.kind, e.unit);
    if (t.msr_space)
        return msr_read(p.a.socket, reg(t, e.fixed ? reg_role::fixed_ctr : reg_role::ctr, p.a.counter).offset);
    const pci_address a = pci_of(p.a.socket, e.kind, e.unit);
    const uint32_t off = reg(t, reg_role::ctr, p.a.counter).offset;
    const uint64_t lo = pci_read(a, off), hi = pci_read(a, off + 4);
    return (hi << 32) | lo;
}

uint32_t pmon_session::read_status(unsigned socket, box_kind kind, unsigned unit) {
    // Only where a status bit means "this counter overflowed with ov_en"
    // (without ov_en, any carry sets it and the wrap check covers it).
    const box_spec& spec = spec_for(kind, topo_.cpu, unit);
    if (!spec.has_ov_en || !spec.has_box_status || spec.status_on_any_carry) return 0;
    const register_def& r = reg(table_of(topo_.cpu, kind, unit), reg_role::box_status);
    if (spec.table.msr_space) return static_cast<uint32_t>(msr_read(socket, r.offset));
    return pci_read(pci_of(socket, kind, unit), r.offset);
}

void pmon_session::clear_status(unsigned socket, box_kind kind, unsigned unit, uint32_t bits) {
    const register_table& t = table_of(topo_.cpu, kind, unit);
    const register_def& r = reg(t, reg_role::box_status);
    if (t.msr_space) msr_write(socket, r.offset, bits);
    else pci_write(pci_of(socket, kind, unit), r.offset, bits);
}

std::vector<pmon_session::reading> pmon_session::read() {
    std::vector<reading> out;
    // Box by box: freeze, read its counters and status, unfreeze.
    std::set<std::tuple<unsigned, box_kind, unsigned>> boxes;
    for (const placed& p : placed_) boxes.insert({p.a.socket, p.a.kind, p.a.unit});
    for (const auto& [s, kind, unit] : boxes) {
        if (running_) box_freeze(s, kind, unit, true);
        const uint32_t status = read_status(s, kind, unit);
        uint32_t seen = 0;
        for (placed& p : placed_) {
            if (p.a.socket != s || p.a.kind != kind || p.a.unit != unit) continue;
            const uint64_t raw = read_counter(p) & width_mask(p.width);
            const uint64_t delta = (raw - p.last) & width_mask(p.width);
            p.last = raw;
            p.total += delta;
            const bool ov = (status >> p.a.counter) & 1u;
            if (ov) seen |= 1u << p.a.counter;
            out.push_back({p.a.event, s, events_[p.a.event].box_name(), p.a.counter, delta, p.total, ov});
        }
        if (seen) clear_status(s, kind, unit, seen);
        if (running_) box_freeze(s, kind, unit, false);
    }
    // In the order the events were added (perf prints in -e order), each
    // event's sockets in turn; the boxes were read box by box above.
    std::stable_sort(out.begin(), out.end(), [](const reading& a, const reading& b) {
        return a.event != b.event ? a.event < b.event : a.socket < b.socket;
    });
    return out;
}

void pmon_session::stop() {
    std::set<std::tuple<unsigned, box_kind, unsigned>> boxes;
    for (const placed& p : placed_) boxes.insert({p.a.socket, p.a.kind, p.a.unit});
    for (const auto& [s, kind, unit] : boxes) box_freeze(s, kind, unit, true);
    running_ = false;
}

double pmon_session::qpi_rate_gts(unsigned socket, unsigned port) {
    const socket_info& s = topo_.sockets.at(socket);
    if (std::find(s.qpi_misc.begin(), s.qpi_misc.end(), port) == s.qpi_misc.end()) return 0;
    uint64_t v = 0;
    if (!t_.pci_read(qpi_address(s, port, qpi_function::misc), 0xD4, 4, v)) return 0;
    const unsigned code = v & 7u;
    return code ? 4.0 + 0.8 * code : 0.0;
}

}  // namespace pmonsim::driver
