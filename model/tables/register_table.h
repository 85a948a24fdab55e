// Registers as data: every PMON register of a box, with its fields, attributes
// and reset value, per personality. The tables (ubox_registers.cpp,
// pci_box_registers.cpp) follow the field tables of
// 327043-001 and 329468-002 as settled by DECISIONS.md; the generic write
// semantics (RW, RW1C, WO pulses, reserved bits) are the free functions below.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "desc/cpu.h"
#include "desc/fields.h"

namespace pmonsim {

enum class attr : uint8_t {
    rw,     // read/write
    rw_v,   // read/write, hardware may change it (counters)
    wo,     // write-only action: acts once at the write, reads 0
    rw1c,   // status: hardware sets, writing 1 clears
    rv,     // reserved: reads 0, ignores writes, setting it is a diagnostic
    rv_w1,  // reserved "software must write 1": reads back as written, no effect,
            // writing 0 is a diagnostic (IVB-EP BOX_CTL 17:16)
    ro,     // read-only constant (IDs)
    ro_v,   // read-only, hardware-defined value (QPI_RATE_STATUS)
};
const char* to_string(attr a);

struct field_def {
    std::string name;
    uint8_t hi, lo;
    attr a;
    std::string meaning;
    const bitfield* decl = nullptr;  // its declaration, for a field with behaviour

    bool is(const bitfield& b) const { return decl == &b; }
};
// A field with behaviour, from its one declaration (desc/fields.h).
inline field_def fd(const bitfield& b, attr a, std::string meaning) {
    return {b.name, b.hi, b.lo, a, std::move(meaning), &b};
}
// The same under the name a manual gives it in one register.
inline field_def fd(const bitfield& b, const char* name, attr a, std::string meaning) {
    return {name, b.hi, b.lo, a, std::move(meaning), &b};
}

// What a register is to the box that owns it.
enum class reg_role : uint8_t {
    box_ctl, box_status, ctl, ctr, fixed_ctl, fixed_ctr,
    global_ctl, global_status, global_config,
    pkt_match0, pkt_match1, pkt_mask0, pkt_mask1, rate_status, vendor_device,
    global_ovf_ctrl, addr_match,  // Nehalem/Westmere
    stored,  // holds what software writes, with no effect on counting (HA match registers)
    band_filter,  // the PCU's PCU_MSR_PMON_BOX_FILTER: the band events' thresholds
};

struct register_def {
    std::string name;
    uint32_t offset;    // PCI config offset, or MSR address
    uint8_t size;       // bytes: 4 or 8
    uint64_t reset;
    reg_role role;
    uint8_t index;      // counter index for ctl/ctr
    std::vector<field_def> fields;

    uint64_t mask_of(attr a) const;
    uint64_t stored_mask() const;  // bits that hold state: rw, rw_v, rw1c, rv_w1, ro, ro_v
};

struct register_table {
    std::string title;  // e.g. "QPI link layer PMON function (D8:F2, D9:F2)"
    std::vector<register_def> regs;
    // MSR space: an address names one whole register (0xC08 and 0xC09 are two
    // 8-byte registers); PCI space: offsets are bytes.
    bool msr_space = false;
    // The register at an MSR address, or covering a PCI byte offset.
    const register_def* find(uint32_t offset) const;
    const register_def* find(const std::string& name) const;
};

// BOX_CTL of an MSR box with registers of its own (caching agents, PCU):
// frz_en (SNB-EP) or bits 17:16 "write 1" (IVB-EP), frz and the resets.
std::vector<field_def> msr_box_ctl_fields(box_ctl_style style);
// An 8-byte MSR counter of `width` bits.
register_def msr_counter(const std::string& name, uint32_t msr, unsigned width, reg_role role, uint8_t index);

// Generic write semantics shared by every register owner.
// New stored value after a write of `value` over the bits in `mask`: RW, RW-V
// and write-1 bits take the written value; other bits keep `old`.
uint64_t merge_write(const register_def& r, uint64_t old, uint64_t value, uint64_t mask);
// RW1C bits the write clears, and WO bits it pulses.
uint64_t clears_of(const register_def& r, uint64_t value, uint64_t mask);
uint64_t pulses_of(const register_def& r, uint64_t value, uint64_t mask);
// One-line reasons the write is questionable (reserved bits set, write-1 bits
// written as 0); empty when it is clean.
std::vector<std::string> write_problems(const register_def& r, uint64_t value, uint64_t mask);

// Tables by box and CPU, built from its descriptor (desc/cpu.h). `port` tells
// which instance the register names refer to.
register_table ubox_register_table(cpu_model cpu);
register_table r2pcie_register_table(cpu_model cpu);
register_table qpi_pmon_register_table(cpu_model cpu, unsigned port);
register_table qpi_filter_register_table(cpu_model cpu, unsigned port);
register_table qpi_misc_register_table(cpu_model cpu, unsigned port);
// A memory-controller channel's PMON function (unit u: channel u % 4 of
// controller u / 4).
register_table imc_register_table(cpu_model cpu, unsigned unit);
// A home agent's PMON function (with its address/opcode match registers) and
// an R3QPI link's.
register_table ha_register_table(cpu_model cpu, unsigned unit);
register_table r3qpi_register_table(cpu_model cpu, unsigned link);
// IVB-EP's IIO ring port PMON function (05.6).
register_table irp_register_table(cpu_model cpu);
// A caching agent's MSRs (box n at 0xD04 + 0x20n).
register_table cbo_register_table(cpu_model cpu, unsigned unit);
// The PCU's MSRs (BOX_CTL 0xC24 ... CTR3 0xC39, the residency counters 0x3FC/0x3FD).
register_table pcu_register_table(cpu_model cpu);
// Nehalem-EP/Westmere-EP: the socket's uncore MSRs (global control, fixed
// counter, address/opcode match, eight general counters).
register_table nhm_uncore_register_table(cpu_model cpu);
// The MSRs of a socket, whichever boxes and global control the CPU has.
register_table socket_msr_table(cpu_model cpu);

}  // namespace pmonsim
