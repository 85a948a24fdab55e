// Prints docs/registers.md: the register tables (model/tables) and the event
// catalogs (model/catalog) of both personalities as Markdown, straight from
// the data the model runs on. Links pmonsim_core only.
//
// The CTest test docs_register_reference_up_to_date (docs/CMakeLists.txt) runs
// this program and compares its output with docs/registers.md byte for byte.
// After a deliberate change of a table or catalog, regenerate the file:
//
//     <build>/docs/pmonsim_gen_register_reference > docs/registers.md
//
// Keep the output deterministic: no dates, no paths, no build information.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "desc/cpu.h"
#include "desc/box_spec.h"
#include "tables/register_table.h"

namespace {

using namespace pmonsim;

// PCI device of a QPI port's functions, from the CPU's descriptor.
unsigned qpi_device(cpu_model cpu, unsigned port) { return describe(cpu).need(box_kind::qpi).pci.at(port).device; }

std::string hex(uint64_t v, int digits = 0) {
    char b[32];
    std::snprintf(b, sizeof b, "0x%0*llX", digits, static_cast<unsigned long long>(v));
    return b;
}

// Table cells must not contain a bare '|'.
std::string cell(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '|') out += '\\';
        out += c;
    }
    return out;
}

std::string bits(const field_def& f) {
    return f.hi == f.lo ? std::to_string(f.hi) : std::to_string(f.hi) + ":" + std::to_string(f.lo);
}

// One table: a summary of its registers, then each register's fields. MSR
// addresses print as 0xC08, PCI configuration offsets as 0xF4.
void print_table(const register_table& t, bool msr, const std::string& heading) {
    std::printf("### %s\n\n", heading.c_str());
    std::printf("| Register | %s | Size | Reset |\n", msr ? "MSR" : "Offset");
    std::printf("|---|---|---|---|\n");
    for (const register_def& r : t.regs)
        std::printf("| %s | %s | %u bytes | %s |\n", r.name.c_str(), hex(r.offset, msr ? 3 : 2).c_str(),
                    unsigned(r.size), hex(r.reset).c_str());
    std::printf("\n");
    for (const register_def& r : t.regs) {
        std::printf("#### %s\n\n", r.name.c_str());
        std::printf("%s %s, %u bytes, reset %s.", msr ? "MSR" : "Offset",
                    hex(r.offset, msr ? 3 : 2).c_str(), unsigned(r.size), hex(r.reset).c_str());
        if (r.role == reg_role::rate_status)
            std::printf(" The model returns the code of the configured link rate, not the reset value.");
        std::printf("\n\n");
        std::printf("| Bits | Field | Attribute | Meaning |\n");
        std::printf("|---|---|---|---|\n");
        for (const field_def& f : r.fields)
            std::printf("| %s | %s | %s | %s |\n", bits(f).c_str(), cell(f.name).c_str(),
                        to_string(f.a), cell(f.meaning).c_str());
        std::printf("\n");
    }
}

uint16_t device_id(const register_table& t) {
    const register_def* r = t.find("VID_DID");
    return r ? static_cast<uint16_t>(r->reset >> 16) : 0;
}

