#include "clocked_baseline.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <deque>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <systemc>
#include <tuple>

#include "core/register_access.h"
#include "driver/script/script.h"
#include "reference/reference_box.h"
#include "sc/time_util.h"
#include "trace/trace_reader.h"

namespace pmonsim::bench {

namespace {

constexpr unsigned kQpiDevice[3] = {8, 9, 24};

// ---------------------------------------------------------------------------
// Registers: one box's programming, kept in a reference_box.

struct box_regs {
    box_regs(box_spec s, clock_domain c) : spec(std::move(s)), clock(c), ref(spec, c) {}
    box_spec spec;
    clock_domain clock;
    reference::reference_box ref;
    uint32_t match0 = 0, match1 = 0, mask0 = 0, mask1 = 0;  // QPI packet filter

    uint64_t match() const { return (uint64_t{match1} << 32) | match0; }
    uint64_t mask() const { return (uint64_t{mask1} << 32) | mask0; }

    static uint64_t merged(uint64_t old, uint64_t value, uint64_t mask) {
        return (old & ~mask) | (value & mask);
    }

    uint64_t read(const register_def& r) const {
        switch (r.role) {
            case reg_role::ctl: case reg_role::fixed_ctl: return ref.counter(r.index).ctl;
            case reg_role::ctr: case reg_role::fixed_ctr: return ref.counter(r.index).value;
            case reg_role::box_ctl: return ref.box_ctl;
            case reg_role::box_status: return ref.status;
            case reg_role::pkt_match0: return match0;
            case reg_role::pkt_match1: return match1;
            case reg_role::pkt_mask0: return mask0;
            case reg_role::pkt_mask1: return mask1;
            case reg_role::band_filter: return ref.band_filter;
            default: return r.reset;
        }
    }

    void write(const register_def& r, uint64_t value, uint64_t mask) {
        switch (r.role) {
            case reg_role::ctl:
            case reg_role::fixed_ctl:
                ref.write_ctl(r.index, static_cast<uint32_t>(merged(ref.counter(r.index).ctl, value, mask)));
                break;
            case reg_role::ctr:
            case reg_role::fixed_ctr:
                ref.write_ctr(r.index, merged(ref.counter(r.index).value, value, mask));
                break;
            case reg_role::box_ctl:
                ref.write_box_ctl(static_cast<uint32_t>(merged(ref.box_ctl, value, mask)));
                break;
            case reg_role::box_status: ref.clear_status(static_cast<uint32_t>(value & mask)); break;
            case reg_role::pkt_match0: match0 = static_cast<uint32_t>(merged(match0, value, mask)); break;
            case reg_role::pkt_match1: match1 = static_cast<uint32_t>(merged(match1, value, mask)); break;
            case reg_role::pkt_mask0: mask0 = static_cast<uint32_t>(merged(mask0, value, mask)); break;
            case reg_role::pkt_mask1: mask1 = static_cast<uint32_t>(merged(mask1, value, mask)); break;
            case reg_role::band_filter: ref.band_filter = merged(ref.band_filter, value, mask); break;
            default: break;  // read-only
        }
    }
};

struct pci_fn {
    unsigned dev, fn;
    register_table table;
    int box;  // index into socket_regs::boxes, -1: no box (QPI misc function)
};

// One socket: boxes in pmonsim's order (ubox, ubox_fixed, r2pcie, qpi0..).
struct socket_regs {
    std::vector<std::unique_ptr<box_regs>> boxes;
    register_table msr_table;
    std::map<uint32_t, int> msr_box;  // an MSR of a box other than the UBox (the caching agents'): its box
    std::vector<pci_fn> functions;
    bool global_freeze = false;
    uint64_t global_ctl = 0;
};

// The driver's view of the baseline's registers, for running the program.
class program_target : public driver::target {
public:
    program_target(const uncore_config& cfg, std::vector<socket_regs>& sockets) : cfg_(cfg), s_(sockets) {}

    unsigned cpu_count() const override { return cfg_.sockets * cfg_.cpus_per_socket; }
    unsigned package_of(unsigned cpu) const override { return cpu / cfg_.cpus_per_socket; }

