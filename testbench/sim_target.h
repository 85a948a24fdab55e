// The driver layer's target implemented on the SystemC model: MSR and PCI
// configuration accesses go to an uncore_system, and advance() lets simulated
// time pass while a feeder posts the trace records that fall due. Must be used
// from an SC_THREAD (advance waits).
#pragma once
#include <functional>

#include "driver/target.h"
#include "sc/uncore_system.h"

namespace pmonsim {

class sim_target : public driver::target {
public:
    // `feed(t)` posts every input whose time is before t and returns the time
    // of the next input it holds; it is called before simulated time reaches
    // t. While inputs keep coming they are posted at most `chunk` ahead (1 us:
    // about a thousand packets per port direction pending, a few tens of kB;
    // 100 ns was 3% slower, 10 us 3% faster for 1 MB more); across a gap with
    // no input, time jumps to the next one at once.
    using feeder = std::function<time_ps(time_ps until)>;
    sim_target(uncore_system& sys, feeder feed = {}, time_ps chunk = 1'000'000);

    unsigned cpu_count() const override;
    unsigned package_of(unsigned cpu) const override;
    bool msr_read(unsigned cpu, uint32_t msr, uint64_t& value) override;
    bool msr_write(unsigned cpu, uint32_t msr, uint64_t value) override;
    bool pci_read(const driver::pci_address& a, uint32_t offset, unsigned size, uint64_t& value) override;
    bool pci_write(const driver::pci_address& a, uint32_t offset, unsigned size, uint64_t value) override;
    std::vector<driver::pci_device_info> pci_devices() override;
    // A diagnostic (box "pci", the selection as its register): software that
    // addresses a function the model lacks is checked like a bad access.
    void no_device_selected(const std::string& selection) override;
    void advance(uint64_t ps) override;
    uint64_t now() const override;
    // How many script commands selected no device (no_device_selected).
    unsigned absent_selections() const { return absent_selections_; }

private:
    bool exists(const driver::pci_address& a) const;

    uncore_system& sys_;
    feeder feed_;
    time_ps chunk_;
    unsigned absent_selections_ = 0;
};

}  // namespace pmonsim
