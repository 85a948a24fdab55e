// The interposer's decisions that need no system call (interpose/paths.h,
// cpuid_answers.h) and the platform register file (serve/platform.h).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <utility>

#include "interpose/cpuid_answers.h"
#include "interpose/paths.h"
#include "serve/cbox_filter.h"
#include "serve/platform.h"

using namespace pmonsim;
using namespace pmonsim::interpose;

namespace {

std::string norm(const char* p) {
    char out[256];
    if (!normalize_path(p, out, sizeof out)) return "<refused>";
    return out;
}

}  // namespace

TEST(InterposePaths, NormalizeCollapsesSlashesDotsAndParents) {
    EXPECT_EQ(norm("/sys//bus/./pci/devices/"), "/sys/bus/pci/devices");
    EXPECT_EQ(norm("/sys/bus/pci/devices/0000:ff:08.2/../0000:ff:09.2/config"), "/sys/bus/pci/devices/0000:ff:09.2/config");
    EXPECT_EQ(norm("/../dev/cpu/0/msr"), "/dev/cpu/0/msr");
    EXPECT_EQ(norm("/"), "/");
    EXPECT_EQ(norm("relative/path"), "<refused>");
    char small[8];
    EXPECT_FALSE(normalize_path("/dev/cpu/0/msr", small, sizeof small));
}

TEST(InterposePaths, ServedPathsAreWholeComponents) {
    for (const char* p : {"/dev/cpu", "/dev/cpu/3/msr", "/proc/cpuinfo", "/proc/bus/pci/ff/08.2", "/proc/bus/pci/devices",
                          "/sys/devices/system/cpu/online", "/sys/devices/system/node/node0/cpumap",
                          "/sys/bus/pci/devices/0000:7f:13.1/config", "/sys/devices/pci0000:ff/0000:ff:08.2/vendor",
                          "/sys/firmware/acpi/tables/MCFG", "/sys/firmware/acpi/tables/MCFG1",
                          "/proc/sys/kernel/nmi_watchdog", "/sys/module/msr/parameters/allow_writes", "/dev/msr0",
                          "/sys/devices/cpu/type", "/sys/devices/uncore_qpi_0/format/event", "/sys/devices"})
        EXPECT_TRUE(is_served(p)) << p;
    for (const char* p : {"/dev/cpuset", "/proc/cpuinfox", "/proc/self/status", "/sys/bus/pci/drivers",
                          "/sys/devices/system/memory", "/proc/sys/kernel/hostname", "/etc/passwd", "/dev/null",
                          "/sys/firmware/acpi/tables/DSDT", "/sys/devices/cpu_core/type", "/sys/devices/software/type"})
        EXPECT_FALSE(is_served(p)) << p;
}

// The host's hardware PMUs the server lists in wire::machine::hidden are
// served as absent, with everything below them; their neighbours stay the host's.
TEST(InterposePaths, HiddenHostDirectoriesAreServedAsAbsent) {
    const char* hidden = "/sys/devices/msr\n/sys/devices/power\n";
    for (const char* p : {"/sys/devices/power", "/sys/devices/power/type", "/sys/devices/power/events/energy-pkg",
                          "/sys/devices/msr/format/event"})
        EXPECT_TRUE(is_served(p, hidden)) << p;
    for (const char* p : {"/sys/devices/powerx", "/sys/devices/software/type", "/sys/devices/virtual/dmi/id",
                          "/sys/devices/pow", "/sys"})
        EXPECT_FALSE(is_served(p, hidden)) << p;
    EXPECT_FALSE(is_served("/sys/devices/power/type"));  // nothing hidden: the host's
    // A list cut without its last newline hides what it ended, not the cut entry.
    EXPECT_TRUE(is_served("/sys/devices/msr", "/sys/devices/msr\n/sys/devices/pow"));
    EXPECT_FALSE(is_served("/sys/devices/pow", "/sys/devices/msr\n/sys/devices/pow"));
}

TEST(InterposePaths, LiveFilesAreTheRegisterFiles) {
    live_file f = classify("dev/cpu/17/msr");
    EXPECT_EQ(f.kind, live_file::msr);
    EXPECT_EQ(f.id, 17u);
    f = classify("sys/devices/pci0000:7f/0000:7f:09.6/config");
    EXPECT_EQ(f.kind, live_file::pci_config);
    EXPECT_EQ(f.id, (0x7Fu << 8) | (9u << 3) | 6u);
    f = classify("proc/bus/pci/ff/13.1");
    EXPECT_EQ(f.kind, live_file::pci_config);
    EXPECT_EQ(f.id, (0xFFu << 8) | (19u << 3) | 1u);
    for (const char* p : {"dev/cpu/17/cpuid", "dev/cpu/x/msr", "dev/cpu//msr", "sys/devices/pci0000:7f/0000:7f:09.6/vendor",
                          "sys/devices/pci0000:7f/0000:ff:09.6/config",  // the bus of the slot and of the root differ
                          "proc/bus/pci/ff/20.1", "proc/bus/pci/ff/13.8", "proc/bus/pci/devices", "proc/cpuinfo"})
        EXPECT_EQ(classify(p).kind, live_file::none) << p;
}

