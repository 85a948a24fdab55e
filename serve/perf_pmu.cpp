#include "serve/perf_pmu.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <map>

namespace pmonsim::serve {

namespace {

constexpr uint64_t kEnable = ctl_bits::en.mask();
constexpr uint32_t kBoxFreeze = box_ctl_bits::frz.mask();
// The driver's box init: reset controls and counters, obey freeze
// (SNBEP_PMON_BOX_CTL_INT, and IVBEP_PMON_BOX_CTL_INT which is the same).
constexpr uint32_t kBoxInit = box_ctl_bits::rst_ctrl.mask() | box_ctl_bits::rst_ctrs.mask() | box_ctl_bits::frz_en.mask();
constexpr uint64_t kFixedEvent = 0xff;        // UNCORE_FIXED_EVENT
constexpr uint64_t kPollPs = 60'000'000'000'000ull;  // the driver's hrtimer: 60 s
// perf_event_attr bit fields the uncore driver refuses: exclude_user,
// _kernel, _hv, _idle (bits 4-7), exclude_host, _guest (19, 20); freq (10).
constexpr uint64_t kExcludeBits = 0xF0ull | 1ull << 19 | 1ull << 20;
constexpr uint64_t kFreqBit = 1ull << 10;

std::string range(unsigned lo, unsigned hi) {
    return lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi);
}

std::string no_underscores(std::string s) {
    std::string o;
    for (char c : s)
        if (c != '_') o += c;
    return o;
}

// The kernel's format names for the counter control fields.
const char* format_name(const field_def& f) {
    if (f.is(ctl_bits::ev_sel)) return "event";
    if (f.is(ctl_bits::umask)) return "umask";
    if (f.is(ctl_bits::edge)) return "edge";
    if (f.is(ctl_bits::invert)) return "inv";
    if (f.is(ctl_bits::thresh)) return f.name == "cmask" ? "cmask" : "thresh";  // (Nehalem: cmask)
    if (f.is(ctl_bits::thresh5)) return "thresh";
    if (f.is(pcu_bits::occ_sel)) return "occ_sel";
    if (f.is(pcu_bits::occ_invert)) return "occ_invert";
    if (f.is(pcu_bits::occ_edge)) return "occ_edge";
    if (f.is(cbo_bits::tid_en)) return "tid_en";
    return nullptr;
}

const register_def* with_role(const register_table& t, reg_role role, unsigned index = 0) {
    for (const auto& r : t.regs)
        if (r.role == role && r.index == index) return &r;
    return nullptr;
}

unsigned width_of(const register_def& ctr) {
    for (const auto& f : ctr.fields)
        if (f.name == "event_count") return f.hi + 1u;
    return 48;
}

// Counters, controls, event mask and format of a box from its table.
void describe_box(presented_pmu& p, const register_table& t) {
    for (unsigned i = 0; const register_def* c = with_role(t, reg_role::ctl, i); ++i) {
        p.ctl.push_back(c->offset);
        const register_def* r = with_role(t, reg_role::ctr, i);
        p.ctr.push_back(r ? r->offset : 0);
        if (r) p.ctr_bits = width_of(*r);
    }
    if (const register_def* b = with_role(t, reg_role::box_ctl)) p.box_ctl = b->offset;
    // (A fixed counter beside general ones has the index after theirs.)
    auto fixed = [&](reg_role role) {
        const register_def* r = with_role(t, role, static_cast<unsigned>(p.ctl.size()));
        return r ? r : with_role(t, role);
    };
    if (const register_def* f = fixed(reg_role::fixed_ctl)) {
        p.fixed_ctl = f->offset;
        for (const auto& x : f->fields)
            if (x.is(ctl_bits::en) || x.is(nhm_bits::fixed_en)) p.fixed_enable = bit_mask(x.hi, x.lo);
    }
    // Nehalem/Westmere: the driver's enable_box/disable_box write GLOBAL_CTRL.
    if (const register_def* g = with_role(t, reg_role::global_ctl))
        for (const auto& x : g->fields)
            if (x.is(nhm_bits::en_pc) || x.is(nhm_bits::en_fc0)) {
                p.global_ctl = g->offset;
                p.global_enable |= bit_mask(x.hi, x.lo);
            }
    if (const register_def* f = fixed(reg_role::fixed_ctr)) {
        p.fixed_ctr = f->offset;
        p.fixed_bits = width_of(*f);
    }
    const register_def& ctl0 = *with_role(t, reg_role::ctl, 0);
    bool ext = false;
    for (const auto& f : ctl0.fields) ext |= f.is(ctl_bits::ext);
    for (const auto& f : ctl0.fields) {
        const bool is_ext = f.is(ctl_bits::ext);
        const char* name = format_name(f);
        if (!name && !is_ext) continue;
        p.event_mask |= ((f.hi == 63 ? ~0ull : (1ull << (f.hi + 1)) - 1) >> f.lo) << f.lo;
        if (!name) continue;
        std::string spec = "config:" + range(f.lo, f.hi);
        if (f.is(ctl_bits::ev_sel) && ext) spec += "," + std::to_string(ctl_bits::ext.lo);  // Linux's event_ext: one name for both selects
        p.formats.push_back({name, spec});
    }
}

// QPI packet match/mask: config1 is MATCH1:MATCH0, config2 MASK1:MASK0 (Linux's layout).
void describe_filter(presented_pmu& p, const register_table& t) {
    const register_def* m0 = with_role(t, reg_role::pkt_match0);
    const register_def* m1 = with_role(t, reg_role::pkt_match1);
    const register_def* k0 = with_role(t, reg_role::pkt_mask0);
    if (!m0 || !m1 || !k0) return;
    p.match0 = m0->offset;
    p.mask0 = k0->offset;
    for (const auto& [prefix, config] : {std::pair{"match", "config1"}, {"mask", "config2"}}) {
        for (const auto& [r, base] : {std::pair<const register_def*, unsigned>{m0, 0u}, {m1, 32u}})
            for (const auto& f : r->fields)
                if (f.a != attr::rv)
                    p.formats.push_back({std::string(prefix) + "_" + no_underscores(f.name),
                                         std::string(config) + ":" + range(f.lo + base, f.hi + base)});
        p.formats.push_back({std::string(prefix) + "0", std::string(config) + ":0-31"});
        p.formats.push_back({std::string(prefix) + "1", std::string(config) + ":32-63"});
    }
}

// The PCU's band filter: config1's bytes 0-3 are bands 0-3 (Linux's filter_band0..3).
void describe_bands(presented_pmu& p, const register_table& t) {
    const register_def* f = with_role(t, reg_role::band_filter);
    if (!f) return;
    p.band_filter = f->offset;
    for (unsigned k = 0; k < 4; ++k)
        p.formats.push_back({"filter_band" + std::to_string(k),
                             "config1:" + range(pcu_bits::band[k].lo, pcu_bits::band[k].hi)});
}

// The driver's named events (its event_descs), from the box's descriptor: a
// box type without any has no events/ directory.
void describe_events(presented_pmu& p, cpu_model cpu) {
    if (const box_desc* b = describe(cpu).box(p.kind))
        for (const auto& a : b->linux_events) p.events.push_back({a.name, a.value});
}

}  // namespace

