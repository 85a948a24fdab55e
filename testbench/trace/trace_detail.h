// The wording of the trace readers' messages, shared by the text and binary
// decoders so that a bad record reads like a bad row (trace_detail.cpp).
#pragma once
#include <string>
#include <string_view>

#include "catalog/catalog.h"
#include "core/clock.h"

namespace pmonsim::trace::detail {

std::string fmt_ns(time_ps t);  // "12.5 ns"
std::string hex2(unsigned v);   // "0x0c"
// "no sockets", "1 socket: 0", "2 ports: 0-1".
std::string range_text(unsigned n, const char* one, const char* many);
std::string mc_name(unsigned mc);           // "DRS", "MC 7"
std::string sub_list(const event_def& ev);  // "DRS_DATA, NCB_DATA, bit3"
std::string quoted(std::string_view v);     // "'VALUE'", long values cut: "'xxx...'"

}  // namespace pmonsim::trace::detail