namespace {

wire::machine ivb_two_sockets() {
    wire::machine m{};
    m.family = 6;
    m.model = 0x3E;
    m.stepping = 4;
    m.sockets = 2;
    m.cpus_per_socket = 16;
    m.threads_per_core = 2;
    m.smt_shift = 1;
    m.package_shift = 4;
    m.leaf1_ecx = 0x7FBEE3FF;
    m.leaf1_edx = 0xBFEBFBFF;
    m.leaf7_ebx = 0x281;
    m.l3_kb = 25600;
    std::strcpy(m.brand, "Intel(R) Xeon(R) CPU E5-2680 v2 @ 2.80GHz");
    return m;
}

}  // namespace

TEST(CpuidAnswers, IdentityAndFeatures) {
    const wire::machine m = ivb_two_sockets();
    uint32_t r[4];
    answer_cpuid(m, 0, 0, 0, r);
    char vendor[13] = {};
    std::memcpy(vendor, &r[1], 4);
    std::memcpy(vendor + 4, &r[3], 4);
    std::memcpy(vendor + 8, &r[2], 4);
    EXPECT_STREQ(vendor, "GenuineIntel");
    answer_cpuid(m, 0, 1, 0, r);
    EXPECT_EQ(r[0], 0x306E4u);  // family 6, model 0x3E, stepping 4 (the E5-2600 v2 signature)
    EXPECT_EQ(r[2], 0x7FBEE3FFu);
    EXPECT_EQ(r[2] & (1u << 31), 0u) << "no hypervisor bit";
    answer_cpuid(m, 0, 0x80000002, 0, r);
    EXPECT_EQ(std::string(reinterpret_cast<char*>(r), 16), "Intel(R) Xeon(R)");
    answer_cpuid(m, 0, 0x80000004, 0, r);
    EXPECT_EQ(std::string(reinterpret_cast<char*>(r), 9), "@ 2.80GHz");
    answer_cpuid(m, 0, 7, 0, r);
    EXPECT_EQ(r[1], 0x281u);
    answer_cpuid(m, 0, 0x80000007, 0, r);
    EXPECT_EQ(r[3], 1u << 8) << "invariant TSC";
}

TEST(CpuidAnswers, PerformanceMonitoringLeaf) {
    wire::machine m = ivb_two_sockets();
    uint32_t r[4];
    answer_cpuid(m, 0, 0xA, 0, r);
    EXPECT_EQ(r[0] & 0xFF, 3u);          // architectural PMU version 3
    EXPECT_EQ((r[0] >> 8) & 0xFF, 4u);   // 4 general counters a thread with Hyper-Threading
    EXPECT_EQ((r[0] >> 16) & 0xFF, 48u); // 48 bits wide
    EXPECT_EQ(r[3] & 0x1F, 3u);          // 3 fixed counters
    EXPECT_EQ((r[3] >> 5) & 0xFF, 48u);
    m.threads_per_core = 1;
    answer_cpuid(m, 0, 0xA, 0, r);
    EXPECT_EQ((r[0] >> 8) & 0xFF, 8u);
}

TEST(CpuidAnswers, TopologyFollowsTheCpu) {
    const wire::machine m = ivb_two_sockets();
    // CPU 19: socket 1, index 3 -> core 3, thread 0; CPU 8: socket 0, core 0, thread 1.
    EXPECT_EQ(apic_id_of(m, 19), (1u << 4) | (3u << 1));
    EXPECT_EQ(apic_id_of(m, 8), 1u);
    uint32_t r[4];
    answer_cpuid(m, 19, 0xB, 0, r);
    EXPECT_EQ(r[0], 1u);                // SMT level: shift 1
    EXPECT_EQ(r[1], 2u);                // 2 threads
    EXPECT_EQ(r[2], 1u << 8);           // level type SMT, level 0
    EXPECT_EQ(r[3], apic_id_of(m, 19)); // x2APIC ID
    answer_cpuid(m, 19, 0xB, 1, r);
    EXPECT_EQ(r[0], 4u);                // package shift
    EXPECT_EQ(r[1], 16u);               // logical CPUs a package
    EXPECT_EQ(r[2], (2u << 8) | 1u);    // level type core
    answer_cpuid(m, 19, 0xB, 2, r);
    EXPECT_EQ((r[2] >> 8) & 0xFF, 0u);  // no more levels
    answer_cpuid(m, 19, 1, 0, r);
    EXPECT_EQ(r[1] >> 24, apic_id_of(m, 19));
    // Leaf 4: the L3 is shared by the package, 25 MB, 64-byte lines.
    answer_cpuid(m, 0, 4, 3, r);
    EXPECT_EQ((r[0] >> 5) & 7, 3u);
    const uint32_t bytes = (((r[1] >> 22) & 0x3FF) + 1) * (((r[1] >> 12) & 0x3FF) + 1) * ((r[1] & 0xFFF) + 1) * (r[2] + 1);
    EXPECT_EQ(bytes, 25600u * 1024);
    answer_cpuid(m, 0, 4, 4, r);
    EXPECT_EQ(r[0] & 0x1F, 0u);  // no more caches
}

