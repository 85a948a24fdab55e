// A fake machine for driver tests: a directory tree with /dev/cpu/N/msr,
// sysfs PCI config space and /proc/cpuinfo as regular files, which
// hw_target reads and writes like the real ones.
#pragma once
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "driver/topology.h"

namespace pmonsim::driver::test {

namespace fs = std::filesystem;

// A machine's file tree in a fresh temporary directory.
class fake_tree {
public:
    fake_tree() {
        std::string t = fs::temp_directory_path().string() + "/pmonsim_hw_XXXXXX";
        if (!::mkdtemp(t.data())) throw std::runtime_error("mkdtemp failed");
        root_ = t;
    }
    ~fake_tree() {
        std::error_code ec;
        fs::permissions(root_, fs::perms::owner_all, fs::perm_options::add, ec);
        fs::remove_all(root_, ec);
    }
    fake_tree(const fake_tree&) = delete;
    fake_tree& operator=(const fake_tree&) = delete;

    const std::string& root() const { return root_; }
    std::string at(const std::string& rel) const { return root_ + rel; }

    void file(const std::string& rel, const std::string& text) const {
        fs::create_directories(fs::path(at(rel)).parent_path());
        std::ofstream(at(rel), std::ios::binary) << text;
    }
    // CPU n: an empty (sparse) MSR file and its package.
    void cpu(unsigned n, unsigned package) const {
        file("/dev/cpu/" + std::to_string(n) + "/msr", "");
        file("/sys/devices/system/cpu/cpu" + std::to_string(n) + "/topology/physical_package_id",
             std::to_string(package) + "\n");
    }
    std::string msr_file(unsigned cpu) const { return "/dev/cpu/" + std::to_string(cpu) + "/msr"; }
    void msr(unsigned cpu, uint32_t addr, uint64_t value) const { put(msr_file(cpu), addr, value, 8); }
    // A PCI function with a 4096-byte (or `size`) config file; the vendor and
    // device files too unless `id_files` is false.
    void pci(const std::string& slot, uint16_t vendor, uint16_t device, bool id_files = true,
             size_t size = 4096) const {
        const std::string dir = "/sys/bus/pci/devices/" + slot;
        file(dir + "/config", std::string(size, '\0'));
        put(dir + "/config", 0, vendor, 2);
        put(dir + "/config", 2, device, 2);
        if (id_files) {
            file(dir + "/vendor", hex4(vendor) + "\n");
            file(dir + "/device", hex4(device) + "\n");
        }
    }
    std::string config(const std::string& slot) const { return "/sys/bus/pci/devices/" + slot + "/config"; }
    void cpuinfo(unsigned family, unsigned model, const std::string& vendor = "GenuineIntel") const {
        std::string block = "processor\t: 0\nvendor_id\t: " + vendor + "\ncpu family\t: " + std::to_string(family) +
                            "\nmodel\t\t: " + std::to_string(model) +
                            "\nmodel name\t: Intel(R) Xeon(R) CPU E5-2680 v2 @ 2.80GHz\nstepping\t: 4\n\n";
        file("/proc/cpuinfo", block + "processor\t: 1\nvendor_id\t: " + vendor +
                                  "\ncpu family\t: 6\nmodel\t\t: 1\n\n");
    }

    // `n` bytes of a file at `offset` (fewer at its end).
    std::vector<uint8_t> bytes(const std::string& rel, uint64_t offset, size_t n) const {
        std::vector<uint8_t> b(n);
        const int fd = ::open(at(rel).c_str(), O_RDONLY);
        const ssize_t r = ::pread(fd, b.data(), n, static_cast<off_t>(offset));
        ::close(fd);
        b.resize(r < 0 ? 0 : static_cast<size_t>(r));
        return b;
    }
    uint64_t size(const std::string& rel) const { return fs::file_size(at(rel)); }
    void put(const std::string& rel, uint64_t offset, uint64_t value, unsigned n) const {
        uint8_t b[8];
        for (unsigned i = 0; i < n; ++i) b[i] = static_cast<uint8_t>(value >> (8 * i));
        const int fd = ::open(at(rel).c_str(), O_WRONLY);
        if (fd < 0 || ::pwrite(fd, b, n, static_cast<off_t>(offset)) != static_cast<ssize_t>(n))
            throw std::runtime_error("cannot write " + at(rel));
        ::close(fd);
    }

    static std::string hex4(uint16_t v) {
        char b[8];
        std::snprintf(b, sizeof b, "0x%04x", v);
        return b;
    }

private:
    std::string root_;
};


// The PCI functions of one socket's uncore: R2PCIe and the QPI ports' misc,
// PMON and filter functions, each unless left out.
struct uncore_parts {
    bool r2pcie = true;
    std::vector<unsigned> pmon, filter, misc;
};

inline void add_uncore(const fake_tree& t, cpu_model cpu, const std::string& bus, const uncore_parts& p) {
    char slot[32];
    if (p.r2pcie) t.pci("0000:" + bus + ":13.1", 0x8086, r2pcie_device_id(cpu));
    for (unsigned port : p.pmon) {
        std::snprintf(slot, sizeof slot, "0000:%s:%02x.2", bus.c_str(), qpi_device_number(port));
        t.pci(slot, 0x8086, qpi_device_id(cpu, port, qpi_function::pmon));
    }
    for (unsigned port : p.filter) {
        std::snprintf(slot, sizeof slot, "0000:%s:%02x.6", bus.c_str(), qpi_device_number(port));
        t.pci(slot, 0x8086, qpi_device_id(cpu, port, qpi_function::filter));
    }
    for (unsigned port : p.misc) {
        std::snprintf(slot, sizeof slot, "0000:%s:%02x.0", bus.c_str(), qpi_device_number(port));
        t.pci(slot, 0x8086, qpi_device_id(cpu, port, qpi_function::misc));
    }
}


}  // namespace pmonsim::driver::test
