// Discovery of the uncore PMON boxes of a machine through the target
// interface: which PCI bus holds each socket's uncore, which QPI port
// functions exist there, and a CPU of each socket (for the UBox MSRs).
//
// Device IDs (vendor 0x8086), each at a fixed device:function of the uncore bus:
//                     snb-ep                      ivb-ep
//   R2PCIe D19:F1     0x3C43                      0x0E34
//   QPI port          0 (D8)  1 (D9)              0 (D8)  1 (D9)  2 (D24)
//     PMON     F2     0x3C41  0x3C42              0x0E32  0x0E33  0x0E3A
//     filter   F6     0x3C86  0x3C96              0x0E86  0x0E96  0x0EC6
//     misc     F0     0x3C80  0x3C90              0x0E80  0x0E90  0x0EC0
// (As in model/tables/pci_box_registers.cpp; the ivb-ep port-2 filter and
// misc functions and the port-1 misc IDs are the model's assumption, see
// DECISIONS.md "Personalities".)
//
// Rules:
//   - The caching agents (MSRs): those whose BOX_CTL reads (msr_units).
//   - The memory-controller channels, home agents and R3QPI links: at the
//     device, function and ID of the CPU's descriptor (decisions.md B1,
//     B5, B6), listed in pci_units.
//   - A function counts only with the expected ID at its expected place.
//   - A bus (in a PCI domain) is a socket's uncore bus when any of the
//     functions above is on it (normally the R2PCIe; has_r2pcie says whether
//     it is). Sockets are numbered in (domain, bus) order, and socket s is
//     taken to be CPU package s (Linux's physical_package_id), which holds on
//     the two-socket machines where the BIOS gives socket 0 the lower bus.
//   - A CPU whose PMON is all MSRs (nhm-ep, wsm-ep) has no uncore bus: each
//     CPU package is a socket, reached through its lowest CPU.
//   - discover() throws hw_error when no uncore bus is found, when a socket
//     has no QPI PMON function (the BIOS hides them), and when the CPUs are
//     in more packages than there are uncore buses.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "desc/cpu.h"
#include "driver/hw_target.h"
#include "driver/target.h"

namespace pmonsim::driver {

enum class qpi_function : uint8_t { misc = 0, pmon = 2, filter = 6 };  // value: PCI function number

struct socket_info {
    static constexpr unsigned no_cpu = ~0u;

    unsigned socket = 0;
    uint8_t bus = 0;
    uint16_t domain = 0;
    unsigned first_cpu = no_cpu;      // lowest CPU with package_of == socket; no_cpu if none
    bool has_r2pcie = false;
    std::vector<unsigned> qpi_ports;    // ports whose PMON function (F2) exists
    std::vector<unsigned> qpi_filters;  // ports with a packet filter function (F6)
    std::vector<unsigned> qpi_misc;     // ports with a misc function (F0, QPI_RATE_STATUS)
    bool has_rate_status = false;       // !qpi_misc.empty(): the link rate can be read
    // Units of the other PCI boxes (iMC channels, HAs, R3QPI links) whose PMON
    // function exists with its ID, by kind.
    std::vector<std::pair<box_kind, unsigned>> pci_units;
    // Units of the MSR boxes of several units (the caching agents) whose
    // BOX_CTL the socket's first CPU reads.
    std::vector<std::pair<box_kind, unsigned>> msr_units;
    bool has(box_kind kind, unsigned unit) const;
};

struct topology {
    cpu_model cpu = default_cpu;
    unsigned cpus = 0;  // target::cpu_count()
    std::vector<socket_info> sockets;
};

topology discover(target& t, cpu_model cpu);

// The IDs and places discover() looks for.
unsigned qpi_port_count(cpu_model cpu);                                // 2 on snb-ep, 3 on ivb-ep
uint16_t r2pcie_device_id(cpu_model cpu);
uint16_t qpi_device_id(cpu_model cpu, unsigned port, qpi_function f);  // throws std::out_of_range
uint8_t qpi_device_number(unsigned port);                              // 8, 9, 24
pci_address r2pcie_address(const socket_info& s);                      // D19:F1
pci_address qpi_address(const socket_info& s, unsigned port, qpi_function f);
// The PMON function of unit `unit` of a PCI box of `cpu` (its descriptor's
// device and function), on the socket's bus.
pci_address pmon_address(const socket_info& s, cpu_model cpu, box_kind kind, unsigned unit);

}  // namespace pmonsim::driver