void print_registers(cpu_model cpu) {
    const std::string c = to_string(cpu);
    std::printf("## Registers, %s\n\n", c.c_str());

    const register_table msr = socket_msr_table(cpu);
    print_table(msr, true, c + ": " + msr.title);
    // The MSR boxes with registers of their own (caching agents, PCU): unit 0
    // in full, every unit by its BOX_CTL.
    for (const box_desc& b : describe(cpu).boxes) {
        const register_table t0 = make_box_spec(b.kind, cpu, 0).table;
        if (!t0.msr_space || msr.find(t0.regs.front().offset)) continue;  // (the socket's table above)
        print_table(t0, true, c + ": " + t0.title);
        if (b.units < 2) continue;
        std::printf("### %s: %s MSRs of every unit\n\n", c.c_str(), to_string(b.kind));
        std::printf("Every unit has the registers of unit 0 above at its own addresses; a machine has one unit per "
                    "core.\n\n");
        std::printf("| Box | Its BOX_CTL | MSR |\n");
        std::printf("|---|---|---|\n");
        for (unsigned u = 0; u < b.units; ++u) {
            const register_table t = make_box_spec(b.kind, cpu, u).table;
            std::printf("| %s | %s | %s |\n", unit_name(b.kind, u).c_str(), t.regs.front().name.c_str(),
                        hex(t.regs.front().offset, 3).c_str());
        }
        std::printf("\n");
    }
    if (!describe(cpu).box(box_kind::r2pcie)) return;  // (an MSR-only uncore)
    const register_table r2 = r2pcie_register_table(cpu);
    print_table(r2, false, c + ": " + r2.title + ", DID " + hex(device_id(r2), 4));

    // Port 0 in full; the other ports have the same layout under their own
    // name prefix (Q_P1_, Q_P2_) and device IDs, listed below.
    const register_table pm = qpi_pmon_register_table(cpu, 0);
    const register_table fl = qpi_filter_register_table(cpu, 0);
    const register_table mi = qpi_misc_register_table(cpu, 0);
    const std::string dev0 = ", device " + std::to_string(qpi_device(cpu, 0)) + ", DID ";
    print_table(pm, false, c + ": " + pm.title + dev0 + hex(device_id(pm), 4));
    print_table(fl, false, c + ": " + fl.title + dev0 + hex(device_id(fl), 4));
    print_table(mi, false, c + ": " + mi.title + dev0 + hex(device_id(mi), 4));

    std::printf("### %s: QPI functions of every port\n\n", c.c_str());
    std::printf("Every port has the registers of port 0 above, named with its own Q_Pn_ prefix.\n\n");
    std::printf("| Port | PMON (F2) | Filter (F6) | Misc (F0) |\n");
    std::printf("|---|---|---|---|\n");
    for (unsigned p = 0; p < describe(cpu).units(box_kind::qpi); ++p) {
        const unsigned d = qpi_device(cpu, p);
        std::printf("| %u | D%u:F2 DID %s | D%u:F6 DID %s | D%u:F0 DID %s |\n", p, d,
                    hex(device_id(qpi_pmon_register_table(cpu, p)), 4).c_str(), d,
                    hex(device_id(qpi_filter_register_table(cpu, p)), 4).c_str(), d,
                    hex(device_id(qpi_misc_register_table(cpu, p)), 4).c_str());
    }
    std::printf("\n");

    // The other PCI boxes: unit 0 in full, every unit by place and ID.
    for (const box_desc& b : describe(cpu).boxes) {
        if (!pmon_function_per_unit(b.kind)) continue;  // (above, or MSRs)
        const register_table t0 = make_box_spec(b.kind, cpu, 0).table;
        print_table(t0, false, c + ": " + t0.title + ", DID " + hex(device_id(t0), 4));
        std::printf("### %s: %s functions of every unit\n\n", c.c_str(), to_string(b.kind));
        std::printf("Every unit has the registers of unit 0 above, under its own name prefix; a machine has the "
                    "units of the QPI ports and memory controllers it was given.\n\n");
        std::printf("| Box | Function | DID | Its BOX_CTL |\n");
        std::printf("|---|---|---|---|\n");
        for (unsigned u = 0; u < b.units; ++u) {
            const register_table t = make_box_spec(b.kind, cpu, u).table;
            std::printf("| %s | D%u:F%u | %s | %s |\n", unit_name(b.kind, u).c_str(), b.pci[u].device, b.pci[u].fn,
                        hex(b.pci[u].pmon_id, 4).c_str(), t.regs.at(1).name.c_str());
        }
        std::printf("\n");
    }
}