std::vector<presented_pmu> presented_pmus(uncore_system& sys) {
    std::vector<presented_pmu> out;
    uncore_socket& s = sys.socket(0);
    uint32_t type = kFirstUncoreType;
    // (The socket's UBox/global MSRs, without the caching agents' own.)
    const register_table socket_msrs = socket_msr_table(sys.config().cpu);
    if (with_role(socket_msrs, reg_role::ctl)) {
        // The MSR box: Linux's uncore_ubox, or Nehalem's single "uncore".
        const box_module* general = s.boxes().front();
        presented_pmu p;
        p.kind = general->core().spec().kind;
        p.name = linux_pmu(p.kind);
        p.type = type++;
        p.msr = true;
        describe_box(p, socket_msrs);
        describe_events(p, sys.config().cpu);
        out.push_back(p);
    }
    for (const auto& f : s.pci_functions()) {
        if (!with_role(f.table, reg_role::ctl)) continue;
        presented_pmu p;
        // A box of several ("qpi0") is "uncore_qpi_0", as the driver names a type's boxes.
        p.kind = f.box->core().spec().kind;
        p.name = linux_pmu_name(pmonsim::describe(sys.config().cpu), p.kind, f.unit);
        p.type = type++;
        p.msr = false;
        p.dev = f.dev;
        p.fn = f.fn;
        describe_box(p, f.table);
        for (const auto& g : s.pci_functions())
            if (g.dev == f.dev && with_role(g.table, reg_role::pkt_match0)) {
                p.filter_dev = static_cast<int>(g.dev);
                p.filter_fn = static_cast<int>(g.fn);
                describe_filter(p, g.table);
            }
        describe_events(p, sys.config().cpu);
        out.push_back(p);
    }
    // The MSR boxes with registers of their own: the caching agents, an MSR
    // PMU each, uncore_cbox_N (in unit order), and the PCU's uncore_pcu,
    // after the others (whose types stay as they were).
    std::map<box_kind, unsigned> next_unit;
    for (box_module* b : s.boxes()) {
        const box_spec& spec = b->core().spec();
        if (!spec.table.msr_space || socket_msrs.find(spec.table.regs.front().offset)) continue;
        presented_pmu p;
        p.kind = spec.kind;
        p.name = linux_pmu_name(pmonsim::describe(sys.config().cpu), spec.kind, next_unit[spec.kind]++);
        p.type = type++;
        p.msr = true;
        describe_box(p, spec.table);
        describe_bands(p, spec.table);
        if (const cbo_filters f = pmonsim::describe(sys.config().cpu).need(spec.kind).filters; f != cbo_filters::none) {
            p.cbo.emplace(f, spec.table);
            for (const auto& [name, format] : p.cbo->formats()) p.formats.push_back({name, format});
        }
        describe_events(p, sys.config().cpu);
        out.push_back(p);
    }
    return out;
}

