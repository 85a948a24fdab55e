// The machine the trace tests read for: IVB-EP unless told, UCLK 2 GHz (cycle
// k at k * 0.5 ns), QCLK 1 GHz (cycle k at k ns).
#pragma once
#include "trace/trace_reader.h"

namespace pmonsim::trace {

inline trace_context test_trace_context(unsigned sockets = 1, unsigned ports = 2,
                                        cpu_model cpu = cpu_model::ivb_ep) {
    trace_context c;
    c.cpu = cpu;
    c.sockets = sockets;
    c.qpi_ports = ports;
    c.uclk_hz = 2000000000ull;
    c.qclk_hz = 1000000000ull;
    return c;
}

}  // namespace pmonsim::trace
