// The model options the tools share (pmonsim, pmonsim convert, pmon-stat):
// one definition of their names, defaults and help, which are part of the
// pmonsim command-line contract (docs/user-guide.md).
#pragma once
#include <boost/program_options.hpp>
#include <string>

#include "sc/uncore_config.h"

namespace pmonsim {

// --sockets --qpi-ports --cpus-per-socket --uclk-mhz --qpi-gts --freeze-latency,
// written into `cfg`; `note` starts each help text (e.g. "sim: ").
void add_model_options(boost::program_options::options_description& opts, uncore_config& cfg,
                       const std::string& note = "");

// The CPUs whose global control has a freeze state (for --start-frozen's help).
std::string cpus_with_global_freeze();
// The value of --cpu; throws bad_input (cli_status.h) naming the accepted ones.
cpu_model parse_cpu_option(const std::string& s);

// " (did you mean --trace?)" for an option that is none of `opts`' (as Boost
// names it in unknown_option: "--trce", "-trce"), or "".
std::string option_suggestion(const std::string& given, const boost::program_options::options_description& opts);

// Parses argv with `opts` (positional: `pos`, none by default) into vm; an
// unknown option throws bad_input with the nearest names and "(see TOOL --help)".
void parse_command_line(int argc, char** argv, const boost::program_options::options_description& opts,
                        boost::program_options::variables_map& vm, const std::string& tool,
                        const boost::program_options::positional_options_description& pos = {});

}  // namespace pmonsim
