// validate_trace() of a large file as two halves on two threads
// (trace_validate.cpp); declared for the tests, which check that it is taken
// and that it agrees with one pass.
#pragma once
#include <string>

#include "trace/trace_reader.h"

namespace pmonsim::trace::detail {

// True, with the summary one pass would give, when the halves settle it;
// false when they do not (a small, compressed or unreadable file, a bad row,
// time going back at the split): then one pass must decide.
bool validate_in_halves(const std::string& path, const std::string& name,
                        const trace_context& ctx, trace_summary& out);

}  // namespace pmonsim::trace::detail
