// Derived metrics over PMON counts, per QPI port (329468-002 §2.7.5 "QPI LL
// Performance Monitoring Metrics" and Intel PCM's QPI formulas): data
// bandwidth, link utilization (from flits and CLOCKTICKS, or from the link
// rate in QPI_RATE_STATUS), DRS data received, and the share of cycles in the
// L0p and L1 power states.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace pmonsim::driver {

struct metric_inputs {
    std::vector<double> counts;  // of metric::events, in order
    double seconds;              // measurement time
    double link_gts;             // the port's rate from QPI_RATE_STATUS, 0 if unknown
};

struct metric {
    std::string name, unit, description;
    std::vector<std::string> events;  // "{p}" stands for the QPI port: "qpi{p}/CLOCKTICKS"
    std::function<double(const metric_inputs&)> value;

    std::vector<std::string> events_for_port(unsigned port) const;
};

const std::vector<metric>& metrics();
const metric* find_metric(const std::string& name);

}  // namespace pmonsim::driver