std::string counters(uint8_t m) {
    std::string out;
    for (unsigned i = 0; i < 8; ++i)
        if (m & (1u << i)) out += (out.empty() ? "" : ",") + std::to_string(i);
    return out;
}

std::string umasks(const event_def& e) {
    if (e.umasks.empty()) return "(none: umask 0)";
    std::string out;
    for (const umask_def& u : e.umasks) {
        if (!out.empty()) out += ", ";
        out += u.name + "=" + hex(u.value, 2);
    }
    if (e.umask0_all) out += "; 0 = all";
    return out;
}

void print_catalog(box_kind kind, cpu_model cpu) {
    const event_catalog& cat = catalog_for(kind, cpu);
    std::printf("### Events: %s, %s\n\n", to_string(kind), to_string(cpu));
    std::printf("| Event | Code | Ext | Umasks | Counters | Max inc | Description |\n");
    std::printf("|---|---|---|---|---|---|---|\n");
    for (const event_def& e : cat.events())
        std::printf("| %s | %s | %s | %s | %s | %u | %s |\n", e.name.c_str(), hex(e.code, 2).c_str(),
                    e.ext ? "1" : "0", cell(umasks(e)).c_str(), counters(e.counters).c_str(),
                    unsigned(e.max_inc), cell(e.description).c_str());
    std::printf("\n");
    if (cat.presets().empty()) return;
    std::printf("CTO_COUNT filter presets (%s):\n\n", to_string(cpu));
    std::printf("| Preset | MATCH0 | MASK0 | MATCH1 | MASK1 |\n");
    std::printf("|---|---|---|---|---|\n");
    for (const filter_preset& p : cat.presets())
        std::printf("| %s | %s | %s | %s | %s |\n", p.name.c_str(), hex(p.match0, 8).c_str(),
                    hex(p.mask0, 8).c_str(), hex(p.match1, 8).c_str(), hex(p.mask1, 8).c_str());
    std::printf("\n");
}

}  // namespace

int main() {
    std::printf("# pmonsim register and event reference\n\n");
    std::printf(
        "Generated by docs/gen_register_reference.cpp from the model's register tables\n"
        "(model/tables) and event catalogs (model/catalog). Do not edit by hand: the test\n"
        "docs_register_reference_up_to_date fails when this file and the generator's output\n"
        "differ. Regenerate with `<build>/docs/pmonsim_gen_register_reference > docs/registers.md`.\n\n");
    std::printf(
        "Attributes: RW read/write; RW-V read/write, changed by hardware too; WO write-only\n"
        "action (acts once at the write, reads 0); RW1C set by hardware, cleared by writing 1;\n"
        "RV reserved (reads 0, ignores writes, setting it logs a diagnostic); RV (write 1)\n"
        "software must write 1 (read back as written, no effect, writing 0 logs a diagnostic);\n"
        "RO constant; RO-V read-only hardware state. MSR registers are reached with\n"
        "rdmsr/wrmsr (8 bytes); PCI registers are offsets in the function's configuration\n"
        "space on the socket's uncore bus. The misc-function IDs of port 1 and the filter and\n"
        "misc IDs of port 2 are the model's assumption (docs/decisions.md).\n\n");
    for (const cpu_desc& cpu : cpu_registry()) print_registers(cpu.key);
    std::printf("## Event catalogs\n\n");
    std::printf(
        "Code is ev_sel (CTL bits 7:0); Ext is the QPI extra select bit (CTL bit 21); Umasks are\n"
        "the named sub-event encodings (a counter adds the sub-events of every umask bit set);\n"
        "Counters are the counter indexes the event may use; Max inc is the largest increment\n"
        "per cycle. The fixed counters (UBox, Nehalem/Westmere uncore) have no event select and\n"
        "count uncore clock cycles.\n\n");
    for (const cpu_desc& cpu : cpu_registry())
        for (const box_desc& b : cpu.boxes)
            if (b.events) print_catalog(b.kind, cpu.key);
    return 0;
}