std::vector<std::pair<std::string, std::string>> pmu_files(const presented_pmu& p, const std::string& cpumask) {
    std::vector<std::pair<std::string, std::string>> f;
    f.push_back({"type", std::to_string(p.type) + "\n"});
    f.push_back({"cpumask", cpumask + "\n"});
    f.push_back({"perf_event_mux_interval_ms", "0\n"});
    for (const auto& x : p.formats) f.push_back({"format/" + x.name, x.spec + "\n"});
    // The driver prints an event's string without a newline (format/ files have one).
    for (const auto& [name, value] : p.events) f.push_back({"events/" + name, value});
    return f;
}

// --- counting --------------------------------------------------------------------

perf_counters::perf_counters(uncore_system& sys, driver::target& t, unsigned cpus_per_socket, log_fn log)
    : sys_(sys), t_(t), cpus_per_socket_(cpus_per_socket), log_(std::move(log)), pmus_(presented_pmus(sys)) {}

// The driver's register accesses, logged like a tool's (on the socket's first CPU, or its PMON function).
bool perf_counters::reg_read(const presented_pmu& p, unsigned socket, uint32_t reg, unsigned size, uint64_t& v) {
    bool ok;
    if (p.msr) {
        ok = t_.msr_read(socket * cpus_per_socket_, reg, v);
    } else {
        const driver::pci_address a{0, static_cast<uint8_t>(sys_.config().bus_of(socket)),
                                    static_cast<uint8_t>(p.dev), static_cast<uint8_t>(p.fn)};
        ok = t_.pci_read(a, reg, size, v);
    }
    access_log(p, socket, false, reg, size, v);
    return ok;
}

