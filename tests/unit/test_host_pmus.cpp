// Which of the host's perf PMUs a served machine hides (serve/host_pmus.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "fake_tree.h"
#include "serve/host_pmus.h"

namespace fs = std::filesystem;
using pmonsim::driver::test::fake_tree;
using pmonsim::serve::hidden_host_pmus;

namespace {

// A host's sysfs in a fake tree: /sys/devices/NAME with a type file, linked
// from /sys/bus/event_source/devices/LINK as the kernel links it.
void pmu(const fake_tree& t, const std::string& name, const std::string& link = "") {
    t.file("/sys/devices/" + name + "/type", "9\n");
    fs::create_directories(t.at("/sys/bus/event_source/devices"));
    fs::create_symlink("../../../devices/" + name, t.at("/sys/bus/event_source/devices/" + (link.empty() ? name : link)));
}

}  // namespace

TEST(HostPmus, HardwarePmusAreHiddenSoftwareOnesKept) {
    fake_tree t;
    for (const char* n : {"software", "tracepoint", "breakpoint", "uprobe", "power", "msr", "cpu", "cpu_core",
                          "uncore_imc_0", "cstate_pkg", "amd_iommu_0"})
        pmu(t, n);
    pmu(t, "power", "power_alias");  // two links to one directory: listed once
    const std::string d = fs::canonical(t.root()).string() + "/sys/devices/";
    // The real paths (symlinks resolved), sorted: the hardware PMUs, kprobe and uprobe.
    EXPECT_EQ(hidden_host_pmus(t.at("/sys/bus/event_source/devices")),
              d + "amd_iommu_0\n" + d + "cpu_core\n" + d + "cstate_pkg\n" + d + "msr\n" + d + "power\n" + d +
                  "uprobe\n");
}

TEST(HostPmus, NoneWithoutTheDirectory) {
    fake_tree t;
    EXPECT_EQ(hidden_host_pmus(t.at("/sys/bus/event_source/devices")), "");
}
