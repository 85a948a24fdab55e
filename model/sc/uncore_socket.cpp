#include "sc/uncore_socket.h"

#include "core/register_access.h"
#include "sc/time_util.h"

namespace pmonsim {

uncore_socket::uncore_socket(sc_core::sc_module_name name, const uncore_config& cfg,
                             unsigned socket, diagnostic_sink* diags)
    : sc_module(name), cfg_(cfg), socket_(socket), diags_(diags),
      global_freeze_sig_("global_freeze", cfg.start_frozen), epoch_sig_("unfreeze_epoch", 0),
      pmi_sig_("pmi_sig", 0) {
    cfg_.validate();
    const cpu_desc& cpu = describe(cfg_.cpu);
    const clock_domain uclk(cfg_.uclk_hz()), qclk(cfg_.qclk_hz()), dclk(cfg_.dclk_hz()), pclk(cfg_.pclk_hz());
    std::vector<int> bits;
    std::vector<std::string> names;
    std::vector<unsigned> units;  // per box
    for (const box_desc& d : cpu.boxes) {
        // (The QPI ports and memory controllers present are options of the machine.)
        const unsigned n = cfg_.units_present(d);
        for (unsigned u = 0; u < n; ++u) {
            box_spec spec = make_box_spec(d.kind, cfg_.cpu, u);
            clock_domain clock = uclk;
            switch (d.clock) {
                case box_clock::uclk: break;
                case box_clock::qclk: clock = qclk; break;
                case box_clock::dclk: clock = dclk; break;
                case box_clock::pclk: clock = pclk; break;
            }
            bits.push_back(spec.global_bit);
            names.push_back(spec.name);
            units.push_back(u);
            boxes_.push_back(std::make_unique<box_module>(spec.name.c_str(), spec, clock, diags_, socket_));
        }
    }
    global_ = std::make_unique<global_pmon>("global", cpu.global, bits, names, uclk, cfg_.freeze_latency,
                                            cfg_.start_frozen, diags_, socket_);
    global_->attach(boxes());
    for (size_t b = 0; b < boxes_.size(); ++b) {
        armed_sig_.push_back(std::make_unique<signal<bool>>(
            ("armed_" + names[b]).c_str(), true));
        ov_sig_.push_back(std::make_unique<signal<unsigned>>(
            ("ov_msg_" + names[b]).c_str(), 0));
        box_module& bm = *boxes_[b];
        bm.global_freeze(global_freeze_sig_);
        bm.unfreeze_epoch(epoch_sig_);
        bm.armed(*armed_sig_[b]);
        bm.ov_msg(*ov_sig_[b]);
        bm.set_message_sink([this, b] { return global_->overflow(b); });
        global_->armed[b](*armed_sig_[b]);
    }
    global_->global_freeze(global_freeze_sig_);
    global_->unfreeze_epoch(epoch_sig_);
    global_->pmi(pmi_sig_);

    // MSRs: the socket's table; each address belongs to the box whose
    // registers hold it, or else to the global control.
    msr_table_ = socket_msr_table(cfg_.cpu);
    for (auto& b : boxes_)
        if (b->core().spec().table.msr_space)
            for (const register_def& r : b->core().spec().table.regs) {
                msr_owner_[r.offset] = b.get();
                // (The caching agents' MSRs are the boxes' own.)
                if (!msr_table_.find(r.offset)) msr_table_.regs.push_back(r);
            }
    // PCI functions of the PCI boxes (function numbers: 327043-001 Table 1-3).
    for (size_t b = 0; b < boxes_.size(); ++b) {
        box_module* m = boxes_[b].get();
        const box_kind kind = m->core().spec().kind;
        const box_desc& d = cpu.need(kind);
        switch (kind) {
            case box_kind::r2pcie:
            case box_kind::imc:
            case box_kind::ha:
            case box_kind::r3qpi:
            case box_kind::irp: {
                const pci_unit& u = d.pci.at(units[b]);
                functions_.push_back({u.device, u.fn, m->core().spec().table, m, names[b], units[b]});
                break;
            }
            case box_kind::qpi: {
                const unsigned p = units[b], dev = d.pci.at(p).device;
                functions_.push_back({dev, d.pci.at(p).fn, qpi_pmon_register_table(cfg_.cpu, p), m, names[b], p});
                functions_.push_back({dev, 6, qpi_filter_register_table(cfg_.cpu, p), m, names[b], p});
                functions_.push_back({dev, 0, qpi_misc_register_table(cfg_.cpu, p), nullptr, names[b], p});
                break;
            }
            case box_kind::ubox:
            case box_kind::ubox_fixed:
            case box_kind::uncore:
            case box_kind::uncore_fixed:
            case box_kind::cbo:
            case box_kind::pcu: break;  // MSR boxes
        }
    }

    msr_socket.register_b_transport(this, &uncore_socket::b_msr);
    pci_socket.register_b_transport(this, &uncore_socket::b_pci);
    SC_HAS_PROCESS(uncore_socket);
    SC_METHOD(forward_pmi);
    sensitive << pmi_sig_;
    dont_initialize();
}

void uncore_socket::forward_pmi() {
    if (pmi.size()) pmi->write(pmi_sig_.read());
}

std::vector<box_module*> uncore_socket::boxes() {
    std::vector<box_module*> out;
    for (auto& b : boxes_) out.push_back(b.get());
    return out;
}

box_module* uncore_socket::box(const std::string& name) {
    for (auto& b : boxes_)
        if (b->core().spec().name == name) return b.get();
    return nullptr;
}

void uncore_socket::access_diag(const clock_domain& clock, const std::string& box,
                                const std::string& reg, uint64_t value, const std::string& why) {
    if (!diags_) return;
    const time_ps t = now_ps();
    diags_->report({clock.cycles_before(t), t, socket_, box, reg, value, why});
}

// The clock a function's cycles are counted in: its box's, and for the QPI
// misc function, which has no box, its port's (QCLK).
const clock_domain& uncore_socket::clock_of(const pci_function& f) const {
    if (f.box) return f.box->core().clock();
    for (const auto& b : boxes_)
        if (b->core().spec().name == f.box_name) return b->core().clock();
    return boxes_.front()->core().clock();
}

// --- MSRs ---------------------------------------------------------------------

box_module* uncore_socket::msr_owner(uint32_t msr) const {
    const auto it = msr_owner_.find(msr);
    return it == msr_owner_.end() ? nullptr : it->second;
}

bool uncore_socket::msr_read(uint32_t msr, uint64_t& value) {
    const register_def* r = msr_table_.find(msr);
    if (!r) {
        char b[64];
        std::snprintf(b, sizeof b, "MSR 0x%x", msr);
        access_diag(boxes_[0]->core().clock(), boxes_[0]->core().spec().name, b, 0, std::string("rdmsr of an MSR ") + to_string(cfg_.cpu) +
                                      " does not implement (#GP)");
        return false;
    }
    if (box_module* bm = msr_owner(r->offset)) {
        value = bm->read(*r, ~0ull);
    } else {
        for (auto& b : boxes_) b->sync();  // an overflow due now is seen now
        value = global_->read(*r);
    }
    return true;
}

bool uncore_socket::msr_write(uint32_t msr, uint64_t value) {
    const register_def* r = msr_table_.find(msr);
    if (!r) {
        char b[64];
        std::snprintf(b, sizeof b, "MSR 0x%x", msr);
        access_diag(boxes_[0]->core().clock(), boxes_[0]->core().spec().name, b, value, std::string("wrmsr to an MSR ") + to_string(cfg_.cpu) +
                                          " does not implement (#GP); nothing changed");
        return false;
    }
    if (box_module* bm = msr_owner(r->offset)) {
        bm->write(*r, value, ~0ull);
    } else {
        for (auto& b : boxes_) b->sync();  // freeze changes act on up-to-date boxes
        global_->write(*r, value, ~0ull);
    }
    return true;
}

// --- PCI configuration space ---------------------------------------------------

bool uncore_socket::pci_function_exists(unsigned dev, unsigned fn) const {
    for (const auto& f : functions_)
        if (f.dev == dev && f.fn == fn) return true;
    return false;
}

uint64_t uncore_socket::pci_read(unsigned dev, unsigned fn, uint32_t offset, unsigned size) {
    for (auto& f : functions_) {
        if (f.dev != dev || f.fn != fn) continue;
        register_handlers h;
        h.read = [&](const register_def& r, uint64_t mask) -> uint64_t {
            if (r.role == reg_role::vendor_device) return r.reset;
            if (r.role == reg_role::rate_status) return cfg_.qpi_rate_code();
            return f.box->read(r, mask);
        };
        h.unmodelled = [&](uint32_t off, unsigned sz, bool, uint64_t) {
            char b[96];
            std::snprintf(b, sizeof b, "D%u:F%u offset 0x%x", dev, fn, off);
            access_diag(clock_of(f), f.box_name, b, 0,
                        "read of " + std::to_string(sz) + " byte(s) not modelled in this function; reads 0");
        };
        return access_read(f.table, offset, size, h);
    }
    return size >= 8 ? ~0ull : (1ull << (8 * size)) - 1;  // no such function: all ones
}

void uncore_socket::pci_write(unsigned dev, unsigned fn, uint32_t offset, unsigned size, uint64_t value) {
    for (auto& f : functions_) {
        if (f.dev != dev || f.fn != fn) continue;
        register_handlers h;
        h.write = [&](const register_def& r, uint64_t v, uint64_t mask) {
            if (r.role == reg_role::vendor_device || r.role == reg_role::rate_status) return;
            f.box->write(r, v, mask);
        };
        h.unmodelled = [&](uint32_t off, unsigned sz, bool, uint64_t v) {
            char b[96];
            std::snprintf(b, sizeof b, "D%u:F%u offset 0x%x", dev, fn, off);
            access_diag(clock_of(f), f.box_name, b, v,
                        "write of " + std::to_string(sz) + " byte(s) not modelled in this function; ignored");
        };
        access_write(f.table, offset, size, value, h);
        return;
    }
}

// --- TLM ----------------------------------------------------------------------

static uint64_t load(const unsigned char* p, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = 0; i < n; ++i) v |= uint64_t{p[i]} << (8 * i);
    return v;
}
static void store(unsigned char* p, unsigned n, uint64_t v) {
    for (unsigned i = 0; i < n; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

void uncore_socket::b_msr(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    spend_delay(delay);
    if (gp.get_data_length() != 8 || gp.get_byte_enable_ptr()) {
        gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
        return;
    }
    const uint32_t msr = static_cast<uint32_t>(gp.get_address());
    uint64_t v = 0;
    bool ok;
    if (gp.is_read()) {
        ok = msr_read(msr, v);
        if (ok) store(gp.get_data_ptr(), 8, v);
    } else {
        ok = msr_write(msr, load(gp.get_data_ptr(), 8));
    }
    gp.set_response_status(ok ? tlm::TLM_OK_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

void uncore_socket::b_pci(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    spend_delay(delay);
    const unsigned n = gp.get_data_length();
    const uint64_t a = gp.get_address();
    if ((n != 1 && n != 2 && n != 4 && n != 8) || gp.get_byte_enable_ptr() || (a & 0xFFF) + n > 0x1000) {
        gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
        return;
    }
    const unsigned dev = (a >> 15) & 31, fn = (a >> 12) & 7;
    const uint32_t off = a & 0xFFF;
    if (gp.is_read()) store(gp.get_data_ptr(), n, pci_read(dev, fn, off, n));
    else pci_write(dev, fn, off, n, load(gp.get_data_ptr(), n));
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace pmonsim