void perf_counters::reg_write(const presented_pmu& p, unsigned socket, uint32_t reg, unsigned size, uint64_t v) {
    if (p.msr) {
        t_.msr_write(socket * cpus_per_socket_, reg, v);
    } else {
        const driver::pci_address a{0, static_cast<uint8_t>(sys_.config().bus_of(socket)),
                                    static_cast<uint8_t>(p.dev), static_cast<uint8_t>(p.fn)};
        t_.pci_write(a, reg, size, v);
    }
    access_log(p, socket, true, reg, size, v);
}

void perf_counters::access_log(const presented_pmu& p, unsigned socket, bool write, uint32_t reg, unsigned size,
                               uint64_t v) {
    char line[128];
    if (p.msr)
        std::snprintf(line, sizeof line, "perf: %s cpu %u 0x%x %s 0x%llx", write ? "wrmsr" : "rdmsr",
                      socket * cpus_per_socket_, reg, write ? "<-" : "->", static_cast<unsigned long long>(v));
    else
        std::snprintf(line, sizeof line, "perf: config %s %02x:%02x.%u 0x%x/%u %s 0x%llx", write ? "write" : "read",
                      sys_.config().bus_of(socket), p.dev, p.fn, reg, size, write ? "<-" : "->",
                      static_cast<unsigned long long>(v));
    log_(line);
}

// The driver's disable_box/enable_box: a read-modify-write of BOX_CTL.frz
// (the UBox has no box control: nothing).
void perf_counters::freeze(const presented_pmu& p, unsigned socket, bool on) {
    if (p.global_ctl) {  // nhm_uncore_msr_disable_box / enable_box
        reg_write(p, socket, p.global_ctl, 8, on ? 0 : p.global_enable);
        return;
    }
    if (!p.box_ctl) return;
    uint64_t v = 0;
    reg_read(p, socket, p.box_ctl, 4, v);
    v = on ? v | kBoxFreeze : v & ~uint64_t{kBoxFreeze};
    reg_write(p, socket, p.box_ctl, 4, v);
}

uint64_t perf_counters::read_counter(const event& e) {
    const presented_pmu& p = pmus_[e.pmu];
    uint64_t v = 0;
    if (e.slot == -2) {
        reg_read(p, e.socket, p.fixed_ctr, 8, v);
    } else if (p.msr) {
        reg_read(p, e.socket, p.ctr[e.slot], 8, v);
    } else {  // two dwords, low then high, as the driver reads them
        uint64_t lo = 0, hi = 0;
        reg_read(p, e.socket, p.ctr[e.slot], 4, lo);
        reg_read(p, e.socket, p.ctr[e.slot] + 4, 4, hi);
        v = (hi & 0xFFFFFFFF) << 32 | (lo & 0xFFFFFFFF);
    }
    return v;
}

// The delta since the last read, in the counter's width (a wrap is a small delta).
void perf_counters::update(event& e) {
    if (e.slot == -1) return;
    const presented_pmu& p = pmus_[e.pmu];
    const unsigned shift = 64 - (e.slot == -2 ? p.fixed_bits : p.ctr_bits);
    const uint64_t now = read_counter(e);
    e.count += ((now << shift) - (e.prev << shift)) >> shift;
    e.prev = now;
}

void perf_counters::settle_times(event& e, uint64_t now_ps) {
    if (e.enabled) e.enabled_ps += now_ps - e.since_ps;
    if (e.slot != -1) e.running_ps += now_ps - e.since_ps;
    e.since_ps = now_ps;
}

// The lowest free counter the event may use (the catalog's counter mask), the
// fixed counter (-2) for the fixed event, or -1.
uint32_t perf_counters::allowed(const event& e) const {
    const presented_pmu& p = pmus_[e.pmu];
    uint32_t allowed = (1u << p.ctl.size()) - 1;
    const event_catalog& cat = catalog_for(p.kind, sys_.config().cpu);
    if (auto i = cat.find(static_cast<uint8_t>(e.config & 0xff), (e.config >> 21) & 1))
        allowed &= cat.events()[*i].counters;
    return allowed;
}