    bool msr_read(unsigned cpu, uint32_t msr, uint64_t& value) override {
        socket_regs* s = socket_of_cpu(cpu);
        const register_def* r = s ? s->msr_table.find(msr) : nullptr;
        if (!r) return false;
        if (const auto it = s->msr_box.find(msr); it != s->msr_box.end()) value = s->boxes[it->second]->read(*r);
        else if (box_regs* b = msr_owner(*s, r->role)) value = b->read(*r);
        else value = r->role == reg_role::global_ctl ? s->global_ctl : 0;
        return true;
    }
    bool msr_write(unsigned cpu, uint32_t msr, uint64_t value) override {
        socket_regs* s = socket_of_cpu(cpu);
        const register_def* r = s ? s->msr_table.find(msr) : nullptr;
        if (!r) return false;
        if (const auto it = s->msr_box.find(msr); it != s->msr_box.end()) {
            s->boxes[it->second]->write(*r, value, ~0ull);
        } else if (box_regs* b = msr_owner(*s, r->role)) {
            b->write(*r, value, ~0ull);
        } else if (r->role == reg_role::global_ctl) {
            s->global_ctl = merge_write(*r, s->global_ctl, value, ~0ull);
            const uint64_t p = pulses_of(*r, value, ~0ull);
            if ((p >> 31) & 1) s->global_freeze = true;        // frz_all (wins)
            else if ((p >> 29) & 1) s->global_freeze = false;  // unfrz_all
        }
        return true;  // GLOBAL_STATUS / GLOBAL_CONFIG: nothing the counts depend on
    }
    bool pci_read(const driver::pci_address& a, uint32_t offset, unsigned size, uint64_t& value) override {
        socket_regs* s;
        pci_fn* f = function(a, s);
        if (!f || offset + size > 0x1000) return false;
        register_handlers h;
        h.read = [&](const register_def& r, uint64_t) -> uint64_t {
            if (r.role == reg_role::vendor_device) return r.reset;
            if (r.role == reg_role::rate_status) return cfg_.qpi_rate_code();
            return f->box >= 0 ? s->boxes[f->box]->read(r) : r.reset;
        };
        value = access_read(f->table, offset, size, h);
        return true;
    }
    bool pci_write(const driver::pci_address& a, uint32_t offset, unsigned size, uint64_t value) override {
        socket_regs* s;
        pci_fn* f = function(a, s);
        if (!f || offset + size > 0x1000) return false;
        register_handlers h;
        h.write = [&](const register_def& r, uint64_t v, uint64_t mask) {
            if (r.role == reg_role::vendor_device || r.role == reg_role::rate_status || f->box < 0) return;
            s->boxes[f->box]->write(r, v, mask);
        };
        access_write(f->table, offset, size, value, h);
        return true;
    }
    std::vector<driver::pci_device_info> pci_devices() override {
        std::vector<driver::pci_device_info> out;
        for (unsigned i = 0; i < s_.size(); ++i)
            for (const pci_fn& f : s_[i].functions) {
                const register_def* id = f.table.find(0u);
                driver::pci_device_info d;
                d.addr = {0, static_cast<uint8_t>(cfg_.bus_of(i)), static_cast<uint8_t>(f.dev),
                          static_cast<uint8_t>(f.fn)};
                d.vendor = static_cast<uint16_t>(id->reset);
                d.device = static_cast<uint16_t>(id->reset >> 16);
                out.push_back(d);
            }
        std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) {
            return std::tie(x.addr.bus, x.addr.dev, x.addr.fn) < std::tie(y.addr.bus, y.addr.dev, y.addr.fn);
        });
        return out;
    }
    void advance(uint64_t) override {
        throw std::runtime_error("the clocked baseline runs a program at time 0 only (no sleep)");
    }
    uint64_t now() const override { return 0; }

private:
    socket_regs* socket_of_cpu(unsigned cpu) {
        const unsigned s = cpu / cfg_.cpus_per_socket;
        return s < s_.size() ? &s_[s] : nullptr;
    }
    static box_regs* msr_owner(socket_regs& s, reg_role role) {
        switch (role) {
            case reg_role::ctl: case reg_role::ctr: case reg_role::box_status: return s.boxes[0].get();
            case reg_role::fixed_ctl: case reg_role::fixed_ctr: return s.boxes[1].get();
            default: return nullptr;
        }
    }
    pci_fn* function(const driver::pci_address& a, socket_regs*& s) {
        if (a.domain != 0) return nullptr;
        for (unsigned i = 0; i < s_.size(); ++i) {
            if (cfg_.bus_of(i) != a.bus) continue;
            s = &s_[i];
            for (pci_fn& f : s_[i].functions)
                if (f.dev == a.dev && f.fn == a.fn) return &f;
        }
        return nullptr;
    }

