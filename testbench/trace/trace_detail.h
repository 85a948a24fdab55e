// The wording of the trace readers' messages, shared by the text and binary
// decoders so that a bad record reads like a bad row (trace_detail.cpp).
#pragma once
#include <cstddef>
#include <exception>
#include <string>
#include <string_view>

#include "catalog/catalog.h"
#include "desc/clock.h"

namespace pmonsim::trace::detail {

std::string fmt_ns(time_ps t);  // "12.5 ns"
// A time range's end for messages: "4611686018427387.904 ns, about 53 days".
std::string time_range_text(time_ps t);
std::string hex2(unsigned v);   // "0x0c"
// "no sockets", "1 socket: 0", "2 ports: 0-1".
std::string range_text(unsigned n, const char* one, const char* many);
const char* mc_text(unsigned mc);           // "DRS"; null for a class without a name
std::string mc_name(unsigned mc);           // "DRS", "MC 7"
std::string sub_list(const event_def& ev);  // "DRS_DATA, NCB_DATA, bit3"
std::string quoted(std::string_view v);     // "'VALUE'", long values cut: "'xxx...'"

// A decoder's batch read: up to n records from impl.next(); an exception
// ends the batch where it happened and is handed back in `error`. (A
// template, so that each decoder's next() is inlined into the loop: one
// call per batch, not per record.)
template <class Impl, class Record>
std::size_t read_batch(Impl& impl, Record* out, std::size_t n, std::exception_ptr& error) {
    std::size_t k = 0;
    try {
        while (k < n && impl.next(out[k])) ++k;
    } catch (...) {
        error = std::current_exception();
    }
    return k;
}

}  // namespace pmonsim::trace::detail