// Linux's uncore_assign_events: adding events places every general event of
// the box again (its fast path never holds for an event not yet placed), those
// with the fewest allowed counters first, each on its lowest free allowed
// counter (perf_assign_events). The counters, in `es`' order, or none if they
// do not all fit.
std::optional<std::vector<int>> perf_counters::assign(const std::vector<event*>& es) const {
    std::vector<int> slot(es.size(), -1);
    std::vector<size_t> order(es.size());
    for (size_t k = 0; k < es.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return __builtin_popcount(allowed(*es[a])) < __builtin_popcount(allowed(*es[b]));
    });
    uint32_t busy = 0;
    for (size_t k : order) {
        const uint32_t free = allowed(*es[k]) & ~busy;
        if (!free) return std::nullopt;
        slot[k] = __builtin_ctz(free);
        busy |= 1u << slot[k];
    }
    return slot;
}

// Puts events of one box (a group, or one event) on counters, all or none,
// as the kernel schedules a group; with no room they stay enabled, not running.
void perf_counters::run(const std::vector<event*>& es, uint64_t now_ps) {
    if (es.empty()) return;
    const presented_pmu& p = pmus_[es[0]->pmu];
    const unsigned socket = es[0]->socket;
    box_state& b = boxes_[{es[0]->pmu, socket}];
    bool fixed_busy = b.fixed_busy;
    uint64_t users = b.filter_users, c1 = b.config1, c2 = b.config2;
    uint64_t bands = b.bands;
    unsigned band_users[4];
    std::copy(std::begin(b.band_users), std::end(b.band_users), band_users);
    cbox_filter_use cbo = b.cbo;
    // The general counters: the box's running events and the new ones, placed again.
    std::vector<event*> general;
    for (auto& [id, x] : events_)
        if (x.pmu == es[0]->pmu && x.socket == socket && x.slot >= 0) general.push_back(&x);
    const size_t running = general.size();
    for (event* e : es)
        if (!e->fixed) general.push_back(e);
    const std::optional<std::vector<int>> placed = assign(general);
    std::vector<int> slots;
    size_t next_general = running;  // the new general events follow the running ones, in `es`' order
    for (event* e : es) {
        int slot = -1;
        if (e->fixed) slot = fixed_busy ? -1 : -2;
        else if (placed) slot = (*placed)[next_general++];
        const bool filter_ok = !e->filter || users == 0 || (c1 == e->config1 && c2 == e->config2);
        if (e->band >= 0) relocate_band(*e, bands, band_users);
        const uint64_t byte = e->band >= 0 ? pcu_bits::band[e->band].mask() : 0;
        const bool band_ok = e->band < 0 || band_users[e->band] == 0 || ((bands ^ e->config1) & byte) == 0;
        const bool cbo_ok = !e->cbo_groups || cbo.take(*p.cbo, e->cbo_groups, e->config1);
        if (slot == -1 || !filter_ok || !band_ok || !cbo_ok) {
            log_("perf: no counter free for the event on " + p.name + " socket " + std::to_string(socket) +
                 ": enabled, not running");
            for (event* x : es) settle_times(*x, now_ps);
            return;
        }
        if (slot == -2) fixed_busy = true;
        if (e->filter) {
            ++users;
            c1 = e->config1;
            c2 = e->config2;
        }
        if (e->band >= 0) {
            ++band_users[e->band];
            bands = (bands & ~byte) | (e->config1 & byte);
        }
        slots.push_back(slot);
    }
    freeze(p, socket, true);
    // Running events whose counter changed move: all stop, then start on
    // their new counters (uncore_pmu_event_add's two loops).
    uint32_t busy = 0;
    std::vector<size_t> moved;
    for (size_t k = 0; placed && k < running; ++k) {
        event& e = *general[k];
        busy |= 1u << (*placed)[k];
        if ((*placed)[k] == e.slot) continue;
        reg_write(p, socket, p.ctl[e.slot], p.msr ? 8 : 4, e.config);
        update(e);
        moved.push_back(k);
    }
    for (size_t k : moved) {
        event& e = *general[k];
        e.slot = (*placed)[k];
        e.prev = read_counter(e);
        reg_write(p, socket, p.ctl[e.slot], p.msr ? 8 : 4, e.config | kEnable);
    }
    for (int s : slots)
        if (s >= 0) busy |= 1u << s;
    for (size_t k = 0; k < es.size(); ++k) {
        event& e = *es[k];
        settle_times(e, now_ps);
        e.slot = slots[k];
        e.prev = read_counter(e);
        if (e.filter) {
            // The packet match/mask registers, in the QPI port's filter function.
            presented_pmu f = p;
            f.dev = static_cast<unsigned>(p.filter_dev);
            f.fn = static_cast<unsigned>(p.filter_fn);
            reg_write(f, socket, p.match0, 4, e.config1 & 0xFFFFFFFF);
            reg_write(f, socket, p.match0 + 4, 4, e.config1 >> 32);
            reg_write(f, socket, p.mask0, 4, e.config2 & 0xFFFFFFFF);
            reg_write(f, socket, p.mask0 + 4, 4, e.config2 >> 32);
        }
        if (e.band >= 0) reg_write(p, socket, p.band_filter, 8, bands);  // every band in use
        if (e.cbo_groups)  // the filter of every event in use (ivbep_cbox_enable_event)
            for (const cbox_filter::reg& r : p.cbo->registers())
                reg_write(p, socket, p.box_ctl + r.msr, 8, (cbo.config >> r.shift) & 0xFFFFFFFFu);
        if (e.slot == -2) reg_write(p, socket, p.fixed_ctl, 8, p.fixed_enable);
        else reg_write(p, socket, p.ctl[e.slot], p.msr ? 8 : 4, e.config | kEnable);
    }
    freeze(p, socket, false);
    b.busy = busy;
    b.fixed_busy = fixed_busy;
    b.filter_users = users;
    b.config1 = c1;
    b.config2 = c2;
    b.bands = bands;
    std::copy(std::begin(band_users), std::end(band_users), b.band_users);
    b.cbo = cbo;
}

