// The machine a served model presents to software: its CPUs (topology, APIC
// IDs), its PCI functions (the model's PMON functions with their IDs, and the
// platform functions of platform.h), and the files the Linux kernel would
// show for it (/proc/cpuinfo, the sysfs CPU and PCI trees, /proc/bus/pci, the
// ACPI MCFG table, /dev/cpu/N/msr), written into a directory that the
// interposer serves in place of the host's. Everything comes from the
// model's own description (uncore_system, the CPU descriptor): a CPU added to the
// model is presented without new code here.
//
// Topology (no manual states it; Linux's usual numbering inside a socket):
// CPU c is in socket c / cpus_per_socket; with an even count per socket a
// core has two threads, and thread t of core k is CPU k + t * cores.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sc/uncore_system.h"
#include "serve/platform.h"
#include "serve/protocol.h"

namespace pmonsim::serve {

struct presented_cpu {
    unsigned socket, core, thread;
    uint32_t apic_id;
};

struct presented_function {
    unsigned socket, bus, dev, fn;
    uint16_t vendor, device;
    uint32_t class_code;
    const register_table* table;  // the model's registers; null for a platform function
    std::string what;
    std::vector<platform_dword> dwords;  // a platform function's registers (platform.h)
    uint32_t bdf() const { return wire::bdf(bus, dev, fn); }
    // A platform function's byte at `offset` is in a read-only register.
    bool read_only(uint32_t offset) const;
};

class machine_view {
public:
    machine_view(uncore_system& sys, uint64_t tsc_hz);

    const std::vector<presented_cpu>& cpus() const { return cpus_; }
    const std::vector<presented_function>& functions() const { return functions_; }
    const presented_function* function(uint32_t bdf) const;
    unsigned threads_per_core() const { return threads_; }
    unsigned cores_per_socket() const { return cores_; }
    const cpu_identity& identity() const { return id_; }
    uint64_t tsc_hz() const { return tsc_hz_; }
    // The wire description (hello's reply) without the clock fields.
    wire::machine describe(const std::string& root) const;
    // The standard 64-byte configuration header of a function (IDs, class,
    // revision, header type, subsystem IDs); the rest reads 0.
    void header(const presented_function& f, uint8_t out[64]) const;
    // The whole 4 KiB configuration space at reset: the header, and a
    // platform function's registers; the rest reads 0.
    void config_space(const presented_function& f, uint8_t out[4096]) const;

    // Writes the presented files under `root` (which must exist and be
    // empty). Throws std::runtime_error naming the file that failed.
    void write_tree(const std::string& root) const;

private:
    uncore_system& sys_;
    cpu_identity id_;
    uint64_t tsc_hz_;
    unsigned threads_ = 1, cores_ = 1, smt_shift_ = 0, package_shift_ = 0;
    std::vector<presented_cpu> cpus_;
    std::vector<presented_function> functions_;  // by bdf
    std::string hidden_;  // hidden_host_pmus() of the host (host_pmus.h)
};

// Linux's formats for CPU sets: "0-7,16-23" and "ffff,00000000".
std::string cpu_list(const std::vector<unsigned>& cpus);
std::string cpu_mask(const std::vector<unsigned>& cpus, unsigned cpu_count);

}  // namespace pmonsim::serve
