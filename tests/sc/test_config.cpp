// Machine configuration (DECISIONS.md "Personalities", "Clocks and time") and
// the clock diagnostics are counted in.
#include <gtest/gtest.h>

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
