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
    unsigned freeze_latency = 3;      // UCLK cycles
    bool start_frozen = false;        // global freeze asserted at power-on (CPUs that have one)
    std::vector<unsigned> buses;      // uncore PCI bus per socket; empty: defaults

    uint64_t uclk_hz() const;
    uint64_t qclk_hz() const;
    unsigned bus_of(unsigned socket) const;
    // QPI_RATE_STATUS.qpi_rate for qpi_gts, or 0 when the rate has no code.
    uint32_t qpi_rate_code() const;
    // Throws std::invalid_argument naming the offending option.
    void validate() const;
};

}  // namespace pmonsim
