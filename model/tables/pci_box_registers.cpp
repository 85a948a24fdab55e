// PCI PMON functions: R2PCIe (D19:F1; 327043-001 §2.8, 329468-002 §2.9,
// Tables 2-172..2-176) and the QPI link-layer ports (D8/D9[/D24]:F2 PMON,
// :F6 packet filter, :F0 misc; 327043-001 §2.6, 329468-002 §2.7,
// Tables 2-128..2-138). Choices where the manuals are unclear:
// - BOX_CTL frz/frz_en read back as written (tools read-modify-write them);
// - SNB-EP BOX_CTL bit 17 is stored without effect; IVB-EP bits 17:16 are
//   "software must write 1": stored, no effect, writing 0 is a diagnostic;
// - BOX_STATUS has one RW1C bit per counter (3:0) on both personalities;
// - the port-2 filter and misc functions on IVB-EP (D24:F6, D24:F0) and the
//   port-1 misc device IDs are our own assumption.
#include "tables/register_table.h"

#include <stdexcept>

namespace pmonsim {

namespace {

// What differs between the PCI boxes' counter controls.
struct ctl_shape {
    bool ext;     // QPI extra select bit 21
    bool invert;  // bit 23
    bool ov_en;   // bit 20
};

std::vector<field_def> pci_ctl_fields(ctl_shape s) {
    std::vector<field_def> f = {
        {"thresh", 31, 24, attr::rw_v, "threshold compared with the per-cycle increment"},
        s.invert ? field_def{"invert", 23, 23, attr::rw_v, "count cycles with increment < thresh"}
                 : field_def{"rsv", 23, 23, attr::rv, "reserved (no invert on IVB-EP)"},
        {"en", 22, 22, attr::rw_v, "local counter enable"},
        s.ext ? field_def{"ev_sel_ext", 21, 21, attr::rw_v, "extra event select bit"}
              : field_def{"rsv", 21, 21, attr::rv, "reserved"},
        s.ov_en ? field_def{"ov_en", 20, 20, attr::rw_v, "overflow sets BOX_STATUS and messages the UBox"}
                : field_def{"rsv", 20, 20, attr::rv, "reserved"},
        {"rsv", 19, 19, attr::rv, "reserved"},
        {"edge_det", 18, 18, attr::rw_v, "count 0->1 transitions of the threshold compare"},
        {"rst", 17, 17, attr::wo, "writing 1 clears the paired counter"},
        {"rsv", 16, 16, attr::rv, "reserved"},
        {"umask", 15, 8, attr::rw_v, "sub-event select"},
        {"ev_sel", 7, 0, attr::rw_v, "event select"},
    };
    return f;
}

std::vector<field_def> pci_box_ctl_fields(cpu_model cpu) {
    if (cpu == cpu_model::snb_ep)
        return {{"rsv", 31, 18, attr::rv, "reserved"},
                {"ov_en", 17, 17, attr::rw, "stored, no effect (datasheet: overflow enable)"},
                {"frz_en", 16, 16, attr::rw, "the box obeys frz only when set"},
                {"rsv", 15, 9, attr::rv, "reserved"},
                {"frz", 8, 8, attr::rw, "freeze the box's counters (with frz_en)"},
                {"rsv", 7, 2, attr::rv, "reserved"},
                {"rst_ctrs", 1, 1, attr::wo, "writing 1 clears the box's counters"},
                {"rst_ctrl", 0, 0, attr::wo, "writing 1 clears the box's counter controls"}};
    return {{"ig", 31, 18, attr::rv, "ignored"},
            {"rsv", 17, 16, attr::rv_w1, "software must write 1; stored, no effect"},
            {"ig", 15, 9, attr::rv, "ignored"},
            {"frz", 8, 8, attr::rw, "freeze the box's counters"},
            {"ig", 7, 2, attr::rv, "ignored"},
            {"rst_ctrs", 1, 1, attr::wo, "writing 1 clears the box's counters"},
            {"rst_ctrl", 0, 0, attr::wo, "writing 1 clears the box's counter controls"}};
}

register_def id_register(uint16_t device_id) {
    return {"VID_DID", 0x00, 4, (uint64_t{device_id} << 16) | 0x8086u, reg_role::vendor_device, 0,
            {{"device_id", 31, 16, attr::ro, "PCI device ID"},
             {"vendor_id", 15, 0, attr::ro, "0x8086"}}};
}

// The common layout of a PCI PMON function (BOX_CTL, BOX_STATUS, CTL0-3, CTR0-3).
register_table pci_pmon_table(const std::string& prefix, const std::string& title,
                              uint16_t device_id, cpu_model cpu, ctl_shape shape,
                              unsigned width) {
    register_table t;
    t.title = title;
    t.regs.push_back(id_register(device_id));
    t.regs.push_back({prefix + "_BOX_CTL", 0xF4, 4, 0, reg_role::box_ctl, 0, pci_box_ctl_fields(cpu)});
    t.regs.push_back({prefix + "_BOX_STATUS", 0xF8, 4, 0, reg_role::box_status, 0,
                      {{"rsv", 31, 4, attr::rv, "reserved"},
                       {"ov", 3, 0, attr::rw1c, "counter i overflowed"}}});
    for (uint8_t i = 0; i < 4; ++i)
        t.regs.push_back({prefix + "_CTL" + std::to_string(i), 0xD8u + 4u * i, 4, 0,
                          reg_role::ctl, i, pci_ctl_fields(shape)});
    for (uint8_t i = 0; i < 4; ++i)
        t.regs.push_back({prefix + "_CTR" + std::to_string(i), 0xA0u + 8u * i, 8, 0,
                          reg_role::ctr, i,
                          {{"rsv", 63, static_cast<uint8_t>(width), attr::rv, "reserved"},
                           {"event_count", static_cast<uint8_t>(width - 1), 0, attr::rw_v,
                            "counter value (low dword at +0, high at +4), wraps at 2^" +
                                std::to_string(width)}}});
    return t;
}

uint16_t qpi_id(cpu_model cpu, unsigned port, unsigned fn) {
    static const uint16_t snb[2][3] = {{0x3C80, 0x3C41, 0x3C86}, {0x3C90, 0x3C42, 0x3C96}};
    static const uint16_t ivb[3][3] = {
        {0x0E80, 0x0E32, 0x0E86}, {0x0E90, 0x0E33, 0x0E96}, {0x0EC0, 0x0E3A, 0x0EC6}};
    const unsigned ports = cpu == cpu_model::snb_ep ? 2 : 3;
    if (port >= ports) throw std::out_of_range("no QPI port " + std::to_string(port));
    return cpu == cpu_model::snb_ep ? snb[port][fn] : ivb[port][fn];
}

std::vector<field_def> match0_fields(const char* what) {
    return {{"rnid_4", 31, 31, attr::rw, std::string("remote node ID bit 4 ") + what},
            {"rsv", 30, 18, attr::rv, "reserved"},
            {"dnid", 17, 13, attr::rw, std::string("destination node ID ") + what},
            {"mc", 12, 9, attr::rw, std::string("message class ") + what},
            {"opc", 8, 5, attr::rw, std::string("opcode ") + what},
            {"vnw", 4, 3, attr::rw, std::string("virtual network ") + what},
            {"rsv", 2, 0, attr::rv, "reserved"}};
}

std::vector<field_def> match1_fields(const char* what) {
    return {{"rsv", 31, 20, attr::rv, "reserved"},
            {"rds", 19, 16, attr::rw, std::string("response data state ") + what},
            {"rsv", 15, 4, attr::rv, "reserved"},
            {"rnid_3_0", 3, 0, attr::rw, std::string("remote node ID bits 3:0 ") + what}};
}

}  // namespace

register_table r2pcie_register_table(cpu_model cpu) {
    const bool snb = cpu == cpu_model::snb_ep;
    return pci_pmon_table("R2_PCI_PMON", "R2PCIe PMON function (D19:F1)", snb ? 0x3C43 : 0x0E34, cpu,
                          {false, snb, !snb}, 44);
}

register_table qpi_pmon_register_table(cpu_model cpu, unsigned port) {
    const bool snb = cpu == cpu_model::snb_ep;
    const std::string p = "Q_P" + std::to_string(port) + "_PCI_PMON";
    return pci_pmon_table(p, "QPI port " + std::to_string(port) + " PMON function (F2)",
                          qpi_id(cpu, port, 1), cpu, {true, snb, !snb}, 48);
}

register_table qpi_filter_register_table(cpu_model cpu, unsigned port) {
    register_table t;
    const std::string p = "Q_P" + std::to_string(port) + "_PCI_PMON_PKT_";
    t.title = "QPI port " + std::to_string(port) + " packet filter function (F6)";
    t.regs.push_back(id_register(qpi_id(cpu, port, 2)));
    t.regs.push_back({p + "MATCH0", 0x228, 4, 0, reg_role::pkt_match0, 0, match0_fields("to match")});
    t.regs.push_back({p + "MATCH1", 0x22C, 4, 0, reg_role::pkt_match1, 0, match1_fields("to match")});
    t.regs.push_back({p + "MASK0", 0x238, 4, 0, reg_role::pkt_mask0, 0, match0_fields("compared when 1")});
    t.regs.push_back({p + "MASK1", 0x23C, 4, 0, reg_role::pkt_mask1, 0, match1_fields("compared when 1")});
    return t;
}

register_table qpi_misc_register_table(cpu_model cpu, unsigned port) {
    register_table t;
    t.title = "QPI port " + std::to_string(port) + " misc function (F0)";
    t.regs.push_back(id_register(qpi_id(cpu, port, 0)));
    t.regs.push_back({"QPI_RATE_STATUS", 0xD4, 4, 0, reg_role::rate_status, 0,
                      {{"rsv", 31, 5, attr::rv, "reserved"},
                       {"slow_mode", 4, 4, attr::ro_v, "link in slow mode (always 0 here)"},
                       {"rsv", 3, 3, attr::rv, "reserved"},
                       {"qpi_rate", 2, 0, attr::ro_v, "GT/s = 4.0 + 0.8 * qpi_rate"}}});
    return t;
}

}  // namespace pmonsim