    const uncore_config& cfg_;
    std::vector<socket_regs>& s_;
};

std::vector<socket_regs> make_sockets(const uncore_config& cfg) {
    std::vector<socket_regs> out(cfg.sockets);
    const clock_domain uclk(cfg.uclk_hz()), qclk(cfg.qclk_hz()), dclk(cfg.dclk_hz()), pclk(cfg.pclk_hz());
    for (socket_regs& s : out) {
        s.global_freeze = cfg.start_frozen;
        s.boxes.push_back(std::make_unique<box_regs>(make_box_spec(box_kind::ubox, cfg.cpu), uclk));
        s.boxes.push_back(std::make_unique<box_regs>(make_box_spec(box_kind::ubox_fixed, cfg.cpu), uclk));
        s.boxes.push_back(std::make_unique<box_regs>(make_box_spec(box_kind::r2pcie, cfg.cpu), uclk));
        for (unsigned p = 0; p < cfg.qpi_ports; ++p)
            s.boxes.push_back(std::make_unique<box_regs>(make_box_spec(box_kind::qpi, cfg.cpu, p), qclk));
        s.msr_table = ubox_register_table(cfg.cpu);
        s.functions.push_back({19, 1, r2pcie_register_table(cfg.cpu), 2});
        for (unsigned p = 0; p < cfg.qpi_ports; ++p) {
            s.functions.push_back({kQpiDevice[p], 2, qpi_pmon_register_table(cfg.cpu, p), int(3 + p)});
            s.functions.push_back({kQpiDevice[p], 6, qpi_filter_register_table(cfg.cpu, p), int(3 + p)});
            s.functions.push_back({kQpiDevice[p], 0, qpi_misc_register_table(cfg.cpu, p), -1});
        }
        // The other PCI boxes: one PMON function per unit, its box's own table.
        for (const box_desc& d : describe(cfg.cpu).boxes) {
            if (d.kind == box_kind::cbo || d.kind == box_kind::pcu)  // MSR boxes with registers of their own
                for (unsigned u = 0; u < cfg.units_present(d); ++u) {
                    box_spec spec = make_box_spec(d.kind, cfg.cpu, u);
                    for (const register_def& r : spec.table.regs) {
                        s.msr_table.regs.push_back(r);
                        s.msr_box[r.offset] = static_cast<int>(s.boxes.size());
                    }
                    s.boxes.push_back(std::make_unique<box_regs>(std::move(spec), d.clock == box_clock::pclk ? pclk : uclk));
                }
            if (!pmon_function_per_unit(d.kind)) continue;  // (above, or MSRs)
            for (unsigned u = 0; u < cfg.units_present(d); ++u) {
                box_spec spec = make_box_spec(d.kind, cfg.cpu, u);
                s.functions.push_back({d.pci[u].device, d.pci[u].fn, spec.table, static_cast<int>(s.boxes.size())});
                s.boxes.push_back(
                    std::make_unique<box_regs>(std::move(spec), d.clock == box_clock::dclk ? dclk : uclk));
            }
        }
    }
    return out;
}

// ---------------------------------------------------------------------------
// Counting: the conventional per-cycle counter, controls decoded once.

struct own_counter {
    bool live = false;             // enabled and a valid selection
    bool fixed = false;
    std::vector<unsigned> inputs;  // summed each cycle
    bool add_cto = false;          // QPI CTO_COUNT: plus the cycle's matching headers
    bool free = false;             // the PCU's residency: never frozen, 64 bits
    int band = -1;                 // the PCU's band events: the byte the input must reach
    uint32_t thresh = 0;
    bool invert = false, edge = false, prev = false;
    uint64_t value = 0, wraps = 0;
};

