// libFuzzer harness: the hardware target's text inputs from a machine tree
// (/proc/cpuinfo, the online CPU list, a CPU's package, a PCI function's
// vendor and device) filled with the input, then the target built and the
// CPU identified. Bad trees are hw_error; nothing may crash, hang or grow.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "driver/hw_target.h"
#include "driver/topology.h"

namespace fs = std::filesystem;

namespace {

const std::string& root() {
    static const std::string r = [] {
        char tmpl[] = "/tmp/pmonsim_fuzz_tree_XXXXXX";
        const char* d = ::mkdtemp(tmpl);
        if (!d) std::abort();
        return std::string(d);
    }();
    return r;
}

void put(const std::string& rel, const std::string& text) {
    fs::create_directories(fs::path(root() + rel).parent_path());
    std::ofstream(root() + rel, std::ios::binary | std::ios::trunc) << text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    // The input split in four at its first three '\x1f' bytes.
    std::string parts[4];
    unsigned k = 0;
    for (size_t i = 0; i < size; ++i) {
        if (data[i] == 0x1f && k < 3) ++k;
        else parts[k] += static_cast<char>(data[i]);
    }
    put("/proc/cpuinfo", parts[0]);
    put("/sys/devices/system/cpu/online", parts[1]);
    put("/sys/devices/system/cpu/cpu0/topology/physical_package_id", parts[2]);
    put("/sys/bus/pci/devices/0000:ff:13.1/vendor", parts[3]);
    put("/sys/bus/pci/devices/0000:ff:13.1/device", parts[3]);
    (void)pmonsim::driver::detect_cpu_model(root());
    try {
        pmonsim::driver::hw_target t(root());
        (void)t.cpu_count();
        (void)t.pci_devices();
    } catch (const pmonsim::driver::hw_error&) {
    }
    return 0;
}
