// A target that reads from another and, instead of writing, prints each write
// it is asked for in the dialect of msr-tools and pciutils (the lines run as
// they are under sh on the machine): `pmon-stat --dry-run` shows everything a
// session would write and touches nothing.
#pragma once
#include <cstdio>
#include <ostream>
#include <string>

#include "driver/target.h"

namespace pmonsim::driver {

class dry_run_target : public target {
public:
    dry_run_target(target& inner, std::ostream& out) : inner_(inner), out_(out) {}

    unsigned cpu_count() const override { return inner_.cpu_count(); }
    unsigned package_of(unsigned cpu) const override { return inner_.package_of(cpu); }
    bool msr_read(unsigned cpu, uint32_t msr, uint64_t& value) override { return inner_.msr_read(cpu, msr, value); }
    bool msr_write(unsigned cpu, uint32_t msr, uint64_t value) override {
        char b[96];
        std::snprintf(b, sizeof b, "wrmsr -p %u 0x%x 0x%llx\n", cpu, msr, static_cast<unsigned long long>(value));
        out_ << b;
        return true;
    }
    bool pci_read(const pci_address& a, uint32_t offset, unsigned size, uint64_t& value) override {
        return inner_.pci_read(a, offset, size, value);
    }
    bool pci_write(const pci_address& a, uint32_t offset, unsigned size, uint64_t value) override {
        if (size == 8)  // (setpci writes at most a dword: low, then high)
            return pci_write(a, offset, 4, value & 0xFFFFFFFF) && pci_write(a, offset + 4, 4, value >> 32);
        const char width = size == 1 ? 'B' : size == 2 ? 'W' : 'L';
        char b[96];
        std::snprintf(b, sizeof b, "setpci -s %04x:%02x:%02x.%u %x.%c=0x%llx\n", a.domain, a.bus, a.dev, a.fn,
                      offset, width, static_cast<unsigned long long>(value));
        out_ << b;
        return true;
    }
    std::vector<pci_device_info> pci_devices() override { return inner_.pci_devices(); }
    void advance(uint64_t ps) override { inner_.advance(ps); }
    uint64_t now() const override { return inner_.now(); }

private:
    target& inner_;
    std::ostream& out_;
};

}  // namespace pmonsim::driver