std::vector<own_counter> decode_counters(const box_regs& b) {
    const box_spec& sp = b.spec;
    std::vector<own_counter> out(sp.counters);
    for (unsigned i = 0; i < sp.counters; ++i) {
        own_counter& c = out[i];
        const uint32_t ctl = b.ref.counter(i).ctl;
        c.value = b.ref.counter(i).value;
        if (sp.is_free(i)) {  // the PCU's residency: cycles its input is not 0
            c.live = true;
            c.inputs = {static_cast<unsigned>(sp.free_inputs[i - static_cast<unsigned>(sp.free_first)])};
            c.thresh = 1;
            c.free = true;
            continue;
        }
        if (!((ctl >> 22) & 1)) continue;
        if (sp.is_fixed(i)) {
            c.live = c.fixed = true;
            continue;
        }
        const uint8_t ev = ctl & 0xFF;
        const bool occupancy = sp.occupancy && (ev & 0x80);  // the PCU: occ_sel, occ_invert, occ_edge_det
        const uint8_t umask = sp.occupancy && !occupancy ? 0 : (ctl >> 8) & 0xFF;
        const bool ext = sp.has_ext && ((ctl >> 21) & 1);
        if (sp.ev_sel0_is_idle && ev == 0) continue;
        auto sel = sp.catalog->select(ev, ext, umask);
        if (!sel.error.empty() || !(sp.catalog->events()[*sel.event].counters & (1u << i))) continue;
        c.live = true;
        c.inputs = sel.inputs;
        c.add_cto = sp.kind == box_kind::qpi && ev == 0x38 && ext;
        c.thresh = (ctl >> 24) & ((1u << sp.thresh_bits) - 1);
        c.invert = occupancy ? (ctl >> 30) & 1 : sp.has_invert && ((ctl >> 23) & 1);
        c.edge = occupancy ? (ctl >> 31) & 1 : (ctl >> 18) & 1;
        if (const int band = sp.catalog->events()[*sel.event].band; band >= 0)
            c.band = static_cast<int>((b.ref.band_filter >> (8 * band)) & 0xFF);
    }
    return out;
}

// ---------------------------------------------------------------------------
// The clocked platform.

struct queued_packet {
    cycle_t at;            // header ready in this cycle
    unsigned flits, data;  // size, and how many of them (the last ones) carry data
    int nondata_class, data_class;  // G1/G2 class inputs, -1 if none
    uint64_t fields;       // header fields for the packet filter
};

struct link_dir {
    bool rx = true;
    int idle = -1, data = -1, non_data = -1;
    int snp = -1, hom_req = -1, hom_nonreq = -1, drs_data = -1, drs_nondata = -1;
    int ndr_ad = -1, ndr_ak = -1, ncb_data = -1, ncb_nondata = -1, ncs = -1;
    std::deque<queued_packet> queue;
    bool busy = false;
    queued_packet cur{};
    unsigned sent = 0;
};

struct event_run {
    cycle_t from, end;
    unsigned input;
    uint32_t value;
};

class clocked_platform;

class clocked_box : public sc_core::sc_module {
public:
    sc_core::sc_in<bool> clk{"clk"};

    clocked_box(sc_core::sc_module_name n, clocked_platform& p, box_regs& regs, counter_impl impl,
                cycle_t limit, bool frozen)
        : sc_module(n), p_(p), regs_(regs), impl_(impl), limit_(limit), frozen_(frozen) {
        const box_spec& sp = regs.spec;
        if (sp.catalog) {
            in_.assign(sp.catalog->input_count(), 0);
            if (auto e = sp.catalog->find(sp.clock_event)) clock_input_ = int(*sp.catalog->input_of(*e, -1));
        }
        if (sp.kind == box_kind::qpi) setup_link();
        if (impl == counter_impl::own) own_ = decode_counters(regs);
        regs_.ref.global_freeze = frozen;
        SC_HAS_PROCESS(clocked_box);
        SC_METHOD(tick);
        sensitive << clk.pos();
        dont_initialize();
    }

    void post_packet(qpi_dir dir, const trace::packet_record& r);
    void post_event(const trace::event_record& e) {
        runs_.push_back({e.cycle, e.cycle + e.repeat, e.input, e.count});
    }

