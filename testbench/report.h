// The end-of-run report of the pmonsim tool (table, CSV or JSON on stdout):
// per socket and box every counter with its control value, decoded event,
// value and overflow count, box and global freeze state, the UCLK and QCLK
// cycle totals, PMIs, and every diagnostic. The JSON schema is in
// docs/user-guide.md ("Reports").
#pragma once
#include <ostream>
#include <string>

#include "sc/uncore_system.h"

namespace pmonsim {

enum class report_format { table, csv, json };
bool parse_report_format(const std::string& s, report_format& f);
// The value of --report: a format, or `none` (no report); throws bad_input
// (cli_status.h) for anything else.
void parse_report_option(const std::string& s, report_format& f, bool& none);

void print_report(std::ostream& os, uncore_system& sys, report_format f);
// Whether the run left every counter disabled, at zero and never wrapped: no
// counter was programmed, so whatever the traces held was counted nowhere.
bool counted_nothing(uncore_system& sys);
// The report to `file` (complete or absent, output_file.h), or to standard
// output when `file` is empty; throws output_error when it cannot be written.
void write_report(uncore_system& sys, report_format f, const std::string& file);

}  // namespace pmonsim
