// Machine configuration (DECISIONS.md "Personalities", "Clocks and time") and
// the clock diagnostics are counted in.
#include <gtest/gtest.h>

#include <utility>

#include "sc/sc_harness.h"

namespace pmonsim {
namespace {

TEST(Config, QpiRateMustHaveARateStatusCode) {
    uncore_config cfg;
    const double rates[] = {5.6, 6.4, 7.2, 8.0, 8.8, 9.6};
    for (unsigned i = 0; i < 6; ++i) {
        cfg.qpi_gts = rates[i];
        EXPECT_NO_THROW(cfg.validate()) << rates[i];
        EXPECT_EQ(cfg.qpi_rate_code(), i + 2) << rates[i];
    }
    for (double bad : {4.8, 7.0, 10.4, 0.0}) {
        cfg.qpi_gts = bad;
        EXPECT_THROW(cfg.validate(), std::invalid_argument) << bad;
    }
}

TEST(Config, TopologyLimits) {
    uncore_config cfg;
    cfg.qpi_ports = 3;
    EXPECT_NO_THROW(cfg.validate());
    cfg.cpu = cpu_model::snb_ep;
    EXPECT_THROW(cfg.validate(), std::invalid_argument);  // snb-ep has two ports
    cfg.qpi_ports = 2;
    cfg.sockets = 3;
    EXPECT_THROW(cfg.validate(), std::invalid_argument);
    cfg.sockets = 2;
    EXPECT_EQ(cfg.bus_of(0), 0x7Fu);
    EXPECT_EQ(cfg.bus_of(1), 0xFFu);
    cfg.start_frozen = true;
    EXPECT_THROW(cfg.validate(), std::invalid_argument);  // no global freeze on snb-ep
}

// Nehalem-EP/Westmere-EP: UCLK is a whole multiple of the 133.33 MHz BCLK,
// the ratio CURRENT_UCLK_RATIO reads; within 1 MHz of one (a UCLK typed to the
// MHz) it is that ratio, anything else is rejected. The E5s have no such
// register and take any UCLK (decisions.md N12).
TEST(Config, NehalemUclkMustBeAWholeRatioOfBclk) {
    for (cpu_model cpu : {cpu_model::nhm_ep, cpu_model::wsm_ep}) {
        SCOPED_TRACE(to_string(cpu));
        uncore_config cfg;
        cfg.cpu = cpu;
        EXPECT_NO_THROW(cfg.validate());
        EXPECT_EQ(cfg.uclk_ratio(), 15u) << "the default 2000 MHz is 15 x 133.33";
        for (auto [mhz, ratio] : {std::pair{2400.0, 18u}, {2666.67, 20u}, {2667.0, 20u}, {2666.0, 20u},
                                  {2133.3333, 16u}, {133.33, 1u}, {9866.67, 74u}}) {
            cfg.uclk_mhz = mhz;
            EXPECT_NO_THROW(cfg.validate()) << mhz;
            EXPECT_EQ(cfg.uclk_ratio(), ratio) << mhz;
        }
        for (double bad : {2050.0, 2665.0, 2668.0, 100.0, 1900.0}) {
            cfg.uclk_mhz = bad;
            EXPECT_EQ(cfg.uclk_ratio(), 0u) << bad;
            EXPECT_THROW(cfg.validate(), std::invalid_argument) << bad;
        }
    }
    uncore_config e5;
    e5.uclk_mhz = 2050;
    EXPECT_NO_THROW(e5.validate());
    EXPECT_EQ(e5.uclk_ratio(), 0u) << "no ratio register on ivb-ep";
}

// Nehalem-EP/Westmere-EP sockets sit on the last buses, socket s on 0xFF - s
// (Linux's i7core_edac: socket = last bus - bus); the E5s keep P3's buses.
TEST(Config, NehalemSocketsOnTheLastBuses) {
    uncore_config cfg;
    cfg.cpu = cpu_model::wsm_ep;
    EXPECT_EQ(cfg.bus_of(0), 0xFFu);
    cfg.sockets = 2;
    EXPECT_EQ(cfg.bus_of(0), 0xFFu);
    EXPECT_EQ(cfg.bus_of(1), 0xFEu);
    cfg.buses = {0x3F, 0x7F};
    EXPECT_EQ(cfg.bus_of(1), 0x7Fu) << "configured buses win";
    cfg.cpu = cpu_model::ivb_ep;
    cfg.buses.clear();
    EXPECT_EQ(cfg.bus_of(0), 0x7Fu);
    EXPECT_EQ(cfg.bus_of(1), 0xFFu);
}

TEST(Config, QpiFunctionDiagnosticsCountQclkCycles) {
    uncore_config cfg;  // 2 GHz UCLK, 1 GHz QCLK
    uncore_system sys("sys", cfg);
    test::run_script([&] {
        test::wait_ns(10);
        EXPECT_EQ(sys.pci_read(0xFF, 8, 0, 0x40, 4), 0u);   // QPI misc function
        EXPECT_EQ(sys.pci_read(0xFF, 19, 1, 0x40, 4), 0u);  // R2PCIe
    });
    const auto& d = sys.diagnostics().records();
    ASSERT_EQ(d.size(), 2u);
    EXPECT_EQ(d[0].box, "qpi0");
    EXPECT_EQ(d[0].cycle, 10u);
    EXPECT_EQ(d[1].box, "r2pcie");
    EXPECT_EQ(d[1].cycle, 20u);
}

}  // namespace
}  // namespace pmonsim

namespace pmonsim {
namespace {

// Units a machine has (decisions.md B1, B5, B6, B8): iMC channels and home
// agents by its memory controllers, R3QPI links by its QPI ports, caching
// agents by its cores (two threads a core when the CPU count is even), at
// most the descriptor's.
TEST(Config, UnitsFollowTheMachinesControllersPortsAndCores) {
    uncore_config c;
    auto units = [&](box_kind k) { return c.units_present(describe(c.cpu).need(k)); };
    c.cpus_per_socket = 16;
    EXPECT_EQ(units(box_kind::cbo), 8u);
    c.cpus_per_socket = 30;
    EXPECT_EQ(units(box_kind::cbo), 15u);
    c.cpus_per_socket = 64;
    EXPECT_EQ(units(box_kind::cbo), 15u) << "ivb-ep has at most 15";
    c.cpus_per_socket = 5;
    EXPECT_EQ(units(box_kind::cbo), 5u) << "an odd count: a thread a core";
    c.memory_controllers = 2;
    c.qpi_ports = 3;
    EXPECT_EQ(units(box_kind::imc), 8u);
    EXPECT_EQ(units(box_kind::ha), 2u);
    EXPECT_EQ(units(box_kind::r3qpi), 3u);
    c.cpu = cpu_model::snb_ep;
    c.memory_controllers = 1;
    c.qpi_ports = 2;
    c.cpus_per_socket = 24;
    EXPECT_EQ(units(box_kind::cbo), 8u) << "snb-ep has at most 8";
    EXPECT_EQ(units(box_kind::imc), 4u);
    EXPECT_EQ(units(box_kind::ha), 1u);
    EXPECT_EQ(units(box_kind::r3qpi), 2u);
    c.memory_controllers = 2;
    EXPECT_THROW(c.validate(), std::invalid_argument);
}

}  // namespace
}  // namespace pmonsim
