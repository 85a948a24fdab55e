#include "sim_target.h"

#include <algorithm>
#include <cstdio>

#include "sc/time_util.h"

namespace pmonsim {

sim_target::sim_target(uncore_system& sys, feeder feed, time_ps chunk)
    : sys_(sys), feed_(std::move(feed)), chunk_(chunk) {}

unsigned sim_target::cpu_count() const { return sys_.config().sockets * sys_.config().cpus_per_socket; }

unsigned sim_target::package_of(unsigned cpu) const { return cpu / sys_.config().cpus_per_socket; }

bool sim_target::msr_read(unsigned cpu, uint32_t msr, uint64_t& value) {
    if (feed_) feed_(now_ps() + 1);  // inputs due now are in place before the access
    return sys_.msr_read(cpu, msr, value);
}

bool sim_target::msr_write(unsigned cpu, uint32_t msr, uint64_t value) {
    if (feed_) feed_(now_ps() + 1);
    return sys_.msr_write(cpu, msr, value);
}

bool sim_target::exists(const driver::pci_address& a) const {
    if (a.domain != 0) return false;
    const int s = sys_.socket_of_bus(a.bus);
    return s >= 0 && sys_.socket(static_cast<unsigned>(s)).pci_function_exists(a.dev, a.fn);
}

bool sim_target::pci_read(const driver::pci_address& a, uint32_t offset, unsigned size, uint64_t& value) {
    if (!exists(a) || offset + size > 0x1000) return false;
    if (feed_) feed_(now_ps() + 1);
    value = sys_.pci_read(a.bus, a.dev, a.fn, offset, size);
    return true;
}

bool sim_target::pci_write(const driver::pci_address& a, uint32_t offset, unsigned size, uint64_t value) {
    if (!exists(a) || offset + size > 0x1000) return false;
    if (feed_) feed_(now_ps() + 1);
    sys_.pci_write(a.bus, a.dev, a.fn, offset, size, value);
    return true;
}

std::vector<driver::pci_device_info> sim_target::pci_devices() {
    std::vector<driver::pci_device_info> out;
    for (unsigned s = 0; s < sys_.sockets(); ++s)
        for (const auto& f : sys_.socket(s).pci_functions()) {
            const register_def* id = f.table.find(0u);
            driver::pci_device_info d;
            d.addr = {0, static_cast<uint8_t>(sys_.config().bus_of(s)), static_cast<uint8_t>(f.dev),
                      static_cast<uint8_t>(f.fn)};
            d.vendor = static_cast<uint16_t>(id->reset);
            d.device = static_cast<uint16_t>(id->reset >> 16);
            out.push_back(d);
        }
    std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) {
        return std::tie(x.addr.domain, x.addr.bus, x.addr.dev, x.addr.fn) <
               std::tie(y.addr.domain, y.addr.bus, y.addr.dev, y.addr.fn);
    });
    return out;
}

void sim_target::no_device_selected(const std::string& selection) {
    ++absent_selections_;
    std::string buses;
    for (unsigned s = 0; s < sys_.sockets(); ++s) {
        char b[16];
        std::snprintf(b, sizeof b, "%s%02x", s ? ", " : "", sys_.config().bus_of(s));
        buses += b;
    }
    const time_ps t = now_ps();
    sys_.diagnostics().report({clock_domain(sys_.config().uclk_hz()).cycles_before(t), t, 0, "pci", selection, 0,
                               "setpci selected no device: this machine (" + std::to_string(sys_.sockets()) +
                                   " socket(s), uncore bus " + buses +
                                   ") has no such PCI function; nothing was read or written"});
}

void sim_target::advance(uint64_t ps) {
    // (Checked: a step past the model's time range must not wrap into a
    // time before now, which would never be reached.)
    if (ps > max_model_time - std::min(now_ps(), max_model_time))
        throw std::out_of_range("a wait of " + std::to_string(ps) + " ps would pass the model's time range (2^63 ps)");
    const time_ps end = now_ps() + ps;
    while (now_ps() < end) {
        time_ps step_end = std::min(end, now_ps() + chunk_);
        if (feed_) step_end = std::min(end, std::max(step_end, feed_(step_end)));
        else step_end = end;
        sc_core::wait(from_ps(step_end - now_ps()));
    }
}

uint64_t sim_target::now() const { return now_ps(); }

}  // namespace pmonsim
