#include "driver/metrics.h"

namespace pmonsim::driver {

namespace {
constexpr double kBytesPerFlit = 8;  // a data flit carries 64 data bits
double ratio(double a, double b) { return b > 0 ? a / b : 0; }
}  // namespace

std::vector<std::string> metric::events_for_port(unsigned port) const {
    std::vector<std::string> out;
    for (std::string e : events) {
        const auto at = e.find("{p}");
        if (at != std::string::npos) e.replace(at, 3, std::to_string(port));
        out.push_back(e);
    }
    return out;
}

const std::vector<metric>& metrics() {
    static const std::vector<metric> all = {
        {"qpi_data_bw", "MB/s", "data received plus sent: data flits x 8 bytes per second",
         {"qpi{p}/RxL_FLITS_G0.DATA", "qpi{p}/TxL_FLITS_G0.DATA"},
         [](const metric_inputs& m) { return ratio((m.counts[0] + m.counts[1]) * kBytesPerFlit, m.seconds) / 1e6; }},
        {"qpi_rx_data_bw", "MB/s", "data received: data flits x 8 bytes per second",
         {"qpi{p}/RxL_FLITS_G0.DATA"},
         [](const metric_inputs& m) { return ratio(m.counts[0] * kBytesPerFlit, m.seconds) / 1e6; }},
        {"qpi_tx_data_bw", "MB/s", "data sent: data flits x 8 bytes per second",
         {"qpi{p}/TxL_FLITS_G0.DATA"},
         [](const metric_inputs& m) { return ratio(m.counts[0] * kBytesPerFlit, m.seconds) / 1e6; }},
        {"qpi_link_util", "%", "received flits (data and non-data) over the 2 flit slots per QCLK",
         {"qpi{p}/RxL_FLITS_G0.DATA|NON_DATA", "qpi{p}/CLOCKTICKS"},
         [](const metric_inputs& m) { return 100 * ratio(m.counts[0], 2 * m.counts[1]); }},
        {"qpi_rx_util", "%", "received flits x 8 bytes over the link's bytes per second (GT/s x 2, QPI_RATE_STATUS)",
         {"qpi{p}/RxL_FLITS_G0.DATA|NON_DATA"},
         [](const metric_inputs& m) {
             return 100 * ratio(m.counts[0] * kBytesPerFlit, m.link_gts * 2e9 * m.seconds);
         }},
        {"qpi_tx_util", "%", "sent flits x 8 bytes over the link's bytes per second (GT/s x 2, QPI_RATE_STATUS)",
         {"qpi{p}/TxL_FLITS_G0.DATA|NON_DATA"},
         [](const metric_inputs& m) {
             return 100 * ratio(m.counts[0] * kBytesPerFlit, m.link_gts * 2e9 * m.seconds);
         }},
        {"drs_data_from_qpi", "MB/s", "DRS data flits received x 8 bytes per second",
         {"qpi{p}/RxL_FLITS_G1.DRS_DATA"},
         [](const metric_inputs& m) { return ratio(m.counts[0] * kBytesPerFlit, m.seconds) / 1e6; }},
        {"pct_l0p", "%", "share of cycles the receiver was in L0p (half width)",
         {"qpi{p}/RxL0P_POWER_CYCLES", "qpi{p}/CLOCKTICKS"},
         [](const metric_inputs& m) { return 100 * ratio(m.counts[0], m.counts[1]); }},
        {"pct_l1", "%", "share of cycles the link was in L1 (off)",
         {"qpi{p}/L1_POWER_CYCLES", "qpi{p}/CLOCKTICKS"},
         [](const metric_inputs& m) { return 100 * ratio(m.counts[0], m.counts[1]); }},
    };
    return all;
}

const metric* find_metric(const std::string& name) {
    for (const metric& m : metrics())
        if (m.name == name) return &m;
    return nullptr;
}

}  // namespace pmonsim::driver