// The PCU driver's snbep_pcu_get_constraint: a band event whose byte another
// event holds with another value moves to the next band free for its value,
// its event select and byte with it (snbep_pcu_alter_er).
void perf_counters::relocate_band(event& e, uint64_t bands, const unsigned users[4]) const {
    const uint64_t value = pcu_bits::band[e.band].get(e.config1);
    for (int k = 0; k < 4; ++k) {
        const int idx = (e.band + k) % 4;
        if (users[idx] && pcu_bits::band[idx].get(bands) != value) continue;
        e.config = (e.config & ~ctl_bits::ev_sel.mask()) | ctl_bits::ev_sel.put(0x0B + static_cast<unsigned>(idx));
        e.config1 = pcu_bits::band[idx].put(value);
        e.band = idx;
        return;
    }
}

// Takes running events of one box off their counters (they stay enabled).
void perf_counters::halt(const std::vector<event*>& es, uint64_t now_ps) {
    bool frozen = false;
    for (event* ep : es) {
        event& e = *ep;
        settle_times(e, now_ps);
        if (e.slot == -1) continue;
        const presented_pmu& p = pmus_[e.pmu];
        box_state& b = boxes_[{e.pmu, e.socket}];
        if (!frozen) freeze(p, e.socket, true);
        frozen = true;
        if (e.slot == -2) reg_write(p, e.socket, p.fixed_ctl, 8, 0);
        else reg_write(p, e.socket, p.ctl[e.slot], p.msr ? 8 : 4, e.config);
        update(e);
        if (e.slot == -2) b.fixed_busy = false;
        else b.busy &= ~(1u << e.slot);
        if (e.filter && b.filter_users) --b.filter_users;
        if (e.band >= 0 && b.band_users[e.band]) --b.band_users[e.band];
        b.cbo.give_back(e.cbo_groups);
        e.slot = -1;
    }
    if (frozen) freeze(pmus_[es[0]->pmu], es[0]->socket, false);
}