    cycle_t ticks() const { return k_; }
    uint64_t activations() const { return activations_; }
    const box_regs& regs() const { return regs_; }
    uint64_t value(unsigned i) const {
        return impl_ == counter_impl::own ? own_[i].value : regs_.ref.counter(i).value;
    }
    uint64_t wraps(unsigned i) const {
        return impl_ == counter_impl::own ? own_[i].wraps : regs_.ref.counter(i).wraps;
    }

private:
    void tick();
    void setup_link();
    void serialize_slot(link_dir& d, uint64_t slot);
    void bump(int input) {
        if (input < 0) return;
        if (in_[input]++ == 0) touched_.push_back(static_cast<unsigned>(input));
    }
    void add(unsigned input, uint32_t v) {
        if (in_[input] == 0) touched_.push_back(input);
        in_[input] += v;
    }
    void count_own();

    clocked_platform& p_;
    box_regs& regs_;
    counter_impl impl_;
    cycle_t limit_;
    bool frozen_;
    cycle_t k_ = 0;  // the cycle this tick counts
    uint64_t activations_ = 0;
    std::vector<uint64_t> in_;
    std::vector<unsigned> touched_;
    int clock_input_ = -1;
    uint32_t cto_ = 0;  // matching headers this cycle
    std::array<link_dir, 2> link_{};
    std::vector<event_run> runs_;
    std::vector<own_counter> own_;
};

class clocked_platform {
public:
    clocked_platform(const baseline_options& o, std::vector<socket_regs>& sockets)
        : o_(o), ctx_{o.cfg.cpu, o.cfg.sockets, o.cfg.qpi_ports, o.cfg.memory_controllers, o.cfg.cores_per_socket(),
               o.cfg.uclk_hz(), o.cfg.qclk_hz(), o.cfg.dclk_hz(), o.cfg.pclk_hz()},
          uclk_period_(period_ps(o.cfg.uclk_hz(), "UCLK")), qclk_period_(period_ps(o.cfg.qclk_hz(), "QCLK")),
          dclk_period_(period_ps(o.cfg.dclk_hz(), "DCLK")), pclk_period_(period_ps(o.cfg.pclk_hz(), "PCLK")),
          uclk_("uclk", from_ps(uclk_period_)), qclk_("qclk", from_ps(qclk_period_)),
          dclk_("dclk", from_ps(dclk_period_)), pclk_("pclk", from_ps(pclk_period_)) {
        end_ = clock_domain(o.cfg.uclk_hz()).cycle_start(o.uclk_cycles);
        for (unsigned s = 0; s < sockets.size(); ++s) {
            std::vector<std::unique_ptr<clocked_box>> row;
            for (auto& b : sockets[s].boxes) {
                const std::string name = "s" + std::to_string(s) + "_" + b->spec.name;
                row.push_back(std::make_unique<clocked_box>(name.c_str(), *this, *b, o.counter,
                                                            b->clock.cycles_before(end_),
                                                            sockets[s].global_freeze));
                switch (describe(o.cfg.cpu).need(b->spec.kind).clock) {
                    case box_clock::uclk: row.back()->clk(uclk_); break;
                    case box_clock::qclk: row.back()->clk(qclk_); break;
                    case box_clock::dclk: row.back()->clk(dclk_); break;
                    case box_clock::pclk: row.back()->clk(pclk_); break;
                }
                index_[{b->spec.kind, unit_of(*b)}] = row.size() - 1;
            }
            boxes_.push_back(std::move(row));
        }
        for (const std::string& t : o.traces) merger_.open(t, ctx_);
        have_ = merger_.next(next_);
    }

    // Hands every record due at or before `now` to its box.
    void feed(time_ps now) {
        while (have_ && trace::time_of(next_.record) <= now) {
            if (const auto* p = std::get_if<trace::packet_record>(&next_.record)) {
                boxes_.at(p->socket).at(3 + p->port)->post_packet(p->dir, *p);
            } else {
                const auto& e = std::get<trace::event_record>(next_.record);
                boxes_.at(e.socket).at(index_.at({e.kind, e.unit}))->post_event(e);
            }
            ++records_;
            have_ = merger_.next(next_);
        }
    }

