#include "sc/uncore_config.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "desc/fields.h"

namespace pmonsim {

uint64_t uncore_config::uclk_hz() const { return static_cast<uint64_t>(std::llround(uclk_mhz * 1e6)); }
uint64_t uncore_config::qclk_hz() const { return static_cast<uint64_t>(std::llround(qpi_gts * 1e9 / 8)); }
uint64_t uncore_config::dclk_hz() const { return static_cast<uint64_t>(std::llround(dclk_mhz * 1e6)); }
uint64_t uncore_config::pclk_hz() const { return static_cast<uint64_t>(std::llround(pclk_mhz * 1e6)); }

unsigned uncore_config::units_present(const box_desc& d) const {
    switch (d.present) {
        case unit_count::all: return d.units;
        case unit_count::per_qpi_port: return std::min(d.units, qpi_ports);
        case unit_count::per_memory_controller: return std::min(d.units, memory_controllers * d.units_per_group);
        case unit_count::per_core: return std::min(d.units, cores_per_socket());
    }
    return d.units;
}

unsigned uncore_config::bus_of(unsigned socket) const {
    if (!buses.empty()) return buses.at(socket);
    switch (describe(cpu).bus_numbering) {
        case uncore_bus_numbering::top_of_half: return 0xFF - 0x80 * (sockets - 1 - socket);  // 0xFF; 0x7F, 0xFF
        case uncore_bus_numbering::last_buses: return 0xFF - socket;                            // 0xFF; 0xFF, 0xFE
    }
    return 0xFF;
}

uint32_t uncore_config::uclk_ratio() const {
    const uclk_ratio_desc& u = describe(cpu).uclk;
    switch (u.report) {
        case uclk_report::none: return 0;
        case uclk_report::noncore_ratio: {
            // (BCLK is 400/3 MHz, so a UCLK typed to the MHz, 2666 or 2667 for
            // ratio 20, is within 1 MHz of its multiple; the next is 133 away.)
            const long r = std::lround(uclk_mhz / u.bclk_mhz);
            if (r < 1 || static_cast<uint64_t>(r) > nhm_bits::uclk_ratio.mask() >> nhm_bits::uclk_ratio.lo ||
                !(std::fabs(uclk_mhz - static_cast<double>(r) * u.bclk_mhz) < 1.0))
                return 0;
            return static_cast<uint32_t>(r);
        }
    }
    return 0;
}

uint32_t uncore_config::qpi_rate_code() const {
    const double v = (qpi_gts - 4.0) / 0.8;
    const long r = std::lround(v);
    if (std::fabs(v - r) > 1e-6 || r < 2 || r > 7) return 0;
    return static_cast<uint32_t>(r);
}

void uncore_config::validate() const {
    if (sockets < 1 || sockets > 2)
        throw std::invalid_argument("--sockets must be 1 or 2 (E5-2600 parts are 2-socket)");
    const cpu_desc& d = describe(cpu);
    const unsigned max_ports = d.units(box_kind::qpi);
    // (A CPU without QPI PMON boxes ignores the option.)
    if (max_ports > 0 && (qpi_ports < 1 || qpi_ports > max_ports))
        throw std::invalid_argument("--qpi-ports must be 1.." + std::to_string(max_ports) + " on " +
                                    to_string(cpu));
    if (const box_desc* m = d.box(box_kind::imc)) {
        const unsigned max_mc = m->units / m->units_per_group;
        if (memory_controllers < 1 || memory_controllers > max_mc)
            throw std::invalid_argument("--memory-controllers must be 1" +
                                        (max_mc > 1 ? ".." + std::to_string(max_mc) : std::string()) + " on " +
                                        to_string(cpu));
    }
    if (!(dclk_mhz >= 200 && dclk_mhz <= 2000))
        throw std::invalid_argument("--dclk-mhz must be between 200 and 2000 (DDR3-1600: 800)");
    if (cpus_per_socket < 1 || cpus_per_socket > 64)
        throw std::invalid_argument("--cpus-per-socket must be 1..64");
    if (!(uclk_mhz >= 100 && uclk_mhz <= 10000))
        throw std::invalid_argument("--uclk-mhz must be between 100 and 10000");
    switch (d.uclk.report) {
        case uclk_report::none: break;
        case uclk_report::noncore_ratio:
            if (uclk_ratio() == 0)  // CURRENT_UCLK_RATIO could not report the clock the counters count
                throw std::invalid_argument(
                    "--uclk-mhz must be a whole multiple of the 133.33 MHz base clock on " + std::string(d.name) +
                    " (its uncore clock ratio register reads the multiple): 2000 (15), 2133.33 (16), 2400 (18), "
                    "2666.67 (20), ...");
            break;
    }
    if (qpi_rate_code() == 0)  // QPI_RATE_STATUS could not report any other rate
        throw std::invalid_argument(
            "--qpi-gts must be a QPI link rate: 5.6, 6.4, 7.2, 8.0, 8.8 or 9.6");
    if (freeze_latency > 1000) throw std::invalid_argument("--freeze-latency must be at most 1000");
    switch (d.global) {
        case global_control::none:
        case global_control::uncore_global_ctrl:  // (PMI_FRZ clears enables; there is no freeze state)
            if (start_frozen)
                throw std::invalid_argument(std::string("--start-frozen needs a global freeze, which ") +
                                            d.name + " does not have");
            break;
        case global_control::ubox_freeze: break;
    }
    if (!buses.empty()) {
        if (buses.size() != sockets) throw std::invalid_argument("one uncore bus per socket is needed");
        for (unsigned b : buses)
            if (b > 0xFF) throw std::invalid_argument("uncore bus numbers are 0..255");
        if (sockets == 2 && buses[0] == buses[1]) throw std::invalid_argument("uncore buses must differ");
    }
}

}  // namespace pmonsim
