#include "model_options.h"

#include "cli_status.h"
#include "desc/nearest.h"

namespace po = boost::program_options;

namespace pmonsim {

namespace {

// "snb-ep 2, ivb-ep 3": the QPI ports each CPU may have.
std::string qpi_ports_by_cpu() {
    std::string s;
    for (const cpu_desc& d : cpu_registry())
        if (const unsigned n = d.units(box_kind::qpi)) s += (s.empty() ? "" : ", ") + std::string(d.name) + " " + std::to_string(n);
    return s;
}

std::string memory_controllers_by_cpu() {
    std::string s;
    for (const cpu_desc& d : cpu_registry())
        if (const box_desc* m = d.box(box_kind::imc))
            s += (s.empty() ? "" : ", ") + std::string(d.name) + " " + std::to_string(m->units / m->units_per_group);
    return s;
}

}  // namespace

std::string cpus_with_global_freeze() {
    std::string s;
    for (const cpu_desc& d : cpu_registry()) switch (d.global) {
            case global_control::ubox_freeze: s += (s.empty() ? "" : ", ") + std::string(d.name); break;
            case global_control::none:
            case global_control::uncore_global_ctrl: break;
        }
    return s;
}

void add_model_options(boost::program_options::options_description& opts, uncore_config& cfg,
                       const std::string& note) {
    namespace po = boost::program_options;
    opts.add_options()
        ("sockets", po::value(&cfg.sockets)->default_value(cfg.sockets), (note + "sockets (1 or 2)").c_str())
        ("qpi-ports", po::value(&cfg.qpi_ports)->default_value(cfg.qpi_ports),
         (note + "QPI ports per socket (at most: " + qpi_ports_by_cpu() + ")").c_str())
        ("cpus-per-socket", po::value(&cfg.cpus_per_socket)->default_value(cfg.cpus_per_socket),
         (note + "logical CPUs per socket (MSR cpu c is on socket c / N)").c_str())
        ("uclk-mhz", po::value(&cfg.uclk_mhz)->default_value(cfg.uclk_mhz), (note + "UCLK frequency in MHz").c_str())
        ("qpi-gts", po::value(&cfg.qpi_gts)->default_value(cfg.qpi_gts),
         (note + "QPI rate in GT/s (QCLK = GT/s / 8)").c_str())
        ("dclk-mhz", po::value(&cfg.dclk_mhz)->default_value(cfg.dclk_mhz),
         (note + "DRAM clock in MHz, half the DDR rate (the memory-controller channels count it)").c_str())
        ("memory-controllers", po::value(&cfg.memory_controllers)->default_value(cfg.memory_controllers),
         (note + "memory controllers per socket, 4 channels each (at most: " + memory_controllers_by_cpu() + ")").c_str())
        ("freeze-latency", po::value(&cfg.freeze_latency)->default_value(cfg.freeze_latency),
         (note + "UCLK cycles until an overflow freeze reaches the other boxes").c_str());
}

std::string option_suggestion(const std::string& given, const po::options_description& opts) {
    std::vector<std::string> names;
    for (const auto& d : opts.options())
        if (!d->long_name().empty()) names.push_back("--" + d->long_name());
    std::string g = given;
    if (g.rfind("--", 0) != 0 && g.rfind("-", 0) == 0) g = "-" + g;  // -trce: --trce
    return did_you_mean(g, names);
}

void parse_command_line(int argc, char** argv, const po::options_description& opts, po::variables_map& vm,
                        const std::string& tool, const po::positional_options_description& pos) {
    try {
        po::store(po::command_line_parser(argc, argv).options(opts).positional(pos).run(), vm);
    } catch (const po::unknown_option& e) {
        throw bad_input(std::string(e.what()) + option_suggestion(e.get_option_name(), opts) + " (see " + tool +
                        " --help)");
    }
}

cpu_model parse_cpu_option(const std::string& s) {
    if (const cpu_desc* d = find_cpu(s)) return d->key;
    throw bad_input("--cpu " + unknown_cpu_text(s));
}

}  // namespace pmonsim