    time_ps end() const { return end_; }
    uint64_t records() const { return records_; }
    const std::vector<std::vector<std::unique_ptr<clocked_box>>>& boxes() const { return boxes_; }

private:
    static uint64_t period_ps(uint64_t hz, const char* name) {
        if (1000000000000ull % hz)
            throw std::runtime_error(std::string("the clocked baseline needs a whole-picosecond ") + name +
                                     " period (sc_clock cannot hold it exactly)");
        return 1000000000000ull / hz;
    }

    const baseline_options& o_;
    trace::trace_context ctx_;
    // A box's unit: the number its name ends in ("qpi1", "imc5"), else 0.
    static unsigned unit_of(const box_regs& b) {
        const std::string& n = b.spec.name;
        size_t d = n.size();
        while (d > 0 && n[d - 1] >= '0' && n[d - 1] <= '9') --d;
        return d < n.size() && numbered(b.spec.kind) ? static_cast<unsigned>(std::stoul(n.substr(d))) : 0;
    }

    uint64_t uclk_period_, qclk_period_, dclk_period_, pclk_period_;
    sc_core::sc_clock uclk_, qclk_, dclk_, pclk_;
    std::map<std::pair<box_kind, unsigned>, size_t> index_;  // a socket's box by (kind, unit)
    std::vector<std::vector<std::unique_ptr<clocked_box>>> boxes_;
    trace::trace_merger merger_;
    trace::trace_merger::merged_record next_;
    bool have_ = false;
    time_ps end_ = 0;
    uint64_t records_ = 0;
};

void clocked_box::setup_link() {
    const event_catalog& cat = *regs_.spec.catalog;
    auto in = [&](const char* ev, const char* sub) {
        auto i = cat.find_input(ev, sub);
        return i ? static_cast<int>(*i) : -1;
    };
    const char* g0[2] = {"RxL_FLITS_G0", "TxL_FLITS_G0"};
    const char* g1[2] = {"RxL_FLITS_G1", "TxL_FLITS_G1"};
    const char* g2[2] = {"RxL_FLITS_G2", "TxL_FLITS_G2"};
    for (int d = 0; d < 2; ++d) {
        link_dir& l = link_[d];
        l.rx = d == 0;
        l.idle = in(g0[d], "IDLE");
        l.data = in(g0[d], "DATA");
        l.non_data = in(g0[d], "NON_DATA");
        l.snp = in(g1[d], "SNP");
        l.hom_req = in(g1[d], "HOM_REQ");
        l.hom_nonreq = in(g1[d], "HOM_NONREQ");
        l.drs_data = in(g1[d], "DRS_DATA");
        l.drs_nondata = in(g1[d], "DRS_NONDATA");
        l.ndr_ad = in(g2[d], "NDR_AD");
        l.ndr_ak = in(g2[d], "NDR_AK");
        l.ncb_data = in(g2[d], "NCB_DATA");
        l.ncb_nondata = in(g2[d], "NCB_NONDATA");
        l.ncs = in(g2[d], "NCS");
    }
}

void clocked_box::post_packet(qpi_dir dir, const trace::packet_record& r) {
    link_dir& l = link_[static_cast<int>(dir)];
    const qpi_packet& p = r.packet;
    const packet_shape s = shape_of(p);  // p.flits is set by the reader
    queued_packet q{r.cycle, s.flits, s.data, -1, -1, filter_fields(p)};
    switch (p.mc) {
        case qpi_mc::hom0: q.nondata_class = l.hom_req; break;
        case qpi_mc::hom1: q.nondata_class = l.hom_nonreq; break;
        case qpi_mc::snp: q.nondata_class = l.snp; break;
        case qpi_mc::ndr: q.nondata_class = p.ring_ad ? l.ndr_ad : l.ndr_ak; break;
        case qpi_mc::ncs: q.nondata_class = l.ncs; break;
        case qpi_mc::ncb: q.nondata_class = l.ncb_nondata; q.data_class = l.ncb_data; break;
        case qpi_mc::drs: q.nondata_class = l.drs_nondata; q.data_class = l.drs_data; break;
        default: break;
    }
    l.queue.push_back(q);
}

