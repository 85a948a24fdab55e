// libFuzzer harness: the input as the records of a binary trace behind a valid
// header (packets or events, ps or cycles, fixed or compact records (version
// 3), bursts kept whole or not, read one by one or in batches, chosen by the
// first byte), so the fuzzer spends its time in the record checks, not in
// finding the magic.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>

#include "trace/trace_binary.h"
#include "trace/trace_reader.h"

using namespace pmonsim::trace;
namespace bf = pmonsim::trace::binary_format;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    std::string file(bf::header_size, '\0');
    std::memcpy(file.data(), bf::magic, bf::magic_size);
    const bool compact = data[0] & 4;
    file[7] = static_cast<char>(compact ? bf::version_compact : bf::version);
    file[8] = static_cast<char>(data[0] & 1 && !compact ? bf::kind_events : bf::kind_packets);
    file[9] = static_cast<char>(data[0] & 2 ? bf::unit_cycles : bf::unit_ps);
    file[10] = static_cast<char>(bf::header_size);
    file[12] = static_cast<char>(compact ? bf::record_size_compact : bf::record_size);
    file.append(reinterpret_cast<const char*>(data + 1), size - 1);
    trace_context ctx;
    ctx.sockets = 2;
    ctx.qpi_ports = 3;
    std::istringstream in(file);
    try {
        if (data[0] & 16) {  // validation: bursts counted whole
            validate_trace(in, "fuzz.bin", ctx);
            return 0;
        }
        trace_reader r(in, "fuzz.bin", ctx);
        if (data[0] & 8) r.keep_bursts();
        // (A few bytes may stand for billions of packets: read a bounded number.)
        if (data[0] & 32 && r.kind() == trace_kind::packets) {  // in batches (version 3: runs in one loop)
            packet_record batch[64];
            for (std::size_t k = 0, n; k < (1 << 20) && (n = r.read(batch, 64)) != 0; k += n) {
            }
            return 0;
        }
        trace_record rec;
        for (int k = 0; k < (1 << 20) && r.next(rec); ++k) {
        }
    } catch (const trace_error&) {
    }
    return 0;
}
