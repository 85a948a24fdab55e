// PCI PMON functions: R2PCIe (D19:F1; 327043-001 §2.8, 329468-002 §2.9,
// Tables 2-172..2-176), the QPI link-layer ports (D8/D9[/D24]:F2 PMON,
// :F6 packet filter, :F0 misc; 327043-001 §2.6, 329468-002 §2.7,
// Tables 2-128..2-138) and the memory-controller channels (D16[/D30];
// 327043-001 §2.5, 329468-002 §2.5; decisions.md B1-B3: no reset bits on
// SNB-EP, the DCLK counter's FIXED_CTL/CTR at 0xF0/0xD0 and BOX_STATUS bit 0).
// Choices where the manuals are unclear:
// - BOX_CTL frz/frz_en read back as written (tools read-modify-write them);
// - SNB-EP BOX_CTL bit 17 is stored without effect; IVB-EP bits 17:16 are
//   "software must write 1": stored, no effect, writing 0 is a diagnostic;
// - BOX_STATUS has one RW1C bit per counter (3:0) on both personalities
//   (the iMC: the fixed counter's at bit 0, then one per general counter);
// - the port-2 filter and misc functions on IVB-EP (D24:F6, D24:F0) and the
//   port-1 misc device IDs are our own assumption;
// - the IRP's counters sit at Linux's unaligned offsets (decisions.md B13).
#include "tables/register_table.h"

#include <cstdio>
#include <stdexcept>

