// The real-hardware target (driver/hw_target) and uncore discovery
// (driver/topology), run against fake machine trees in a temporary directory:
// /dev/cpu/N/msr are sparse regular files written at the MSR offsets (a read
// past the end is short, which hw_target treats like the msr driver's EIO),
// /sys/bus/pci/devices/D:B:D.F/config are 4096-byte files with the IDs in
// bytes 0..3, /proc/cpuinfo is text. Failures that regular files cannot
// produce (EACCES when the tests run as root, EPERM, ENXIO, EIO from the
// driver) are injected through hw_target's sys_open/sys_pread/sys_pwrite.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "driver/hw_target.h"
#include "driver/topology.h"
#include "tables/register_table.h"

#include "unit/fake_tree.h"

namespace pmonsim::driver {
namespace {

namespace fs = std::filesystem;
using test::fake_tree;
using test::uncore_parts;
using test::add_uncore;

// hw_target with failures injected by path (open) or for every access
// (pread/pwrite), counting the opens.
class hooked_target : public hw_target {
public:
    using hw_target::hw_target;
    std::map<std::string, int> open_errno;  // full path -> errno
    int pread_errno = 0, pwrite_errno = 0;
    std::vector<std::string> opened;

protected:
    int sys_open(const std::string& path, int flags) override {
        opened.push_back(path);
        const auto it = open_errno.find(path);
        if (it != open_errno.end()) {
            errno = it->second;
            return -1;
        }
        return hw_target::sys_open(path, flags);
    }
    ssize_t sys_pread(int fd, void* buf, size_t n, off_t offset) override {
        if (pread_errno) {
            errno = pread_errno;
            return -1;
        }
        return hw_target::sys_pread(fd, buf, n, offset);
    }
    ssize_t sys_pwrite(int fd, const void* buf, size_t n, off_t offset) override {
        if (pwrite_errno) {
            errno = pwrite_errno;
            return -1;
        }
        return hw_target::sys_pwrite(fd, buf, n, offset);
    }
};

std::vector<uint8_t> le(uint64_t v, unsigned n) {
    std::vector<uint8_t> b;
    for (unsigned i = 0; i < n; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return b;
}

template <class F>
std::string thrown_by(F f) {
    try {
        f();
    } catch (const hw_error& e) {
        return e.what();
    }
    return "(no hw_error)";
}

const std::string permission_advice =
    "run as root, or give the user CAP_SYS_RAWIO and read/write access to ";

// ---- CPUs ----------------------------------------------------------------

TEST(HwTargetCpus, FromTheNumericEntriesOfDevCpu) {
    fake_tree t;
    t.cpu(0, 0);
    t.cpu(1, 0);
    t.cpu(2, 1);
    t.cpu(3, 1);
    t.file("/dev/cpu/microcode", "");  // not a CPU
    t.file("/sys/devices/system/cpu/online", "0-1\n");  // not used: /dev/cpu has entries
    hw_target hw(t.root());
    EXPECT_EQ(hw.root(), t.root());
    EXPECT_EQ(hw.cpu_count(), 4u);
    for (unsigned c = 0; c < 4; ++c) EXPECT_TRUE(hw.cpu_present(c));
    EXPECT_FALSE(hw.cpu_present(4));
    EXPECT_EQ(hw.package_of(0), 0u);
    EXPECT_EQ(hw.package_of(1), 0u);
    EXPECT_EQ(hw.package_of(2), 1u);
    EXPECT_EQ(hw.package_of(3), 1u);
    EXPECT_EQ(hw.package_of(4), hw_target::no_package);
}

TEST(HwTargetCpus, FromTheOnlineListWithoutDevCpu) {
    fake_tree t;
    t.file("/sys/devices/system/cpu/online", "0-2,4\n");
    t.file("/sys/devices/system/cpu/cpu4/topology/physical_package_id", "1\n");
    hw_target hw(t.root());
    EXPECT_EQ(hw.cpu_count(), 5u);
    EXPECT_TRUE(hw.cpu_present(2));
    EXPECT_FALSE(hw.cpu_present(3));  // a hole: offline
    EXPECT_TRUE(hw.cpu_present(4));
    EXPECT_EQ(hw.package_of(4), 1u);
    EXPECT_EQ(hw.package_of(0), hw_target::no_package);  // no topology file
}

TEST(HwTargetCpus, TrailingSlashOfTheRootIsIgnored) {
    fake_tree t;
    t.cpu(0, 0);
    t.msr(0, 0x10, 7);
    hw_target hw(t.root() + "/");
    EXPECT_EQ(hw.root(), t.root());
    uint64_t v = 0;
    EXPECT_TRUE(hw.msr_read(0, 0x10, v));
    EXPECT_EQ(v, 7u);
}

TEST(HwTargetCpus, NoCpuAtAllThrows) {
    fake_tree t;
    EXPECT_EQ(thrown_by([&] { hw_target hw(t.root()); }),
              "cannot find the CPUs: " + t.root() + "/dev/cpu has no CPU entries and " + t.root() +
                  "/sys/devices/system/cpu/online cannot be read");
}

// ---- MSRs ----------------------------------------------------------------

TEST(HwTargetMsr, ReadsEightBytesAtTheMsrAddressOfEachCpu) {
    fake_tree t;
    t.cpu(0, 0);
    t.cpu(1, 0);
    t.msr(0, 0xC00, 0x1122334455667788ull);
    t.msr(1, 0xC00, 0x8877665544332211ull);
    t.msr(1, 0xC08, 0x20000000000ull);
    hw_target hw(t.root());
    uint64_t v = 0;
    ASSERT_TRUE(hw.msr_read(0, 0xC00, v));
    EXPECT_EQ(v, 0x1122334455667788ull);
    ASSERT_TRUE(hw.msr_read(1, 0xC00, v));
    EXPECT_EQ(v, 0x8877665544332211ull);
    ASSERT_TRUE(hw.msr_read(1, 0xC08, v));
    EXPECT_EQ(v, 0x20000000000ull);
    ASSERT_TRUE(hw.msr_read(1, 0xC04, v));  // the driver takes any offset: bytes 0xC04..0xC0B
    EXPECT_EQ(v, 0x0000000088776655ull);
    // Reads leave the files as they were.
    EXPECT_EQ(t.size(t.msr_file(0)), 0xC08u);
    EXPECT_EQ(t.size(t.msr_file(1)), 0xC10u);
    EXPECT_EQ(hw.last_error(), "");
}

TEST(HwTargetMsr, WritesEightLittleEndianBytesAtTheMsrAddress) {
    fake_tree t;
    t.cpu(0, 0);
    t.cpu(1, 0);
    t.msr(1, 0xC08, 0xAAAAAAAAAAAAAAAAull);
    t.msr(1, 0xC18, 0xBBBBBBBBBBBBBBBBull);
    hw_target hw(t.root());
    ASSERT_TRUE(hw.msr_write(1, 0xC10, 0x0123456789ABCDEFull));
    EXPECT_EQ(t.bytes(t.msr_file(1), 0xC10, 8),
              (std::vector<uint8_t>{0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0x01}));
    EXPECT_EQ(t.bytes(t.msr_file(1), 0xC08, 8), le(0xAAAAAAAAAAAAAAAAull, 8));
    EXPECT_EQ(t.bytes(t.msr_file(1), 0xC18, 8), le(0xBBBBBBBBBBBBBBBBull, 8));
    EXPECT_EQ(t.size(t.msr_file(1)), 0xC20u);
    EXPECT_EQ(t.size(t.msr_file(0)), 0u);  // the other CPU untouched
    ASSERT_TRUE(hw.msr_write(0, 0x700, 0));
    EXPECT_EQ(t.bytes(t.msr_file(0), 0x700, 8), le(0, 8));
    EXPECT_EQ(t.size(t.msr_file(0)), 0x708u);
    uint64_t v = 0;
    ASSERT_TRUE(hw.msr_read(1, 0xC10, v));
    EXPECT_EQ(v, 0x0123456789ABCDEFull);
}

TEST(HwTargetMsr, KeepsOneOpenFilePerCpu) {
    fake_tree t;
    t.cpu(0, 0);
    t.cpu(1, 0);
    t.msr(0, 0xC00, 1);
    t.msr(1, 0xC00, 2);
    hooked_target hw(t.root());
    uint64_t v;
    for (int i = 0; i < 3; ++i) {
        ASSERT_TRUE(hw.msr_read(0, 0xC00, v));
        ASSERT_TRUE(hw.msr_write(0, 0xC00, 5));
        ASSERT_TRUE(hw.msr_read(1, 0xC00, v));
    }
    EXPECT_EQ(hw.opened, (std::vector<std::string>{t.at(t.msr_file(0)), t.at(t.msr_file(1))}));
}

TEST(HwTargetMsr, CheckMsrAccessOpensEveryPresentCpu) {
    fake_tree t;
    t.cpu(0, 0);
    t.cpu(1, 0);
    t.cpu(3, 0);
    hooked_target hw(t.root());
    hw.check_msr_access();
    EXPECT_EQ(hw.opened,
              (std::vector<std::string>{t.at(t.msr_file(0)), t.at(t.msr_file(1)), t.at(t.msr_file(3))}));
    uint64_t v;
    hw.msr_read(3, 0, v);
    EXPECT_EQ(hw.opened.size(), 3u);  // already open
}

TEST(HwTargetMsr, UnimplementedMsrShortReadIsEio) {
    fake_tree t;
    t.cpu(0, 0);
    t.msr(0, 0xC00, 0x55);
    hw_target hw(t.root());
    uint64_t v = 0x1234;
    EXPECT_FALSE(hw.msr_read(0, 0xC10, v));  // past the end of the file: 0 bytes
    EXPECT_EQ(v, 0x1234u);
    EXPECT_EQ(hw.last_error(), "CPU 0 cannot read MSR 0x00000c10 (" + t.at(t.msr_file(0)) +
                                   ": Input/output error): the MSR is not implemented on this CPU");
    EXPECT_FALSE(hw.msr_read(0, 0xC04, v));  // 4 of 8 bytes
    EXPECT_EQ(v, 0x1234u);
    EXPECT_EQ(hw.last_error(), "CPU 0 cannot read MSR 0x00000c04 (" + t.at(t.msr_file(0)) +
                                   ": Input/output error): the MSR is not implemented on this CPU");
    // A successful access leaves the last error.
    ASSERT_TRUE(hw.msr_read(0, 0xC00, v));
    EXPECT_EQ(v, 0x55u);
    EXPECT_NE(hw.last_error(), "");
    EXPECT_EQ(t.size(t.msr_file(0)), 0xC08u);
}

TEST(HwTargetMsr, EioFromTheDriver) {
    fake_tree t;
    t.cpu(0, 0);
    t.cpu(1, 0);
    t.msr(1, 0xC00, 0x55);
    hooked_target hw(t.root());
    hw.pread_errno = EIO;
    uint64_t v = 9;
    EXPECT_FALSE(hw.msr_read(1, 0xC00, v));
    EXPECT_EQ(v, 9u);
    EXPECT_EQ(hw.last_error(), "CPU 1 cannot read MSR 0x00000c00 (" + t.at(t.msr_file(1)) +
                                   ": Input/output error): the MSR is not implemented on this CPU");
    hw.pwrite_errno = EIO;
    EXPECT_FALSE(hw.msr_write(1, 0xC00, 0x400000));
    EXPECT_EQ(hw.last_error(), "CPU 1 cannot set MSR 0x00000c00 to 0x0000000000400000 (" + t.at(t.msr_file(1)) +
                                   ": Input/output error): the MSR is not implemented on this CPU, or it "
                                   "refuses the value (reserved bits)");
    EXPECT_EQ(t.bytes(t.msr_file(1), 0xC00, 8), le(0x55, 8));
    // Another errno: named, no advice.
    hw.pwrite_errno = EFAULT;
    EXPECT_FALSE(hw.msr_write(1, 0xC00, 1));
    EXPECT_EQ(hw.last_error(), "CPU 1 cannot set MSR 0x00000c00 to 0x0000000000000001 (" + t.at(t.msr_file(1)) +
                                   ": Bad address)");
}

TEST(HwTargetMsr, OfflineAndNonexistentCpusFail) {
    fake_tree t;
    t.cpu(0, 0);
    t.cpu(1, 0);
    t.cpu(3, 0);
    fs::create_directories(t.at("/dev/cpu/4"));  // listed, but no msr node
    hooked_target hw(t.root());
    hw.open_errno[t.at(t.msr_file(1))] = ENXIO;
    uint64_t v;
    EXPECT_EQ(hw.cpu_count(), 5u);
    EXPECT_FALSE(hw.msr_read(2, 0, v));
    EXPECT_EQ(hw.last_error(), "CPU 2 is offline (" + t.at("/dev/cpu/2/msr") + ")");
    EXPECT_FALSE(hw.msr_write(5, 0, 0));
    EXPECT_EQ(hw.last_error(), "CPU 5 does not exist (CPUs 0..4)");
    EXPECT_FALSE(hw.msr_read(1, 0, v));
    EXPECT_EQ(hw.last_error(), "CPU 1 is offline (" + t.at(t.msr_file(1)) + ": No such device or address)");
    EXPECT_FALSE(hw.msr_read(4, 0, v));
    EXPECT_EQ(hw.last_error(), "CPU 4: " + t.at(t.msr_file(4)) + " does not exist (is the CPU offline?)");
    EXPECT_FALSE(hw.msr_read(3, 0, v));  // CPU 3 opens fine (an empty file: EIO)
    EXPECT_EQ(hw.opened.back(), t.at(t.msr_file(3)));
    // check_msr_access stops at the first present CPU that cannot be used.
    EXPECT_EQ(thrown_by([&] { hw.check_msr_access(); }),
              "CPU 1 is offline (" + t.at(t.msr_file(1)) + ": No such device or address)");
}

// ---- setup errors ----------------------------------------------------------

TEST(HwTargetErrors, MsrModuleNotLoaded) {
    fake_tree t;
    fs::create_directories(t.at("/dev/cpu/0"));  // e.g. from the cpuid module
    fs::create_directories(t.at("/dev/cpu/1"));
    t.pci("0000:00:00.0", 0x8086, 0x0E00);
    hw_target hw(t.root());  // construction does not need the module
    EXPECT_EQ(hw.cpu_count(), 2u);
    const std::string msg =
        t.root() + "/dev/cpu/0/msr does not exist: the msr kernel module is not loaded; run 'modprobe msr'";
    uint64_t v;
    EXPECT_EQ(thrown_by([&] { hw.msr_read(1, 0xC00, v); }), msg);
    EXPECT_EQ(thrown_by([&] { hw.msr_write(0, 0xC00, 0); }), msg);
    EXPECT_EQ(thrown_by([&] { hw.check_msr_access(); }), msg);
    // PCI works without it.
    ASSERT_TRUE(hw.pci_read({0, 0, 0, 0}, 0, 4, v));
    EXPECT_EQ(v, 0x0E008086u);
}

TEST(HwTargetErrors, MsrModuleNotLoadedAndNoDevCpu) {
    fake_tree t;
    t.file("/sys/devices/system/cpu/online", "0-7\n");
    hw_target hw(t.root());
    uint64_t v;
    EXPECT_EQ(thrown_by([&] { hw.msr_read(0, 0x10, v); }),
              t.root() + "/dev/cpu/0/msr does not exist: the msr kernel module is not loaded; run 'modprobe msr'");
}

TEST(HwTargetErrors, PermissionDeniedByFileMode) {
    if (::geteuid() == 0)
        GTEST_SKIP() << "running as root: file modes are not enforced (EACCES is covered by "
                        "PermissionDeniedInjected)";
    fake_tree t;
    t.cpu(0, 0);
    ::chmod(t.at(t.msr_file(0)).c_str(), 0);
    hw_target hw(t.root());
    uint64_t v;
    EXPECT_EQ(thrown_by([&] { hw.msr_read(0, 0x10, v); }),
              "cannot open " + t.at(t.msr_file(0)) + ": Permission denied; " + permission_advice + t.root() +
                  "/dev/cpu/*/msr");
}

TEST(HwTargetErrors, PermissionDeniedInjected) {
    fake_tree t;
    t.cpu(0, 0);
    t.cpu(1, 0);
    hooked_target hw(t.root());
    hw.open_errno[t.at(t.msr_file(0))] = EACCES;  // file mode
    hw.open_errno[t.at(t.msr_file(1))] = EPERM;   // no CAP_SYS_RAWIO
    uint64_t v;
    EXPECT_EQ(thrown_by([&] { hw.msr_read(0, 0x10, v); }),
              "cannot open " + t.at(t.msr_file(0)) + ": Permission denied; " + permission_advice + t.root() +
                  "/dev/cpu/*/msr");
    EXPECT_EQ(thrown_by([&] { hw.msr_write(1, 0x10, 0); }),
              "cannot open " + t.at(t.msr_file(1)) + ": Operation not permitted; " + permission_advice +
                  t.root() + "/dev/cpu/*/msr");
    EXPECT_EQ(thrown_by([&] { hw.check_msr_access(); }),
              "cannot open " + t.at(t.msr_file(0)) + ": Permission denied; " + permission_advice + t.root() +
                  "/dev/cpu/*/msr");
}

TEST(HwTargetErrors, OnTheRealRootTheAdviceNamesDevCpu) {
    // Only the message is checked: an EACCES injected for "/dev/cpu/0/msr".
    if (!fs::exists("/dev/cpu") && !fs::exists("/sys/devices/system/cpu/online"))
        GTEST_SKIP() << "no CPU list on this machine";
    hooked_target hw("/");
    hw.open_errno["/dev/cpu/0/msr"] = EACCES;
    uint64_t v;
    EXPECT_EQ(thrown_by([&] { hw.msr_read(0, 0x10, v); }),
              "cannot open /dev/cpu/0/msr: Permission denied; " + permission_advice + "/dev/cpu/*/msr");
}

TEST(HwTargetErrors, MsrWriteRefusedByTheKernel) {
    fake_tree t;
    t.cpu(0, 0);
    hooked_target hw(t.root());
    hw.pwrite_errno = EPERM;
    EXPECT_EQ(thrown_by([&] { hw.msr_write(0, 0xC00, 0x10000); }),
              "CPU 0 cannot set MSR 0x00000c00 to 0x0000000000010000 (" + t.at(t.msr_file(0)) +
                  ": Operation not permitted); " + permission_advice + t.root() +
                  "/dev/cpu/*/msr (as root, the kernel refuses MSR writes under lockdown, e.g. with Secure "
                  "Boot, or with msr.allow_writes=off)");
    EXPECT_EQ(t.size(t.msr_file(0)), 0u);
    hw.pread_errno = EACCES;
    uint64_t v;
    EXPECT_EQ(thrown_by([&] { hw.msr_read(0, 0xC00, v); }),
              "CPU 0 cannot read MSR 0x00000c00 (" + t.at(t.msr_file(0)) + ": Permission denied); " +
                  permission_advice + t.root() + "/dev/cpu/*/msr");
}

// ---- PCI -----------------------------------------------------------------

TEST(HwTargetPci, ReadsLittleEndianValuesOfEverySize) {
    fake_tree t;
    t.cpu(0, 0);
    t.pci("0000:ff:08.2", 0x8086, 0x0E32);
    t.put(t.config("0000:ff:08.2"), 0xA0, 0x0000123456789ABCull, 8);
    t.put(t.config("0000:ff:08.2"), 0xF4, 0x00030100, 4);
    hw_target hw(t.root());
    const pci_address a{0, 0xFF, 8, 2};
    uint64_t v = 0;
    ASSERT_TRUE(hw.pci_read(a, 0, 4, v));
    EXPECT_EQ(v, 0x0E328086u);
    ASSERT_TRUE(hw.pci_read(a, 2, 2, v));
    EXPECT_EQ(v, 0x0E32u);
    ASSERT_TRUE(hw.pci_read(a, 1, 1, v));
    EXPECT_EQ(v, 0x80u);
    ASSERT_TRUE(hw.pci_read(a, 0xA0, 8, v));
    EXPECT_EQ(v, 0x0000123456789ABCull);
    ASSERT_TRUE(hw.pci_read(a, 0xA4, 4, v));
    EXPECT_EQ(v, 0x1234u);
    ASSERT_TRUE(hw.pci_read(a, 0xF4, 4, v));
    EXPECT_EQ(v, 0x00030100u);
    ASSERT_TRUE(hw.pci_read(a, 0xFF8, 8, v));  // the last 8 bytes
    EXPECT_EQ(v, 0u);
    EXPECT_EQ(t.size(t.config("0000:ff:08.2")), 4096u);
}

TEST(HwTargetPci, WritesExactlyTheBytesOfTheAccess) {
    fake_tree t;
    t.cpu(0, 0);
    t.pci("0000:7f:09.2", 0x8086, 0x3C42);
    const std::string cfg = t.config("0000:7f:09.2");
    // A background of 0xEE from 0x90 to 0x100, to see what each write touches.
    for (uint64_t o = 0x90; o < 0x100; o += 8) t.put(cfg, o, 0xEEEEEEEEEEEEEEEEull, 8);
    hw_target hw(t.root());
    const pci_address a{0, 0x7F, 9, 2};
    ASSERT_TRUE(hw.pci_write(a, 0xA0, 8, 0x0102030405060708ull));
    ASSERT_TRUE(hw.pci_write(a, 0xD8, 4, 0x00400101));
    ASSERT_TRUE(hw.pci_write(a, 0xF4, 2, 0x0100));
    ASSERT_TRUE(hw.pci_write(a, 0xF8, 1, 0x0F));
    std::vector<uint8_t> expect(0x70, 0xEE);  // 0x90..0xFF
    const auto set = [&](uint32_t off, uint64_t v, unsigned n) {
        for (unsigned i = 0; i < n; ++i) expect[off - 0x90 + i] = static_cast<uint8_t>(v >> (8 * i));
    };
    set(0xA0, 0x0102030405060708ull, 8);
    set(0xD8, 0x00400101, 4);
    set(0xF4, 0x0100, 2);
    set(0xF8, 0x0F, 1);
    EXPECT_EQ(t.bytes(cfg, 0x90, 0x70), expect);
    EXPECT_EQ(t.bytes(cfg, 0, 4), (std::vector<uint8_t>{0x86, 0x80, 0x42, 0x3C}));
    EXPECT_EQ(t.size(cfg), 4096u);
    uint64_t v = 0;
    ASSERT_TRUE(hw.pci_read(a, 0xA0, 8, v));
    EXPECT_EQ(v, 0x0102030405060708ull);
}

TEST(HwTargetPci, MissingFunctionsAndBadAccessesFail) {
    fake_tree t;
    t.cpu(0, 0);
    t.pci("0000:00:1f.0", 0x8086, 0x1D41, true, 256);  // conventional: 256 bytes
    hw_target hw(t.root());
    uint64_t v = 77;
    EXPECT_FALSE(hw.pci_read({0, 0xFF, 8, 2}, 0, 4, v));
    EXPECT_EQ(hw.last_error(), "no PCI function 0000:ff:08.2 (" + t.at(t.config("0000:ff:08.2")) +
                                   " does not exist)");
    EXPECT_FALSE(hw.pci_write({1, 0x80, 0x1F, 7}, 0, 4, 0));
    EXPECT_EQ(hw.last_error(), "no PCI function 0001:80:1f.7 (" + t.at(t.config("0001:80:1f.7")) +
                                   " does not exist)");
    const pci_address a{0, 0, 0x1F, 0};
    EXPECT_FALSE(hw.pci_read(a, 0, 3, v));
    EXPECT_EQ(hw.last_error(), "PCI 0000:00:1f.0: no configuration access of 3 bytes at offset 0x0");
    EXPECT_FALSE(hw.pci_write(a, 0xFFC, 8, 0));
    EXPECT_EQ(hw.last_error(), "PCI 0000:00:1f.0: no configuration access of 8 bytes at offset 0xffc");
    EXPECT_FALSE(hw.pci_read(a, 0x1000, 1, v));
    EXPECT_EQ(hw.last_error(), "PCI 0000:00:1f.0: no configuration access of 1 bytes at offset 0x1000");
    EXPECT_FALSE(hw.pci_read(a, 0xFC, 8, v));  // 4 of 8 bytes
    EXPECT_EQ(hw.last_error(), "PCI 0000:00:1f.0: cannot read 8 bytes at offset 0xfc (" +
                                   t.at(t.config("0000:00:1f.0")) +
                                   ": read 4 of 8 bytes: beyond the end of the configuration space, or beyond "
                                   "its first 64 bytes without CAP_SYS_ADMIN)");
    EXPECT_EQ(v, 77u);
    EXPECT_EQ(t.size(t.config("0000:00:1f.0")), 256u);
}

TEST(HwTargetPci, ErrnoFromTheKernel) {
    fake_tree t;
    t.cpu(0, 0);
    t.pci("0000:ff:08.2", 0x8086, 0x0E32);
    hooked_target hw(t.root());
    const pci_address a{0, 0xFF, 8, 2};
    const std::string cfg = t.at(t.config("0000:ff:08.2"));
    uint64_t v;
    hw.pread_errno = EIO;
    EXPECT_FALSE(hw.pci_read(a, 0xF4, 4, v));
    EXPECT_EQ(hw.last_error(), "PCI 0000:ff:08.2: cannot read 4 bytes at offset 0xf4 (" + cfg + ": Input/output error)");
    hw.pwrite_errno = EIO;
    EXPECT_FALSE(hw.pci_write(a, 0xF4, 4, 1));
    EXPECT_EQ(hw.last_error(), "PCI 0000:ff:08.2: cannot write 4 bytes at offset 0xf4 (" + cfg + ": Input/output error)");
    hw.pwrite_errno = EPERM;
    EXPECT_EQ(thrown_by([&] { hw.pci_write(a, 0xF4, 4, 1); }),
              "PCI 0000:ff:08.2: cannot write 4 bytes at offset 0xf4 (" + cfg +
                  ": Operation not permitted); run as root (writing PCI configuration space, and reading it beyond "
                  "the first 64 bytes, needs CAP_SYS_ADMIN)");
    EXPECT_EQ(t.bytes(t.config("0000:ff:08.2"), 0xF4, 4), le(0, 4));
}

TEST(HwTargetPci, PermissionDeniedInjected) {
    fake_tree t;
    t.cpu(0, 0);
    t.pci("0000:ff:13.1", 0x8086, 0x0E34);
    hooked_target hw(t.root());
    const std::string cfg = t.at(t.config("0000:ff:13.1"));
    hw.open_errno[cfg] = EACCES;
    uint64_t v;
    EXPECT_EQ(thrown_by([&] { hw.pci_read({0, 0xFF, 0x13, 1}, 0xF4, 4, v); }),
              "cannot open " + cfg +
                  ": Permission denied; run as root (writing PCI configuration space, and reading it beyond the "
                  "first 64 bytes, needs CAP_SYS_ADMIN)");
}

TEST(HwTargetPci, KeepsOneOpenFilePerFunction) {
    fake_tree t;
    t.cpu(0, 0);
    t.pci("0000:ff:08.2", 0x8086, 0x0E32);
    t.pci("0000:ff:09.2", 0x8086, 0x0E33);
    hooked_target hw(t.root());
    uint64_t v;
    for (int i = 0; i < 3; ++i) {
        ASSERT_TRUE(hw.pci_read({0, 0xFF, 8, 2}, 0xF4, 4, v));
        ASSERT_TRUE(hw.pci_write({0, 0xFF, 8, 2}, 0xF4, 4, 0));
        ASSERT_TRUE(hw.pci_read({0, 0xFF, 9, 2}, 0xF4, 4, v));
    }
    EXPECT_EQ(hw.opened,
              (std::vector<std::string>{t.at(t.config("0000:ff:08.2")), t.at(t.config("0000:ff:09.2"))}));
}

TEST(HwTargetPci, ListsFunctionsInAddressOrder) {
    fake_tree t;
    t.cpu(0, 0);
    t.pci("0000:ff:13.1", 0x8086, 0x0E34);
    t.pci("0001:00:00.0", 0x15B3, 0x1003);
    t.pci("0000:ff:08.2", 0x8086, 0x0E32, false);  // IDs from config bytes 0..3
    t.pci("0000:7f:08.2", 0x8086, 0x0E32);
    t.pci("0000:00:1f.3", 0x8086, 0x1D22);
    t.pci("0000:ff:08.0", 0x8086, 0x0E80);
    t.file("/sys/bus/pci/devices/10000:00:00.0/config", "");  // VMD domain: does not fit 16 bits
    t.file("/sys/bus/pci/devices/README", "");                 // not a function
    t.file("/sys/bus/pci/devices/0000:00:20.0/config", "");    // device number > 31
    fs::create_directories(t.at("/sys/bus/pci/devices/0000:00:02.0"));  // no IDs anywhere
    hw_target hw(t.root());
    const auto d = hw.pci_devices();
    std::vector<std::string> got;
    for (const auto& x : d) {
        char b[64];
        std::snprintf(b, sizeof b, "%s %04x:%04x", pci_slot_name(x.addr).c_str(), x.vendor, x.device);
        got.push_back(b);
    }
    EXPECT_EQ(got, (std::vector<std::string>{"0000:00:02.0 ffff:ffff", "0000:00:1f.3 8086:1d22",
                                             "0000:7f:08.2 8086:0e32", "0000:ff:08.0 8086:0e80",
                                             "0000:ff:08.2 8086:0e32", "0000:ff:13.1 8086:0e34",
                                             "0001:00:00.0 15b3:1003"}));
}

TEST(HwTargetPci, NoPciDirectoryListsNothing) {
    fake_tree t;
    t.cpu(0, 0);
    hw_target hw(t.root());
    EXPECT_TRUE(hw.pci_devices().empty());
}

// ---- CPU model -------------------------------------------------------------

TEST(HwTargetCpuModel, SnbEpAndIvbEp) {
    fake_tree snb, ivb;
    snb.cpuinfo(6, 45);
    ivb.cpuinfo(6, 62);
    EXPECT_EQ(detect_cpu_model(snb.root()), cpu_model::snb_ep);
    EXPECT_EQ(detect_cpu_model(ivb.root()), cpu_model::ivb_ep);
    EXPECT_EQ(require_supported_cpu(snb.root()), cpu_model::snb_ep);
    EXPECT_EQ(require_supported_cpu(ivb.root() + "/"), cpu_model::ivb_ep);
}

const std::string supported =
    "pmonsim supports GenuineIntel family 6 model 0x2D (45: Xeon E5-2600 (Sandy Bridge-EP), snb-ep), family 6 "
    "model 0x3E (62: Xeon E5-2600 v2 (Ivy Bridge-EP), ivb-ep), family 6 model 0x1A (26: Xeon 5500 (Nehalem-EP), "
    "nhm-ep), family 6 model 0x2C (44: Xeon 5600 (Westmere-EP), wsm-ep)";

TEST(HwTargetCpuModel, UnsupportedCpusAreNamed) {
    fake_tree skx, amd, p4;
    skx.cpuinfo(6, 85);
    amd.cpuinfo(6, 45, "AuthenticAMD");
    p4.cpuinfo(15, 62);
    EXPECT_EQ(detect_cpu_model(skx.root()), std::nullopt);
    EXPECT_EQ(detect_cpu_model(amd.root()), std::nullopt);
    EXPECT_EQ(detect_cpu_model(p4.root()), std::nullopt);
    EXPECT_EQ(thrown_by([&] { require_supported_cpu(skx.root()); }),
              "unsupported CPU: GenuineIntel family 6 model 0x55 (85); " + supported);
    EXPECT_EQ(thrown_by([&] { require_supported_cpu(amd.root()); }),
              "unsupported CPU: AuthenticAMD family 6 model 0x2D (45); " + supported);
    EXPECT_EQ(thrown_by([&] { require_supported_cpu(p4.root()); }),
              "unsupported CPU: GenuineIntel family 15 model 0x3E (62); " + supported);
}

TEST(HwTargetCpuModel, UnreadableOrIncompleteCpuinfo) {
    fake_tree none, partial, novendor;
    partial.file("/proc/cpuinfo", "processor\t: 0\nmodel name\t: QEMU Virtual CPU\n");
    novendor.file("/proc/cpuinfo", "cpu family : 6\nmodel : 62\n");  // other architectures' layout
    EXPECT_EQ(detect_cpu_model(none.root()), std::nullopt);
    EXPECT_EQ(detect_cpu_model(partial.root()), std::nullopt);
    EXPECT_EQ(detect_cpu_model(novendor.root()), cpu_model::ivb_ep);
    EXPECT_EQ(thrown_by([&] { require_supported_cpu(none.root()); }),
              "cannot read " + none.root() + "/proc/cpuinfo to identify the CPU: No such file or directory");
    EXPECT_EQ(thrown_by([&] { require_supported_cpu(partial.root()); }),
              partial.root() + "/proc/cpuinfo has no 'cpu family' and 'model' lines: cannot identify the CPU; " +
                  supported);
}

// ---- time ------------------------------------------------------------------

TEST(HwTargetTime, AdvanceSleepsInRealTime) {
    fake_tree t;
    t.cpu(0, 0);
    hw_target hw(t.root());
    const uint64_t t0 = hw.now();
    const auto wall0 = std::chrono::steady_clock::now();
    hw.advance(3'000'000'000ull);  // 3 ms
    const uint64_t t1 = hw.now();
    EXPECT_GE(t1 - t0, 3'000'000'000ull);
    EXPECT_GE(std::chrono::steady_clock::now() - wall0, std::chrono::milliseconds(3));
    EXPECT_LT(t1 - t0, 3'000'000'000'000ull);  // and not seconds
    hw.advance(1);  // rounds up to 1 ns
    EXPECT_GT(hw.now(), t1);
}

// ---- topology --------------------------------------------------------------

TEST(TopologyIds, MatchTheModelTables) {
    for (cpu_model cpu : {cpu_model::snb_ep, cpu_model::ivb_ep}) {
        SCOPED_TRACE(to_string(cpu));
        EXPECT_EQ(r2pcie_device_id(cpu), r2pcie_register_table(cpu).find(0u)->reset >> 16);
        for (unsigned p = 0; p < qpi_port_count(cpu); ++p) {
            EXPECT_EQ(qpi_device_id(cpu, p, qpi_function::pmon), qpi_pmon_register_table(cpu, p).find(0u)->reset >> 16);
            EXPECT_EQ(qpi_device_id(cpu, p, qpi_function::filter),
                      qpi_filter_register_table(cpu, p).find(0u)->reset >> 16);
            EXPECT_EQ(qpi_device_id(cpu, p, qpi_function::misc), qpi_misc_register_table(cpu, p).find(0u)->reset >> 16);
        }
    }
    EXPECT_EQ(qpi_port_count(cpu_model::snb_ep), 2u);
    EXPECT_EQ(qpi_port_count(cpu_model::ivb_ep), 3u);
    EXPECT_EQ(qpi_device_id(cpu_model::snb_ep, 0, qpi_function::pmon), 0x3C41);
    EXPECT_EQ(qpi_device_id(cpu_model::snb_ep, 1, qpi_function::filter), 0x3C96);
    EXPECT_EQ(qpi_device_id(cpu_model::ivb_ep, 2, qpi_function::pmon), 0x0E3A);
    EXPECT_EQ(qpi_device_id(cpu_model::ivb_ep, 2, qpi_function::misc), 0x0EC0);
    EXPECT_THROW(qpi_device_id(cpu_model::snb_ep, 2, qpi_function::pmon), std::out_of_range);
    EXPECT_THROW(qpi_device_number(3), std::out_of_range);
}

TEST(TopologyIds, Addresses) {
    socket_info s;
    s.domain = 1;
    s.bus = 0x7F;
    EXPECT_EQ(r2pcie_address(s), (pci_address{1, 0x7F, 19, 1}));
    EXPECT_EQ(qpi_address(s, 0, qpi_function::pmon), (pci_address{1, 0x7F, 8, 2}));
    EXPECT_EQ(qpi_address(s, 1, qpi_function::filter), (pci_address{1, 0x7F, 9, 6}));
    EXPECT_EQ(qpi_address(s, 2, qpi_function::misc), (pci_address{1, 0x7F, 24, 0}));
}

TEST(TopologyDiscover, SnbEpTwoSockets) {
    fake_tree t;
    for (unsigned c = 0; c < 8; ++c) t.cpu(c, c % 2);  // packages interleaved
    // Socket 1 first on disk: order comes from the bus numbers.
    add_uncore(t, cpu_model::snb_ep, "ff", {true, {0, 1}, {0, 1}, {0, 1}});
    add_uncore(t, cpu_model::snb_ep, "7f", {true, {0, 1}, {0, 1}, {0, 1}});
    t.pci("0000:00:00.0", 0x8086, 0x3C00);
    t.pci("0000:7f:08.3", 0x8086, 0x3C41);  // the PMON ID at the wrong place: not counted
    hw_target hw(t.root());
    const topology topo = discover(hw, cpu_model::snb_ep);
    EXPECT_EQ(topo.cpu, cpu_model::snb_ep);
    EXPECT_EQ(topo.cpus, 8u);
    ASSERT_EQ(topo.sockets.size(), 2u);
    for (unsigned s = 0; s < 2; ++s) {
        SCOPED_TRACE(s);
        const socket_info& i = topo.sockets[s];
        EXPECT_EQ(i.socket, s);
        EXPECT_EQ(i.domain, 0u);
        EXPECT_EQ(i.bus, s ? 0xFF : 0x7F);
        EXPECT_EQ(i.first_cpu, s);
        EXPECT_TRUE(i.has_r2pcie);
        EXPECT_EQ(i.qpi_ports, (std::vector<unsigned>{0, 1}));
        EXPECT_EQ(i.qpi_filters, (std::vector<unsigned>{0, 1}));
        EXPECT_EQ(i.qpi_misc, (std::vector<unsigned>{0, 1}));
        EXPECT_TRUE(i.has_rate_status);
    }
    // The addresses lead to the functions found.
    uint64_t v = 0;
    ASSERT_TRUE(hw.pci_read(qpi_address(topo.sockets[0], 1, qpi_function::pmon), 0, 4, v));
    EXPECT_EQ(v, 0x3C428086u);
}

TEST(TopologyDiscover, IvbEpPortTwoAndMissingFunctions) {
    fake_tree t;
    t.cpu(0, 0);
    t.cpu(1, 0);
    add_uncore(t, cpu_model::ivb_ep, "ff", {false, {0, 1, 2}, {0}, {}});
    hw_target hw(t.root());
    const topology topo = discover(hw, cpu_model::ivb_ep);
    ASSERT_EQ(topo.sockets.size(), 1u);
    const socket_info& s = topo.sockets[0];
    EXPECT_EQ(s.bus, 0xFF);
    EXPECT_EQ(s.first_cpu, 0u);
    EXPECT_FALSE(s.has_r2pcie);
    EXPECT_EQ(s.qpi_ports, (std::vector<unsigned>{0, 1, 2}));
    EXPECT_EQ(s.qpi_filters, (std::vector<unsigned>{0}));
    EXPECT_TRUE(s.qpi_misc.empty());
    EXPECT_FALSE(s.has_rate_status);
}

TEST(TopologyDiscover, OnlyPortTwoMiscGivesTheRate) {
    fake_tree t;
    t.cpu(0, 0);
    add_uncore(t, cpu_model::ivb_ep, "ff", {true, {0}, {}, {2}});
    hw_target hw(t.root());
    const socket_info s = discover(hw, cpu_model::ivb_ep).sockets.at(0);
    EXPECT_EQ(s.qpi_misc, (std::vector<unsigned>{2}));
    EXPECT_TRUE(s.has_rate_status);
}

TEST(TopologyDiscover, SocketWithoutCpus) {
    fake_tree t;
    t.file("/sys/devices/system/cpu/online", "0-3\n");  // no topology files
    fs::create_directories(t.at("/dev/cpu"));
    add_uncore(t, cpu_model::ivb_ep, "ff", {true, {0, 1}, {0, 1}, {0, 1}});
    hw_target hw(t.root());
    const topology topo = discover(hw, cpu_model::ivb_ep);
    EXPECT_EQ(topo.cpus, 4u);
    EXPECT_EQ(topo.sockets.at(0).first_cpu, socket_info::no_cpu);
}

TEST(TopologyDiscover, BiosHidesTheQpiPmonDevices) {
    fake_tree t;
    t.cpu(0, 0);
    add_uncore(t, cpu_model::snb_ep, "ff", {true, {}, {0, 1}, {0, 1}});
    hw_target hw(t.root());
    EXPECT_EQ(thrown_by([&] { discover(hw, cpu_model::snb_ep); }),
              "socket 0 (uncore bus 0000:ff) has no QPI PMON function (8086:3c41 at D8:F2, 8086:3c42 at D9:F2): "
              "the BIOS hides the QPI performance monitoring devices; enable the export of the QPI performance "
              "monitoring devices in the BIOS");
}

TEST(TopologyDiscover, BiosHidesTheSecondSocketsQpiPmonDevices) {
    fake_tree t;
    t.cpu(0, 0);
    t.cpu(1, 1);
    add_uncore(t, cpu_model::ivb_ep, "7f", {true, {0, 1}, {0, 1}, {0, 1}});
    add_uncore(t, cpu_model::ivb_ep, "ff", {true, {}, {}, {}});
    hw_target hw(t.root());
    EXPECT_EQ(thrown_by([&] { discover(hw, cpu_model::ivb_ep); }),
              "socket 1 (uncore bus 0000:ff) has no QPI PMON function (8086:0e32 at D8:F2, 8086:0e33 at D9:F2, "
              "8086:0e3a at D24:F2): the BIOS hides the QPI performance monitoring devices; enable the export of "
              "the QPI performance monitoring devices in the BIOS");
}

TEST(TopologyDiscover, NoUncoreBus) {
    fake_tree t;
    t.cpu(0, 0);
    t.pci("0000:00:00.0", 0x8086, 0x1237);
    t.pci("0000:00:01.0", 0x8086, 0x7000);
    hw_target hw(t.root());
    EXPECT_EQ(thrown_by([&] { discover(hw, cpu_model::ivb_ep); }),
              "no uncore PCI bus found: none of the 2 PCI functions is an uncore function of ivb-ep (R2PCIe "
              "8086:0e34 at D19:F1, QPI misc 8086:0e80 at D8:F0, ...); a virtual machine does not show the uncore, and some "
              "BIOSes hide the uncore PCI devices: enable their export in the BIOS");
}

TEST(TopologyDiscover, TheOtherPersonalitysUncore) {
    fake_tree t;
    t.cpu(0, 0);
    add_uncore(t, cpu_model::snb_ep, "ff", {true, {0, 1}, {0, 1}, {0, 1}});
    hw_target hw(t.root());
    EXPECT_EQ(thrown_by([&] { discover(hw, cpu_model::ivb_ep); }),
              "no uncore PCI bus found: none of the 7 PCI functions is an uncore function of ivb-ep (R2PCIe "
              "8086:0e34 at D19:F1, QPI misc 8086:0e80 at D8:F0, ...); the machine has snb-ep uncore functions: the CPU is "
              "snb-ep, not ivb-ep");
}

TEST(TopologyDiscover, MorePackagesThanUncoreBuses) {
    fake_tree t;
    t.cpu(0, 0);
    t.cpu(1, 1);
    add_uncore(t, cpu_model::ivb_ep, "ff", {true, {0, 1}, {0, 1}, {0, 1}});
    hw_target hw(t.root());
    EXPECT_EQ(thrown_by([&] { discover(hw, cpu_model::ivb_ep); }),
              "the CPUs are in 2 packages but only 1 uncore PCI bus was found: the sockets cannot be matched with "
              "their uncore; some BIOSes hide the uncore PCI devices: enable their export in the BIOS");
}

}  // namespace
}  // namespace pmonsim::driver

namespace pmonsim::driver {
namespace {

// A hostile or odd tree (issue 14, items 3 and 4): a symlink as a device file
// is not followed (the write never reaches what it points to), and text files
// that are FIFOs, devices or endless are refused at once instead of hanging
// or filling memory; a CPU list of many repeated ranges costs no more than
// one.
TEST(HwTargetHostileTree, SymlinkedMsrIsNotFollowed) {
    fake_tree t;
    t.cpuinfo(6, 62);
    t.file("/victim", std::string(0x1000, 'x'));
    fs::create_directories(t.at("/dev/cpu/0"));
    fs::create_symlink(t.at("/victim"), t.at("/dev/cpu/0/msr"));
    hw_target hw(t.root());
    EXPECT_EQ(thrown_by([&] { hw.msr_write(0, 0xC00, 0x1234); }),
              t.at("/dev/cpu/0/msr") + " is a symbolic link: pmonsim does not follow links to the files it writes");
    std::ifstream victim(t.at("/victim"));
    std::string content((std::istreambuf_iterator<char>(victim)), std::istreambuf_iterator<char>());
    EXPECT_EQ(content, std::string(0x1000, 'x'));  // untouched
}

TEST(HwTargetHostileTree, FifoAndEndlessTextFilesAreRefused) {
    fake_tree t;
    fs::create_directories(t.at("/proc"));
    ASSERT_EQ(::mkfifo(t.at("/proc/cpuinfo").c_str(), 0600), 0);  // nobody writes: a read would block
    EXPECT_EQ(detect_cpu_model(t.root()), std::nullopt);
    fake_tree z;
    fs::create_directories(z.at("/proc"));
    fs::create_symlink("/dev/zero", z.at("/proc/cpuinfo"));
    EXPECT_EQ(detect_cpu_model(z.root()), std::nullopt);
}

TEST(HwTargetHostileTree, RepeatedCpuRangesAreOneList) {
    fake_tree t;
    t.cpuinfo(6, 62);
    std::string online;
    for (int i = 0; i < 20000; ++i) online += "0-1023,";
    t.file("/sys/devices/system/cpu/online", online + "3\n");  // 140 KB of the same range
    hw_target hw(t.root());
    EXPECT_EQ(hw.cpu_count(), 1024u);
}

}  // namespace
}  // namespace pmonsim::driver
