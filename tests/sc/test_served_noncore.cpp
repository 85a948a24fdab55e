// The served Nehalem-EP/Westmere-EP machine's Generic Non-core Registers
// function (decisions.md N12), read the way a client's pci_read, pci_write
// and pci_dump reach the server (serve::server::handle, no socket), and in the
// files the machine presents (sysfs): on every socket's uncore bus (0xFF,
// 0xFE), 8086:2C40 (Xeon 5500) or 8086:2C70 (Xeon 5600), a host bridge, and
// CURRENT_UCLK_RATIO at C0h reading --uclk-mhz / 133.33 MHz, read-only.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "sc/sc_harness.h"
#include "serve/server.h"

namespace pmonsim {
namespace {

std::string make_dir() {
    char t[] = "/tmp/pmonsim_served_XXXXXX";
    if (!::mkdtemp(t)) throw std::runtime_error("mkdtemp failed");
    return t;
}

std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// A served machine with one greeted client.
class served {
public:
    explicit served(const uncore_config& cfg)
        : dir_(make_dir()), sys_("sys", checked(cfg)), view_(sys_, 2'933'000'000), listener_(dir_ + "/socket"),
          srv_("srv", sys_, nullptr, view_, listener_, dir_ + "/root", {}) {
        std::filesystem::create_directory(dir_ + "/root");
        view_.write_tree(dir_ + "/root");
        const wire::reply rp = call(wire::op::hello, 0, 0, 0, uint64_t{wire::kVersion} << 32 | 1);
        EXPECT_EQ(rp.error, 0);
    }
    ~served() {
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }

    wire::reply call(wire::op op, uint32_t a, uint32_t b, uint32_t size, uint64_t value = 0) {
        const wire::request rq{static_cast<uint32_t>(op), a, b, size, value};
        out.clear();
        return srv_.handle(c_, rq, nullptr, 0, out);
    }
    // A register read: its value, or ~0 with the error.
    uint64_t read(unsigned bus, unsigned dev, unsigned fn, uint32_t offset, unsigned size, int* error = nullptr) {
        const wire::reply rp = call(wire::op::pci_read, wire::bdf(bus, dev, fn), offset, size);
        if (error) *error = rp.error;
        return rp.error ? ~uint64_t{0} : rp.value;
    }
    int write(unsigned bus, unsigned dev, unsigned fn, uint32_t offset, unsigned size, uint64_t value) {
        return call(wire::op::pci_write, wire::bdf(bus, dev, fn), offset, size, value).error;
    }
    std::string file(const std::string& rel) const { return slurp(dir_ + "/root/" + rel); }

    std::vector<uint8_t> out;

private:
    static const uncore_config& checked(const uncore_config& cfg) {
        cfg.validate();
        return cfg;
    }
    std::string dir_;
    uncore_system sys_;
    serve::machine_view view_;
    serve::listener listener_;
    serve::server srv_;
    serve::server::connection c_;
};

// Both sockets of a two-socket machine of `cpu` at the default 2000 MHz UCLK.
void generic_noncore_on_every_socket(cpu_model cpu, uint16_t device_id) {
    uncore_config cfg;
    cfg.cpu = cpu;
    cfg.sockets = 2;
    served m(cfg);
    for (unsigned bus : {0xFFu, 0xFEu}) {
        SCOPED_TRACE(bus);
        EXPECT_EQ(m.read(bus, 0, 0, 0x00, 4), (uint64_t{device_id} << 16) | 0x8086u);
        EXPECT_EQ(m.read(bus, 0, 0, 0x08, 4) >> 8, 0x060000u) << "class: host bridge";
        // CURRENT_UCLK_RATIO: 2000 MHz = 15 x 133.33 MHz, in bits 6:0; as a
        // dword (CoreFreq, Linux's pci_read_config_dword) and as a byte (a BIOS).
        EXPECT_EQ(m.read(bus, 0, 0, 0xC0, 4), 15u);
        EXPECT_EQ(m.read(bus, 0, 0, 0xC0, 1), 15u);
        // Read-only: a write leaves it, and is no error (the hardware ignores
        // writes to read-only bits); the rest of the space reads back.
        EXPECT_EQ(m.write(bus, 0, 0, 0xC0, 4, 0x7F), 0);
        EXPECT_EQ(m.read(bus, 0, 0, 0xC0, 4), 15u);
        EXPECT_EQ(m.write(bus, 0, 0, 0xC4, 4, 0x1234), 0);
        EXPECT_EQ(m.read(bus, 0, 0, 0xC4, 4), 0x1234u);
        // A listing (lspci -xxx) shows the ratio too.
        ASSERT_EQ(m.call(wire::op::pci_dump, wire::bdf(bus, 0, 0), 0, 256).error, 0);
        ASSERT_EQ(m.out.size(), 256u);
        EXPECT_EQ(m.out[0xC0], 15u);
        // The sysfs files of the function (lspci's sysfs back end).
        const std::string slot = bus == 0xFF ? "0000:ff:00.0" : "0000:fe:00.0";
        EXPECT_EQ(m.file("sys/bus/pci/devices/" + slot + "/device"), device_id == 0x2C40 ? "0x2c40\n" : "0x2c70\n");
        EXPECT_EQ(m.file("sys/bus/pci/devices/" + slot + "/class"), "0x060000\n");
        const std::string config = m.file("sys/bus/pci/devices/" + slot + "/config");
        ASSERT_EQ(config.size(), 4096u);
        EXPECT_EQ(static_cast<uint8_t>(config[0xC0]), 15u) << "the placeholder holds the register too";
    }
    EXPECT_EQ(m.file("sys/bus/pci/devices/0000:fe:00.0/numa_node"), "1\n") << "bus 0xFE is socket 1";
    // No other bus, no other function of the machine.
    int error = 0;
    m.read(0x7F, 0, 0, 0, 4, &error);
    EXPECT_EQ(error, ENODEV);
    m.read(0xFF, 0, 1, 0, 4, &error);
    EXPECT_EQ(error, ENODEV);
}

TEST(ServedNoncore, NhmEpGenericNonCoreOnEverySocketReadsTheUclkRatio) {
    generic_noncore_on_every_socket(cpu_model::nhm_ep, 0x2C40);
}

TEST(ServedNoncore, WsmEpGenericNonCoreOnEverySocketReadsTheUclkRatio) {
    generic_noncore_on_every_socket(cpu_model::wsm_ep, 0x2C70);
}

// A UCLK other than the default: a real X5570's 2.66 GHz is ratio 20 (typed
// to the MHz, 2667 is within 1 MHz of 20 x 133.33).
TEST(ServedNoncore, RatioFollowsUclkMhz) {
    uncore_config cfg;
    cfg.cpu = cpu_model::nhm_ep;
    cfg.uclk_mhz = 2667;
    served m(cfg);
    EXPECT_EQ(m.read(0xFF, 0, 0, 0xC0, 4), 20u);
    EXPECT_EQ(m.read(0xFF, 0, 0, 0xC0, 2), 20u);
}

// The E5s present no such function (their platform functions are 16.x, 19.5/19.6).
TEST(ServedNoncore, NoGenericNonCoreOnTheE5) {
    uncore_config cfg;
    cfg.cpu = cpu_model::snb_ep;
    served m(cfg);
    int error = 0;
    m.read(0xFF, 0, 0, 0, 4, &error);
    EXPECT_EQ(error, ENODEV);
    EXPECT_EQ(m.read(0xFF, 16, 0, 0, 4), 0x3CB08086u);
}

}  // namespace
}  // namespace pmonsim