TEST(PlatformRegisters, ReadBackResetValuesAndReadOnly) {
    serve::platform_msr_file f(cpu_model::ivb_ep, 32, 8, 2'800'000'000);
    uint64_t v = 0;
    bool first = false;
    ASSERT_EQ(f.read(3, 0xCE, 0, v, first), serve::platform_msr_file::result::ok);
    EXPECT_TRUE(first);
    EXPECT_EQ((v >> 8) & 0xFF, 28u) << "MSR_PLATFORM_INFO: 2.8 GHz base ratio";
    EXPECT_EQ(f.read(3, 0xCE, 0, v, first), serve::platform_msr_file::result::ok);
    EXPECT_FALSE(first);
    EXPECT_EQ(f.write(3, 0xCE, 0, first), serve::platform_msr_file::result::read_only);
    EXPECT_EQ(f.read(3, 0xCE, 0, v, first), serve::platform_msr_file::result::ok);
    EXPECT_EQ((v >> 8) & 0xFF, 28u) << "a refused write changes nothing";
    // Every MSR a register of its own, per CPU.
    ASSERT_EQ(f.write(0, 0x186, 0x43003C, first), serve::platform_msr_file::result::ok);
    f.read(0, 0x187, 0, v, first);
    EXPECT_EQ(v, 0u);
    f.read(1, 0x186, 0, v, first);
    EXPECT_EQ(v, 0u);
    f.read(0, 0x186, 0, v, first);
    EXPECT_EQ(v, 0x43003Cu);
    // The TSC follows simulated time: 1 ms at 2.8 GHz.
    f.read(0, 0x10, 1'000'000'000, v, first);
    EXPECT_EQ(v, 2'800'000u);
    // Not on the machine: no such MSR, no such CPU.
    EXPECT_EQ(f.read(0, 0x12345, 0, v, first), serve::platform_msr_file::result::no_such_msr);
    EXPECT_EQ(f.read(32, 0x186, 0, v, first), serve::platform_msr_file::result::no_such_msr);
}

TEST(PlatformRegisters, CachingAgentsAndThePcuAreTheModels) {
    serve::platform_msr_file ivb8(cpu_model::ivb_ep, 16, 8, 1);
    EXPECT_FALSE(ivb8.has(0xD04)) << "the CBo MSRs are the model's boxes (decisions.md B8)";
    EXPECT_FALSE(ivb8.has(0xD1A + 0x20 * 7));
    EXPECT_FALSE(ivb8.has(0xC00)) << "the model's MSRs are not in the platform file";
    for (uint32_t msr : {0xC24u, 0xC30u, 0xC34u, 0xC35u, 0xC39u})
        EXPECT_FALSE(ivb8.has(msr)) << std::hex << msr << ": the PCU is the model's box (decisions.md B10)";
}

TEST(PlatformFunctions, NoneOnTheE5s) {
    const auto snb = serve::platform_functions(cpu_model::snb_ep, 0);
    const auto ivb = serve::platform_functions(cpu_model::ivb_ep, 0);
    auto id = [](const std::vector<serve::platform_function>& v, unsigned dev, unsigned fn) -> unsigned {
        for (const auto& f : v)
            if (f.dev == dev && f.fn == fn) return f.device_id;
        return 0;
    };
    // The memory-controller channels pcm looks for and the R3QPI link likwid
    // looks for are the model's boxes, not platform functions.
    EXPECT_EQ(id(snb, 16, 0), 0u);
    EXPECT_EQ(id(ivb, 16, 4), 0u);
    EXPECT_EQ(id(snb, 19, 5), 0u);
    EXPECT_EQ(id(ivb, 19, 5), 0u);
    EXPECT_EQ(id(snb, 0, 0), 0u) << "no Generic Non-core Registers function on an E5";
}

// Nehalem-EP/Westmere-EP: only the Generic Non-core Registers function, 00.0
// (8086:2C40 Xeon 5500, 8086:2C70 Xeon 5600, a host bridge), its
// CURRENT_UCLK_RATIO at C0h read-only with the ratio in bits 6:0
// (decisions.md N12).
TEST(PlatformFunctions, NehalemGenericNonCoreHoldsTheUclkRatio) {
    for (auto [cpu, device] : {std::pair{cpu_model::nhm_ep, 0x2C40u}, {cpu_model::wsm_ep, 0x2C70u}}) {
        SCOPED_TRACE(to_string(cpu));
        const auto f = serve::platform_functions(cpu, 20);
        ASSERT_EQ(f.size(), 1u);
        EXPECT_EQ(f[0].dev, 0u);
        EXPECT_EQ(f[0].fn, 0u);
        EXPECT_EQ(f[0].device_id, device);
        EXPECT_EQ(f[0].class_code, 0x060000u);
        ASSERT_EQ(f[0].dwords.size(), 1u);
        EXPECT_EQ(f[0].dwords[0].offset, 0xC0u);
        EXPECT_EQ(f[0].dwords[0].value, 20u);
        EXPECT_TRUE(f[0].dwords[0].read_only);
        EXPECT_EQ(serve::platform_functions(cpu, 0x80)[0].dwords[0].value, 0u) << "7 bits";
    }
}

// The caching agents' filter as Linux's driver presents and shares it
// (decisions.md S20): formats at the filter fields' places, the groups
// Linux's extra_regs give an event, and one value per group in use.
TEST(CboxFilter, LinuxFormatsGroupsAndSharing) {
    const serve::cbox_filter ivb(cbo_filters::two_filters, cbo_register_table(cpu_model::ivb_ep, 3));
    const auto formats = ivb.formats();
    auto format = [&](const std::string& name) {
        for (const auto& [n, f] : formats)
            if (n == name) return f;
        return std::string("-");
    };
    EXPECT_EQ(format("filter_tid"), "config1:0-4");
    EXPECT_EQ(format("filter_link"), "config1:5-8");
    EXPECT_EQ(format("filter_state2"), "config1:17-22");
    EXPECT_EQ(format("filter_nid2"), "config1:32-47");
    EXPECT_EQ(format("filter_opc2"), "config1:52-60");
    EXPECT_EQ(format("filter_c6"), "config1:61");
    EXPECT_EQ(format("filter_isoc"), "config1:63");
    ASSERT_EQ(ivb.registers().size(), 2u);
    EXPECT_EQ(ivb.registers()[0].msr, 0x10u) << "FILTER0 = BOX_CTL + 0x10";
    EXPECT_EQ(ivb.registers()[1].msr, 0x16u) << "FILTER1 = BOX_CTL + 0x16";
    EXPECT_EQ(ivb.registers()[1].shift, 32u);
    EXPECT_EQ(ivb.groups_of(0x0334), 0x4u) << "LLC_LOOKUP.DATA_READ: state";
    EXPECT_EQ(ivb.groups_of(0x4135), 0x18u) << "TOR_INSERTS.NID_OPCODE: nid and opcode";
    EXPECT_EQ(ivb.groups_of(0x80037), 0x1u) << "tid_en on LLC_VICTIMS";
    EXPECT_EQ(ivb.groups_of(0x0037), 0x0u);
    EXPECT_EQ(ivb.mask_of(0x10), 0xFFF0'0000'0000'0000ull) << "opc, c6, nc, isoc";
    serve::cbox_filter_use use;
    EXPECT_TRUE(use.take(ivb, 0x4, 0x1Full << 17));
    EXPECT_TRUE(use.take(ivb, 0x10, 0x182ull << 52)) << "another group";
    EXPECT_TRUE(use.take(ivb, 0x4, 0x1Full << 17)) << "the same state";
    EXPECT_FALSE(use.take(ivb, 0x4, 0x01ull << 17)) << "another state while it is in use";
    use.give_back(0x4);
    use.give_back(0x4);
    EXPECT_TRUE(use.take(ivb, 0x4, 0x01ull << 17)) << "free again";
    const serve::cbox_filter snb(cbo_filters::one_filter, cbo_register_table(cpu_model::snb_ep, 0));
    ASSERT_EQ(snb.registers().size(), 1u);
    EXPECT_EQ(snb.registers()[0].msr, 0x10u);
    EXPECT_EQ(snb.groups_of(0x4334), 0x6u) << "LLC_LOOKUP.NID: nid and state";
    EXPECT_EQ(snb.mask_of(0xF), 0xFFFFFC1Full);
}