// One flit slot: the packet on the wire goes on; otherwise the next queued
// packet whose header is ready starts; otherwise an idle flit.
void clocked_box::serialize_slot(link_dir& l, uint64_t slot) {
    if (!l.busy && !l.queue.empty() && 2 * l.queue.front().at <= slot) {
        l.cur = l.queue.front();
        l.queue.pop_front();
        l.busy = true;
        l.sent = 0;
        if (l.rx && ((l.cur.fields ^ regs_.match()) & regs_.mask()) == 0) ++cto_;  // header flit
    }
    if (!l.busy) {
        bump(l.idle);
        return;
    }
    if (l.sent < l.cur.flits - l.cur.data) {
        bump(l.non_data);
        bump(l.cur.nondata_class);
    } else {
        bump(l.data);
        bump(l.cur.data_class);
    }
    if (++l.sent == l.cur.flits) l.busy = false;
}

void clocked_box::tick() {
    ++activations_;
    if (k_ >= limit_) return;  // the edge at the end time: not counted
    const time_ps now = now_ps();
    if (now != regs_.clock.cycle_start(k_))
        throw std::logic_error(std::string(name()) + ": clock edge at " + std::to_string(now) +
                               " ps is not the start of cycle " + std::to_string(k_));
    p_.feed(now);

    // This cycle's increments.
    for (unsigned i : touched_) in_[i] = 0;
    touched_.clear();
    cto_ = 0;
    if (clock_input_ >= 0) bump(clock_input_);
    for (size_t i = 0; i < runs_.size();) {
        event_run& r = runs_[i];
        if (r.from <= k_) add(r.input, r.value);
        if (r.end <= k_ + 1) {
            r = runs_.back();
            runs_.pop_back();
        } else {
            ++i;
        }
    }
    if (regs_.spec.kind == box_kind::qpi)
        for (link_dir& l : link_) {
            serialize_slot(l, 2 * k_);
            serialize_slot(l, 2 * k_ + 1);
        }

    if (impl_ == counter_impl::reference) regs_.ref.tick(in_, cto_);
    else count_own();
    ++k_;
}

void clocked_box::count_own() {
    const box_spec& sp = regs_.spec;
    bool frozen = frozen_;
    if (sp.has_box_ctl) {
        const uint32_t bc = regs_.ref.box_ctl;
        const bool frz = (bc >> 8) & 1, frz_en = (bc >> 16) & 1;
        frozen = frozen || (sp.freeze_needs_frz_en ? frz && frz_en : frz);
    }
    for (own_counter& c : own_) {
        if (!c.live || (frozen && !c.free)) continue;
        const uint64_t wmask = sp.width >= 64 || c.free ? ~0ull : (1ull << sp.width) - 1;
        uint64_t inc = 1;
        if (!c.fixed) {
            inc = c.add_cto ? cto_ : 0;
            for (unsigned i : c.inputs) inc += in_[i];
            if (c.band >= 0) inc = inc >= static_cast<uint64_t>(c.band);
        }
        uint64_t add = inc;
        if (c.thresh) {
            const bool hit = c.invert ? inc < c.thresh : inc >= c.thresh;
            add = c.edge ? (hit && !c.prev) : hit;
            c.prev = hit;
        }
        if (c.free)  // the PCU's residency: the TSC ticks of this cycle
            add = add ? ticks_at(regs_.clock, k_ + 1, sp.free_rate_hz) - ticks_at(regs_.clock, k_, sp.free_rate_hz) : 0;
        const uint64_t before = c.value;
        c.value += add;
        if (c.value > wmask || c.value < before) {
            c.wraps += 1;  // at most one per cycle: increments are far below 2^width
            c.value &= wmask;
        }
    }
}

}  // namespace

