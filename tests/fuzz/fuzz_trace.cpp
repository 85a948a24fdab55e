// libFuzzer harness: any input as a trace file (text, binary or gzip, told
// apart by content as for a real file), every record read, for both a small
// and a two-socket, three-port context. Errors are trace_error (bad input);
// anything else (a crash, a hang, another exception) is a finding.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "trace/trace_reader.h"

using namespace pmonsim::trace;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    for (const unsigned sockets : {1u, 2u}) {
        trace_context ctx;
        ctx.sockets = sockets;
        ctx.qpi_ports = sockets == 1 ? 2 : 3;
        ctx.max_time = pmonsim::max_model_time / 2;
        std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
        try {
            trace_reader r(in, "fuzz", ctx);
            trace_record rec;
            for (int n = 0; n < 1000000 && r.next(rec); ++n) {
            }
        } catch (const trace_error&) {
        }
    }
    return 0;
}