namespace pmonsim {

namespace {

std::vector<field_def> pci_ctl_fields(const ctl_shape& s) {
    const attr a = s.rw_v ? attr::rw_v : attr::rw;
    return {
        fd(ctl_bits::thresh, a, "threshold compared with the per-cycle increment"),
        s.invert ? fd(ctl_bits::invert, a, "count cycles with increment < thresh")
                 : field_def{"rsv", 23, 23, attr::rv, "reserved (no invert on IVB-EP)"},
        fd(ctl_bits::en, a, "local counter enable"),
        s.ext ? fd(ctl_bits::ext, a, "extra event select bit") : field_def{"rsv", 21, 21, attr::rv, "reserved"},
        s.ov_en ? fd(ctl_bits::ov_en, a, "overflow sets BOX_STATUS and messages the UBox")
                : field_def{"rsv", 20, 20, attr::rv, "reserved"},
        {"rsv", 19, 19, attr::rv, "reserved"},
        fd(ctl_bits::edge, a, "count 0->1 transitions of the threshold compare"),
        s.rst ? fd(ctl_bits::rst, attr::wo, "writing 1 clears the paired counter")
              : field_def{"rsv", 17, 17, attr::rv, "reserved (no per-counter reset here)"},
        {"rsv", 16, 16, attr::rv, "reserved"},
        fd(ctl_bits::umask, a, "sub-event select"),
        fd(ctl_bits::ev_sel, a, "event select"),
    };
}

std::vector<field_def> pci_box_ctl_fields(box_ctl_style style) {
    namespace b = box_ctl_bits;
    switch (style) {
        case box_ctl_style::frz_en:
            return {{"rsv", 31, 18, attr::rv, "reserved"},
                    fd(b::ov_en, attr::rw, "stored, no effect (datasheet: overflow enable)"),
                    fd(b::frz_en, attr::rw, "the box obeys frz only when set"),
                    {"rsv", 15, 9, attr::rv, "reserved"},
                    fd(b::frz, attr::rw, "freeze the box's counters (with frz_en)"),
                    {"rsv", 7, 2, attr::rv, "reserved"},
                    fd(b::rst_ctrs, attr::wo, "writing 1 clears the box's counters"),
                    fd(b::rst_ctrl, attr::wo, "writing 1 clears the box's counter controls")};
        case box_ctl_style::frz_en_no_resets:
            return {{"rsv", 31, 17, attr::rv, "reserved"},
                    fd(b::frz_en, attr::rw, "the box obeys frz only when set"),
                    {"rsv", 15, 9, attr::rv, "reserved"},
                    fd(b::frz, attr::rw, "freeze the box's counters (with frz_en)"),
                    {"rsv", 7, 0, attr::rv, "reserved: no reset bits (write each counter to clear it)"}};
        case box_ctl_style::write1_16_17:
            return {{"ig", 31, 18, attr::rv, "ignored"},
                    fd(b::write1, attr::rv_w1, "software must write 1; stored, no effect"),
                    {"ig", 15, 9, attr::rv, "ignored"},
                    fd(b::frz, attr::rw, "freeze the box's counters"),
                    {"ig", 7, 2, attr::rv, "ignored"},
                    fd(b::rst_ctrs, attr::wo, "writing 1 clears the box's counters"),
                    fd(b::rst_ctrl, attr::wo, "writing 1 clears the box's counter controls")};
        case box_ctl_style::none:
            break;
    }
    throw std::logic_error("a PCI PMON box without a BOX_CTL style");
}

register_def id_register(uint16_t device_id) {
    return {"VID_DID", 0x00, 4, (uint64_t{device_id} << 16) | 0x8086u, reg_role::vendor_device, 0,
            {{"device_id", 31, 16, attr::ro, "PCI device ID"},
             {"vendor_id", 15, 0, attr::ro, "0x8086"}}};
}

// The common layout of a PCI PMON function (BOX_CTL, BOX_STATUS, CTLn, CTRn).
register_table pci_pmon_table(const std::string& prefix, const std::string& title,
                              uint16_t device_id, const box_desc& box) {
    // (CTLn from 0xD8 up to BOX_CTL at 0xF4: room for four.)
    if (box.counters > 4) throw std::logic_error(prefix + ": a PCI PMON function has at most 4 counters");
    register_table t;
    t.title = title;
    t.regs.push_back(id_register(device_id));
    t.regs.push_back({prefix + "_BOX_CTL", 0xF4, 4, 0, reg_role::box_ctl, 0, pci_box_ctl_fields(box.box_ctl)});
    // With a fixed counter, bit 0 is its and counter i's is i + 1.
    const unsigned bits = box.counters + (box.fixed_counter ? 1u : 0u);
    t.regs.push_back({prefix + "_BOX_STATUS", 0xF8, 4, 0, reg_role::box_status, 0,
                      {{"rsv", 31, static_cast<uint8_t>(bits), attr::rv, "reserved"},
                       {"ov", static_cast<uint8_t>(bits - 1), 0, attr::rw1c,
                        box.fixed_counter ? "bit 0: the fixed counter overflowed; bit i+1: counter i"
                                          : "counter i overflowed"}}});
    for (uint8_t i = 0; i < box.counters; ++i)
        t.regs.push_back({prefix + "_CTL" + std::to_string(i), 0xD8u + 4u * i, 4, 0,
                          reg_role::ctl, i, pci_ctl_fields(box.ctl)});
    const uint8_t w = static_cast<uint8_t>(box.width);
    if (!box.ctr_offsets.empty() && box.ctr_offsets.size() != box.counters)
        throw std::logic_error(prefix + ": a counter offset per counter");
    for (uint8_t i = 0; i < box.counters; ++i)
        t.regs.push_back({prefix + "_CTR" + std::to_string(i), box.ctr_offsets.empty() ? 0xA0u + 8u * i : box.ctr_offsets[i], 8, 0,
                          reg_role::ctr, i,
                          {{"rsv", 63, w, attr::rv, "reserved"},
                           {"event_count", static_cast<uint8_t>(w - 1), 0, attr::rw_v,
                            "counter value (low dword at +0, high at +4), wraps at 2^" +
                                std::to_string(w)}}});
    if (box.fixed_counter) {
        const attr a = box.ctl.rw_v ? attr::rw_v : attr::rw;
        const uint8_t f = static_cast<uint8_t>(box.counters);
        t.regs.push_back({prefix + "_FIXED_CTL", 0xF0, 4, 0, reg_role::fixed_ctl, f,
                          {{"rsv", 31, 23, attr::rv, "reserved"},
                           fd(ctl_bits::en, a, "enable: counts every cycle of the box's clock"),
                           {"rsv", 21, 21, attr::rv, "reserved"},
                           box.ctl.ov_en ? fd(ctl_bits::ov_en, a, "overflow sets BOX_STATUS bit 0 and messages the UBox")
                                         : field_def{"rsv", 20, 20, attr::rv, "reserved"},
                           fd(fixed_ctl_bits::rst, attr::wo, "writing 1 clears the fixed counter"),
                           {"rsv", 18, 0, attr::rv, "reserved: no event select"}}});
        t.regs.push_back({prefix + "_FIXED_CTR", 0xD0, 8, 0, reg_role::fixed_ctr, f,
                          {{"rsv", 63, w, attr::rv, "reserved"},
                           {"event_count", static_cast<uint8_t>(w - 1), 0, attr::rw_v,
                            "cycles counted (low dword at D0, high at D4), wraps at 2^" + std::to_string(w)}}});
    }
    return t;
}

const box_desc& pci_box(cpu_model cpu, box_kind kind) {
    const box_desc* b = describe(cpu).box(kind);
    if (!b || b->pci.empty())
        throw std::logic_error(std::string(describe(cpu).name) + " has no PCI " + to_string(kind) + " box");
    return *b;
}

const pci_unit& qpi_unit(cpu_model cpu, unsigned port) {
    const box_desc& q = pci_box(cpu, box_kind::qpi);
    if (port >= q.pci.size()) throw std::out_of_range("no QPI port " + std::to_string(port));
    return q.pci[port];
}

// MATCH0/MASK0 hold the low dword of the filter fields, MATCH1/MASK1 the high.
std::vector<field_def> match0_fields(const char* what) {
    namespace m = match_bits;
    const std::string w = what;
    return {fd(m::rnid_4, attr::rw, "remote node ID bit 4 " + w),
            {"rsv", 30, 18, attr::rv, "reserved"},
            fd(m::dnid, attr::rw, "destination node ID " + w),
            fd(m::mc, attr::rw, "message class " + w),
            fd(m::opc, attr::rw, "opcode " + w),
            fd(m::vnw, attr::rw, "virtual network " + w),
            {"rsv", 2, 0, attr::rv, "reserved"}};
}

std::vector<field_def> match1_fields(const char* what) {
    namespace m = match_bits;
    const std::string w = what;
    return {{"rsv", 31, 20, attr::rv, "reserved"},
            fd(m::in_high_dword(m::rds), attr::rw, "response data state " + w),
            {"rsv", 15, 4, attr::rv, "reserved"},
            fd(m::in_high_dword(m::rnid_3_0), attr::rw, "remote node ID bits 3:0 " + w)};
}

}  // namespace

register_table r2pcie_register_table(cpu_model cpu) {
    const box_desc& r = pci_box(cpu, box_kind::r2pcie);
    return pci_pmon_table("R2_PCI_PMON", "R2PCIe PMON function (D19:F1)", r.pci.at(0).pmon_id, r);
}

register_table qpi_pmon_register_table(cpu_model cpu, unsigned port) {
    const std::string p = "Q_P" + std::to_string(port) + "_PCI_PMON";
    return pci_pmon_table(p, "QPI port " + std::to_string(port) + " PMON function (F2)",
                          qpi_unit(cpu, port).pmon_id, pci_box(cpu, box_kind::qpi));
}

register_table imc_register_table(cpu_model cpu, unsigned unit) {
    const box_desc& m = pci_box(cpu, box_kind::imc);
    if (unit >= m.pci.size()) throw std::out_of_range("no memory-controller channel " + std::to_string(unit));
    const pci_unit& u = m.pci[unit];
    const unsigned mc = unit / m.units_per_group, ch = unit % m.units_per_group;
    char title[96];
    std::snprintf(title, sizeof title, "memory controller %u channel %u PMON function (D%u:F%u)", mc, ch, u.device,
                  u.fn);
    return pci_pmon_table("MC" + std::to_string(mc) + "_CH" + std::to_string(ch) + "_PCI_PMON", title, u.pmon_id, m);
}

register_table ha_register_table(cpu_model cpu, unsigned unit) {
    const box_desc& h = pci_box(cpu, box_kind::ha);
    if (unit >= h.pci.size()) throw std::out_of_range("no home agent " + std::to_string(unit));
    const pci_unit& u = h.pci[unit];
    const std::string p = "HA" + std::to_string(unit) + "_PCI_PMON";
    register_table t = pci_pmon_table(p, "home agent " + std::to_string(unit) + " PMON function (D" +
                                             std::to_string(u.device) + ":F" + std::to_string(u.fn) + ")",
                                      u.pmon_id, h);
    // The match registers: sticky (RWS), compared with the requests of
    // qualified event-trace rows for ADDR_OPC_MATCH (decisions.md B7, B14).
    namespace m = ha_match_bits;
    t.regs.push_back({p + "_BOX_ADDRMATCH0", 0x40, 4, 0, reg_role::stored, 0,
                      {fd(m::lo_addr, attr::rw, "physical address bits 31:6 to match"),
                       {"rsv", 5, 0, attr::rv, "reserved"}}});
    t.regs.push_back({p + "_BOX_ADDRMATCH1", 0x44, 4, 0, reg_role::stored, 1,
                      {{"rsv", 31, 14, attr::rv, "reserved"},
                       fd(m::hi_addr, attr::rw, "physical address bits 45:32 to match")}});
    t.regs.push_back({p + "_BOX_OPCODEMATCH", 0x48, 4, 0, reg_role::stored, 2,
                      {{"rsv", 31, 6, attr::rv, "reserved"},
                       fd(m::opc, attr::rw, "opcode to match: 5:4 AD message class, 3:0 QPI opcode")}});
    return t;
}

register_table r3qpi_register_table(cpu_model cpu, unsigned link) {
    const box_desc& r = pci_box(cpu, box_kind::r3qpi);
    if (link >= r.pci.size()) throw std::out_of_range("no R3QPI link " + std::to_string(link));
    const pci_unit& u = r.pci[link];
    return pci_pmon_table("R3_L" + std::to_string(link) + "_PCI_PMON",
                          "R3QPI link " + std::to_string(link) + " PMON function (D" + std::to_string(u.device) +
                              ":F" + std::to_string(u.fn) + ")",
                          u.pmon_id, r);
}

register_table irp_register_table(cpu_model cpu) {
    const box_desc& r = pci_box(cpu, box_kind::irp);
    const pci_unit& u = r.pci.at(0);
    return pci_pmon_table("IRP_PCI_PMON",
                          "IIO ring port PMON function (D" + std::to_string(u.device) + ":F" + std::to_string(u.fn) + ")",
                          u.pmon_id, r);
}

register_table qpi_filter_register_table(cpu_model cpu, unsigned port) {
    register_table t;
    const std::string p = "Q_P" + std::to_string(port) + "_PCI_PMON_PKT_";
    t.title = "QPI port " + std::to_string(port) + " packet filter function (F6)";
    t.regs.push_back(id_register(qpi_unit(cpu, port).filter_id));
    t.regs.push_back({p + "MATCH0", 0x228, 4, 0, reg_role::pkt_match0, 0, match0_fields("to match")});
    t.regs.push_back({p + "MATCH1", 0x22C, 4, 0, reg_role::pkt_match1, 0, match1_fields("to match")});
    t.regs.push_back({p + "MASK0", 0x238, 4, 0, reg_role::pkt_mask0, 0, match0_fields("compared when 1")});
    t.regs.push_back({p + "MASK1", 0x23C, 4, 0, reg_role::pkt_mask1, 0, match1_fields("compared when 1")});
    return t;
}

register_table qpi_misc_register_table(cpu_model cpu, unsigned port) {
    register_table t;
    t.title = "QPI port " + std::to_string(port) + " misc function (F0)";
    t.regs.push_back(id_register(qpi_unit(cpu, port).misc_id));
    t.regs.push_back({"QPI_RATE_STATUS", 0xD4, 4, 0, reg_role::rate_status, 0,
                      {{"rsv", 31, 5, attr::rv, "reserved"},
                       {"slow_mode", 4, 4, attr::ro_v, "link in slow mode (always 0 here)"},
                       {"rsv", 3, 3, attr::rv, "reserved"},
                       {"qpi_rate", 2, 0, attr::ro_v, "GT/s = 4.0 + 0.8 * qpi_rate"}}});
    return t;
}

}  // namespace pmonsim
