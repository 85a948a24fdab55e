// The driver layer's target on a real Linux machine: MSRs through the msr
// kernel module (/dev/cpu/N/msr, as msr-tools' rdmsr/wrmsr use it) and PCI
// configuration space through sysfs (/sys/bus/pci/devices/D:B:D.F/config, as
// pciutils' setpci uses it). Every path is taken under a configurable root
// ("/" on a machine), so tests run it against a directory tree of regular
// files.
//
// When errors are reported:
//   - Setup problems throw hw_error, whose message says what to do: the msr
//     module is not loaded, permission is denied (open() failing with EACCES
//     or EPERM, or a read/write refused with EPERM, e.g. MSR writes under
//     kernel lockdown). They are found lazily: when an MSR of a CPU, or a PCI
//     function, is first accessed (its file is then opened and kept open
//     until the target is destroyed). So a PCI-only run (setpci scripts,
//     topology discovery) works without the msr module. A tool that wants to
//     fail before doing anything calls check_msr_access(), which opens the
//     MSR file of every present CPU at once.
//   - Accesses that fail return false (the target contract) and leave the
//     reason in last_error(): an MSR the CPU does not implement (EIO from the
//     msr driver, the #GP of rdmsr/wrmsr; a short read counts as EIO), an
//     offline or non-existent CPU, a PCI function that does not exist, a
//     configuration access outside the function's configuration space.
//   - The constructor throws hw_error only when it finds no CPU at all.
// Not thread-safe: one thread uses a target at a time.
#pragma once
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "desc/cpu.h"
#include "driver/target.h"

namespace pmonsim::driver {

// A problem with the machine's setup; the message says how to fix it.
class hw_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The personality of the CPU described by ROOT/proc/cpuinfo: GenuineIntel
// family 6 model 0x2D (45) is snb-ep, model 0x3E (62) is ivb-ep. nullopt for
// any other CPU, or when the file cannot be read or lacks the fields. (Model
// 0x2D also covers the E5-4600 and E5-1600, model 0x3E the E7 v2: their
// uncores are what discover() finds.)
std::optional<cpu_model> detect_cpu_model(const std::string& root = "/");
// The same, but throws hw_error naming the vendor, family and model found and
// the supported ones when the CPU is not supported (or cpuinfo is unreadable).
cpu_model require_supported_cpu(const std::string& root = "/");

// "DDDD:BB:DD.F", as sysfs names PCI functions.
std::string pci_slot_name(const pci_address& a);

class hw_target : public target {
public:
    // package_of() for a CPU whose ROOT/sys/devices/system/cpu/cpuN/topology/
    // physical_package_id cannot be read (an offline CPU, a hole in the numbering).
    static constexpr unsigned no_package = ~0u;

    // CPUs: the numeric entries of ROOT/dev/cpu/, or, when there are none,
    // the list in ROOT/sys/devices/system/cpu/online. cpu_count() is the
    // highest CPU number + 1; an access to a CPU in a hole of the numbering
    // (offline) fails. Throws hw_error when neither source names a CPU.
    explicit hw_target(std::string root = "/");
    ~hw_target() override;
    hw_target(const hw_target&) = delete;
    hw_target& operator=(const hw_target&) = delete;

    const std::string& root() const { return root_; }
    bool cpu_present(unsigned cpu) const;

    unsigned cpu_count() const override;
    unsigned package_of(unsigned cpu) const override;
    // pread/pwrite of 8 bytes at offset `msr` of ROOT/dev/cpu/N/msr.
    bool msr_read(unsigned cpu, uint32_t msr, uint64_t& value) override;
    bool msr_write(unsigned cpu, uint32_t msr, uint64_t value) override;
    // pread/pwrite of `size` (1, 2, 4, 8) bytes, little-endian, at `offset`
    // (offset + size <= 4096) of ROOT/sys/bus/pci/devices/D:B:D.F/config.
    bool pci_read(const pci_address& a, uint32_t offset, unsigned size, uint64_t& value) override;
    bool pci_write(const pci_address& a, uint32_t offset, unsigned size, uint64_t value) override;
    // The entries of ROOT/sys/bus/pci/devices/ named like "0000:ff:08.2", with
    // the IDs from their `vendor` and `device` files (or config bytes 0..3;
    // 0xffff when neither can be read), in (domain, bus, dev, fn) order.
    std::vector<pci_device_info> pci_devices() override;
    // Real time: advance() sleeps, now() is steady_clock since construction.
    void advance(uint64_t ps) override;
    uint64_t now() const override;

    // Opens the MSR file of every present CPU now; throws hw_error on the
    // first setup problem (module not loaded, permission denied).
    void check_msr_access();
    // Why the most recent failing access failed; successful accesses leave it
    // unchanged. Empty before the first failure.
    const std::string& last_error() const { return last_error_; }

protected:
    // The system calls, so tests can inject failures. Same contract as
    // open(2), pread(2), pwrite(2): -1 with errno set on failure.
    virtual int sys_open(const std::string& path, int flags);
    virtual ssize_t sys_pread(int fd, void* buf, size_t n, off_t offset);
    virtual ssize_t sys_pwrite(int fd, const void* buf, size_t n, off_t offset);

private:
    std::string path(const std::string& rel) const;
    std::string msr_path(unsigned cpu) const;
    std::string config_path(const pci_address& a) const;
    int msr_fd(unsigned cpu);  // -1 (and last_error_) when the CPU cannot be used
    int config_fd(const pci_address& a);
    bool fail(std::string why);

    std::string root_;  // without a trailing '/'
    std::vector<bool> present_;
    std::vector<unsigned> package_;
    std::vector<int> msr_fds_;
    std::map<uint64_t, int> config_fds_;
    std::string last_error_;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace pmonsim::driver
