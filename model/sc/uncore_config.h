// Configuration of a modelled machine: personality, topology and clocks
// (DECISIONS.md "Personalities", "Clocks and time").
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "desc/cpu.h"

namespace pmonsim {

struct uncore_config {
    cpu_model cpu = default_cpu;
    unsigned sockets = 1;
    unsigned qpi_ports = 2;           // up to the CPU's QPI units
    unsigned cpus_per_socket = 16;
    double uclk_mhz = 2000.0;
    double qpi_gts = 8.0;             // QCLK = GT/s / 8
    double dclk_mhz = 800.0;          // DRAM clock, half the DDR rate (DDR3-1600)
    // The PCU's clock: fixed at 800 MHz (Intel's catalog text for
    // UNC_P_CLOCKTICKS), so not an option of the tools.
    double pclk_mhz = 800.0;
    unsigned memory_controllers = 1;  // up to the CPU's (4 iMC channels each)
    unsigned freeze_latency = 3;      // UCLK cycles
    bool start_frozen = false;        // global freeze asserted at power-on (CPUs that have one)
    std::vector<unsigned> buses;      // uncore PCI bus per socket; empty: defaults

    uint64_t uclk_hz() const;
    uint64_t qclk_hz() const;
    uint64_t dclk_hz() const;
    uint64_t pclk_hz() const;
    // Cores per socket: two threads each when cpus_per_socket is even.
    unsigned cores_per_socket() const { return cpus_per_socket % 2 == 0 ? cpus_per_socket / 2 : cpus_per_socket; }
    // The units of a box this machine has: the QPI ports and memory
    // controllers it was given, else all of the descriptor's.
    unsigned units_present(const box_desc& d) const;
    // The socket's uncore PCI bus: `buses`, or the CPU's numbering
    // (uncore_bus_numbering; decisions.md P3, N12).
    unsigned bus_of(unsigned socket) const;
    // QPI_RATE_STATUS.qpi_rate for qpi_gts, or 0 when the rate has no code.
    uint32_t qpi_rate_code() const;
    // CURRENT_UCLK_RATIO for uclk_mhz on a CPU that has it (uclk_ratio_desc):
    // the whole ratio to BCLK within 1 MHz of uclk_mhz; 0 when it has none, or
    // when uclk_mhz is no such multiple (decisions.md N12).
    uint32_t uclk_ratio() const;
    // Throws std::invalid_argument naming the offending option.
    void validate() const;
};

}  // namespace pmonsim
