// The target interface of the driver layer: what profiler logic needs from a
// machine, implemented both by real hardware (/dev/cpu/N/msr, sysfs PCI config
// space) and by the SystemC model. No SystemC in this interface.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace pmonsim::driver {

struct pci_address {
    uint16_t domain = 0;
    uint8_t bus = 0, dev = 0, fn = 0;
    bool operator==(const pci_address& o) const {
        return domain == o.domain && bus == o.bus && dev == o.dev && fn == o.fn;
    }
};

struct pci_device_info {
    pci_address addr;
    uint16_t vendor = 0, device = 0;
};

class target {
public:
    virtual ~target() = default;

    // Logical CPUs, numbered 0..cpu_count()-1, and the package (socket) of each.
    virtual unsigned cpu_count() const = 0;
    virtual unsigned package_of(unsigned cpu) const { (void)cpu; return 0; }
    // MSR access on one CPU; false when the access fails (the model's #GP,
    // EIO from /dev/cpu/N/msr), and then nothing changed.
    virtual bool msr_read(unsigned cpu, uint32_t msr, uint64_t& value) = 0;
    virtual bool msr_write(unsigned cpu, uint32_t msr, uint64_t value) = 0;
    // PCI configuration access of 1, 2, 4 or 8 bytes; false when the device
    // does not exist or the access failed.
    virtual bool pci_read(const pci_address& a, uint32_t offset, unsigned size, uint64_t& value) = 0;
    virtual bool pci_write(const pci_address& a, uint32_t offset, unsigned size, uint64_t value) = 0;
    // Every PCI function present, in (domain, bus, dev, fn) order.
    virtual std::vector<pci_device_info> pci_devices() = 0;
    // A script command addressed PCI functions this machine does not have:
    // setpci's device selection `selection` ("-s 7f:08.2") matched none. The
    // command itself goes on as setpci does (a warning, nothing accessed); a
    // target that checks the software driving it (the model) records it.
    // Called by script commands only, never by discovery that probes for
    // functions which may be absent.
    virtual void no_device_selected(const std::string& selection) { (void)selection; }

    // Time: let `ps` picoseconds pass (real time on hardware, simulated time
    // on the model, replaying traces), and the time since the target started.
    virtual void advance(uint64_t ps) = 0;
    virtual uint64_t now() const = 0;
};

}  // namespace pmonsim::driver