// A group's events: its leader first, then its members in the order opened.
std::vector<perf_counters::event*> perf_counters::group_of(uint64_t leader) {
    std::vector<event*> g;
    for (auto& [id, e] : events_)
        if (id == leader || e.leader == leader) g.push_back(&e);
    return g;
}

// ENABLE: a leader runs with its enabled members; a member runs once its leader does.
void perf_counters::enable(uint64_t id, event& e, uint64_t now_ps) {
    settle_times(e, now_ps);
    e.enabled = true;
    if (e.leader) {
        auto l = events_.find(e.leader);
        if (l != events_.end() && l->second.slot != -1) run({&e}, now_ps);
        return;
    }
    std::vector<event*> g;
    for (event* x : group_of(id))
        if (x->enabled && x->slot == -1) g.push_back(x);
    run(g, now_ps);
}

// DISABLE: a leader takes its whole group off the counters; a member only itself.
void perf_counters::disable(uint64_t id, event& e, uint64_t now_ps) {
    halt(e.leader ? std::vector<event*>{&e} : group_of(id), now_ps);
    e.enabled = false;
}

int perf_counters::open(const wire::perf_attr& a, pid_t owner, uint64_t now_ps, uint64_t& id) {
    unsigned pmu = 0;
    while (pmu < pmus_.size() && pmus_[pmu].type != a.type) ++pmu;
    if (pmu == pmus_.size()) return core_pmu::serves(a.type) ? core_.open(a, owner, now_ps, id) : ENOENT;
    const presented_pmu& p = pmus_[pmu];
    const unsigned cpus = sys_.config().sockets * cpus_per_socket_;
    // Uncore events count a socket, not a task; sampling and privilege-level
    // filters have no meaning there (the driver's event_init refuses them).
    if (a.pid != -1 || a.cpu < 0 || static_cast<unsigned>(a.cpu) >= cpus) return EINVAL;
    if (a.sample_period || (a.flags & (kExcludeBits | kFreqBit))) return EINVAL;
    event e{};
    e.owner = owner;
    e.pmu = pmu;
    e.socket = static_cast<unsigned>(a.cpu) / cpus_per_socket_;  // (it counts on the socket's cpumask CPU)
    e.fixed = a.config == kFixedEvent && p.fixed_ctl;
    if (a.config == kFixedEvent && !p.fixed_ctl) return EINVAL;
    e.config = e.fixed ? 0 : a.config & p.event_mask;
    e.filter = p.filter_dev >= 0 && (e.config & 0xff) == 0x38;  // the QPI driver's hw_config: CTO_COUNT
    e.config1 = e.filter ? a.config1 : 0;
    e.config2 = e.filter ? a.config2 : 0;
    // The PCU's band events take their byte of config1 (snbep_pcu_hw_config).
    if (p.band_filter && !e.fixed) {
        const event_catalog& cat = catalog_for(p.kind, sys_.config().cpu);
        if (auto i = cat.find(static_cast<uint8_t>(e.config & 0xff), (e.config >> ctl_bits::ext.lo) & 1))
            if (cat.events()[*i].band >= 0) {
                e.band = cat.events()[*i].band;
                e.config1 = a.config1 & pcu_bits::band[e.band].mask();
            }
    }
    // A caching agent's filter groups (snbep/ivbep_cbox_hw_config).
    if (p.cbo && !e.fixed) {
        e.cbo_groups = p.cbo->groups_of(e.config);
        e.config1 = a.config1 & p.cbo->mask_of(e.cbo_groups);
    }
    e.since_ps = now_ps;
    if (a.group) {
        // A member joins a leader of the same box (the same PMU, counting the
        // same socket), and the group must fit the box's counters.
        auto l = events_.find(a.group);
        if (l == events_.end() || l->second.leader || l->second.pmu != pmu || l->second.socket != e.socket)
            return EINVAL;
        unsigned general = e.fixed ? 0 : 1, fixed = e.fixed ? 1 : 0;
        for (const event* x : group_of(a.group)) (x->fixed ? fixed : general) += 1;
        if (general > p.ctl.size() || fixed > (p.fixed_ctl ? 1u : 0u)) return EINVAL;
        e.leader = a.group;
    }
    box_state& b = boxes_[{pmu, e.socket}];
    if (!b.initialized) {
        b.initialized = true;
        if (p.box_ctl) reg_write(p, e.socket, p.box_ctl, 4, kBoxInit);
    }
    id = next_id_++;
    char line[160];
    std::snprintf(line, sizeof line, "perf: open %s socket %u config 0x%llx -> event %llu", p.name.c_str(), e.socket,
                  static_cast<unsigned long long>(e.config), static_cast<unsigned long long>(id));
    log_(line);
    event& in = events_.emplace(id, e).first->second;
    if (!(a.flags & 1)) enable(id, in, now_ps);  // not disabled
    return 0;
}