baseline_result run_clocked_baseline(const baseline_options& o) {
    o.cfg.validate();
    if (o.uclk_cycles == 0) throw std::runtime_error("the run length (UCLK cycles) must be > 0");
    std::vector<socket_regs> sockets = make_sockets(o.cfg);

    // The programming, at time 0, into the reference boxes' registers.
    if (!o.program.empty()) {
        std::ifstream in(o.program);
        if (!in) throw std::runtime_error(o.program + ": cannot open");
        driver::script_options so;
        so.only_writes = true;
        const driver::script sc = driver::parse_script(in, o.program, so);
        program_target t(o.cfg, sockets);
        std::ostringstream out, err;
        if (driver::run_script(sc, t, out, err) != 0)
            throw std::runtime_error(o.program + ": the program failed on the baseline: " + err.str());
    }

    clocked_platform p(o, sockets);
    const auto t0 = std::chrono::steady_clock::now();
    sc_core::sc_start(from_ps(p.end()));
    const auto t1 = std::chrono::steady_clock::now();

    baseline_result r;
    r.sim_seconds = std::chrono::duration<double>(t1 - t0).count();
    r.records = p.records();
    r.uclk_cycles = clock_domain(o.cfg.uclk_hz()).cycles_before(p.end());
    r.qclk_cycles = clock_domain(o.cfg.qclk_hz()).cycles_before(p.end());
    for (unsigned s = 0; s < p.boxes().size(); ++s)
        for (const auto& b : p.boxes()[s]) {
            const box_regs& regs = b->regs();
            const cycle_t want = regs.clock.cycles_before(p.end());
            if (b->ticks() != want)
                throw std::logic_error(std::string(b->name()) + " ticked " + std::to_string(b->ticks()) +
                                       " cycles, expected " + std::to_string(want));
            r.activations += b->activations();
            for (unsigned i = 0; i < regs.spec.counters; ++i)
                r.counts.push_back({s, regs.spec.name, i, b->value(i), b->wraps(i)});
        }
    return r;
}

// ---------------------------------------------------------------------------

namespace {

std::vector<std::string> split_csv(const std::string& line) {
    std::vector<std::string> f(1);
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') f.back() += '"', ++i;
            else if (c == '"') quoted = false;
            else f.back() += c;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            f.emplace_back();
        } else if (c != '\r') {
            f.back() += c;
        }
    }
    return f;
}

}  // namespace

std::vector<baseline_count> read_pmonsim_csv(const std::string& file) {
    std::ifstream in(file);
    if (!in) throw std::runtime_error(file + ": cannot open");
    std::string line;
    if (!std::getline(in, line) || line.rfind("socket,box,counter,control,event,value,overflows", 0) != 0)
        throw std::runtime_error(file + ": not a pmonsim --report csv report");
    std::vector<baseline_count> out;
    while (std::getline(in, line) && !line.empty() && line != "\r") {
        const auto f = split_csv(line);
        if (f.size() >= 8 && f[7] == "diagnostic") continue;  // (the rows after the counters')
        if (f.size() < 7) throw std::runtime_error(file + ": short row '" + line + "'");
        out.push_back({static_cast<unsigned>(std::stoul(f[0])), f[1], static_cast<unsigned>(std::stoul(f[2])),
                       std::stoull(f[5]), std::stoull(f[6])});
    }
    return out;
}

std::vector<std::string> compare_counts(const std::vector<baseline_count>& pmonsim,
                                        const std::vector<baseline_count>& baseline) {
    using key = std::tuple<unsigned, std::string, unsigned>;
    std::map<key, const baseline_count*> a, b;
    for (const auto& c : pmonsim) a[{c.socket, c.box, c.counter}] = &c;
    for (const auto& c : baseline) b[{c.socket, c.box, c.counter}] = &c;
    std::vector<std::string> out;
    auto where = [](const key& k) {
        return "socket " + std::to_string(std::get<0>(k)) + " " + std::get<1>(k) + " counter " +
               std::to_string(std::get<2>(k));
    };
    for (const auto& [k, c] : a) {
        auto it = b.find(k);
        if (it == b.end()) {
            out.push_back(where(k) + ": only in the pmonsim report");
        } else if (c->value != it->second->value || c->overflows != it->second->overflows) {
            out.push_back(where(k) + ": pmonsim " + std::to_string(c->value) + " (" +
                          std::to_string(c->overflows) + " overflows), baseline " +
                          std::to_string(it->second->value) + " (" + std::to_string(it->second->overflows) +
                          " overflows)");
        }
    }
    for (const auto& [k, c] : b)
        if (!a.count(k)) out.push_back(where(k) + ": only in the baseline");
    return out;
}

}  // namespace pmonsim::bench