int perf_counters::read(uint64_t id, uint64_t now_ps, uint64_t out[3]) {
    if (core_pmu::owns(id)) return core_.read(id, now_ps, out);
    auto it = events_.find(id);
    if (it == events_.end()) return EBADF;
    event& e = it->second;
    update(e);
    settle_times(e, now_ps);
    out[0] = e.count;
    out[1] = e.enabled_ps / 1000;
    out[2] = e.running_ps / 1000;
    return 0;
}

int perf_counters::control(uint64_t id, uint32_t what, uint64_t now_ps) {
    if (core_pmu::owns(id)) return core_.control(id, what, now_ps);
    auto it = events_.find(id);
    if (it == events_.end()) return EBADF;
    event& e = it->second;
    switch (static_cast<wire::perf_ctl>(what)) {
        case wire::perf_ctl::enable:
            if (!e.enabled) enable(id, e, now_ps);
            return 0;
        case wire::perf_ctl::disable:
            if (e.enabled) disable(id, e, now_ps);
            return 0;
        case wire::perf_ctl::reset:
            update(e);
            e.count = 0;
            return 0;
    }
    return EINVAL;
}

// A leader's members go on as events of their own, as the kernel leaves them.
int perf_counters::close(uint64_t id, uint64_t now_ps) {
    if (core_pmu::owns(id)) return core_.close(id, now_ps);
    auto it = events_.find(id);
    if (it == events_.end()) return EBADF;
    event& e = it->second;
    std::vector<event*> members;
    if (!e.leader)
        for (event* x : group_of(id))
            if (x != &e) members.push_back(x);
    halt(e.leader ? std::vector<event*>{&e} : group_of(id), now_ps);
    events_.erase(it);
    for (event* m : members) {
        m->leader = 0;
        if (m->enabled) run({m}, now_ps);
    }
    return 0;
}

void perf_counters::release(pid_t owner, uint64_t now_ps) {
    core_.release(owner, now_ps);
    std::vector<uint64_t> ids;
    for (const auto& [id, e] : events_)
        if (e.owner == owner) ids.push_back(id);
    for (uint64_t id : ids) close(id, now_ps);
}

void perf_counters::poll(uint64_t now_ps) {
    if (now_ps - last_poll_ps_ < kPollPs) return;
    last_poll_ps_ = now_ps;
    for (auto& [id, e] : events_) update(e);
}

}  // namespace pmonsim::serve
