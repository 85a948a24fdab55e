// pmonsim-bench-clocked: runs the clocked baseline (clocked_baseline.h) on the
// same traces and program as pmonsim, prints its counts as CSV, and with
// --expect compares them with a `pmonsim --report csv` report: exit status 1
// and one line per differing counter if any count differs.
//
//   pmonsim --trace p.csv --trace e.csv --program prog.sh --cycles N --report csv > model.csv
//   pmonsim-bench-clocked --trace p.csv --trace e.csv --program prog.sh --cycles N --expect model.csv
#include <boost/program_options.hpp>
#include <cstdlib>
#include <iostream>
#include <systemc>

#include "clocked_baseline.h"

namespace po = boost::program_options;
using namespace pmonsim;

namespace {

void quiet_info(const sc_core::sc_report& r, const sc_core::sc_actions& a) {
    if (r.get_severity() == sc_core::SC_INFO) return;
    sc_core::sc_report_handler::default_handler(r, a);
}

}  // namespace

int sc_main(int argc, char** argv) {
    sc_core::sc_report_handler::set_handler(quiet_info);
    bench::baseline_options o;
    std::string cpu = describe(default_cpu).name, counter = "own", expect, report = "csv";
    po::options_description opts("pmonsim-bench-clocked options");
    opts.add_options()
        ("help,h", "show this help")
        ("cpu", po::value(&cpu)->default_value(cpu), cpu_names(", ").c_str())
        ("sockets", po::value(&o.cfg.sockets)->default_value(o.cfg.sockets), "sockets")
        ("qpi-ports", po::value(&o.cfg.qpi_ports)->default_value(o.cfg.qpi_ports), "QPI ports per socket")
        ("cpus-per-socket", po::value(&o.cfg.cpus_per_socket)->default_value(o.cfg.cpus_per_socket), "logical CPUs per socket")
        ("uclk-mhz", po::value(&o.cfg.uclk_mhz)->default_value(o.cfg.uclk_mhz), "UCLK in MHz")
        ("qpi-gts", po::value(&o.cfg.qpi_gts)->default_value(o.cfg.qpi_gts), "QPI rate in GT/s")
        ("start-frozen", po::bool_switch(&o.cfg.start_frozen), "global freeze asserted at power-on")
        ("trace", po::value(&o.traces), "packet or event trace (repeatable)")
        ("program", po::value(&o.program), "writes-only script run at time 0")
        ("cycles", po::value(&o.uclk_cycles), "run length in UCLK cycles (required)")
        ("counter", po::value(&counter)->default_value(counter),
         "own (controls decoded once, the timing baseline) or reference (reference_box::tick)")
        ("expect", po::value(&expect), "pmonsim --report csv output to compare the counts with")
        ("report", po::value(&report)->default_value(report), "csv or none (to stdout)");
    try {
        po::variables_map vm;
        po::store(po::parse_command_line(argc, argv, opts), vm);
        po::notify(vm);
        if (vm.count("help")) {
            std::cout << "Usage: pmonsim-bench-clocked --trace FILE... --program FILE --cycles N [--expect CSV]\n"
                         "The clocked (per-cycle SC_METHOD) baseline of the Fast replay benchmark.\n\n"
                      << opts;
            return 0;
        }
        const cpu_desc* d = find_cpu(cpu);
        if (!d) throw std::invalid_argument("--cpu must be one of " + cpu_names(", "));
        o.cfg.cpu = d->key;
        if (counter == "own") o.counter = bench::counter_impl::own;
        else if (counter == "reference") o.counter = bench::counter_impl::reference;
        else throw std::invalid_argument("--counter must be own or reference");
        if (!vm.count("cycles")) throw std::invalid_argument("--cycles is required");
        if (report != "csv" && report != "none") throw std::invalid_argument("--report must be csv or none");
    } catch (const std::exception& e) {
        std::cerr << "pmonsim-bench-clocked: " << e.what() << "\n";
        return 2;
    }
    try {
        const bench::baseline_result r = bench::run_clocked_baseline(o);
        if (report == "csv") {
            std::cout << "socket,box,counter,value,overflows\n";
            for (const auto& c : r.counts)
                std::cout << c.socket << ',' << c.box << ',' << c.counter << ',' << c.value << ',' << c.overflows
                          << '\n';
        }
        std::cerr << "clocked baseline (" << counter << " counter): " << r.records << " records, "
                  << r.uclk_cycles << " UCLK + " << r.qclk_cycles << " QCLK cycles, " << r.activations
                  << " box activations, sc_start " << r.sim_seconds << " s\n";
        if (!expect.empty()) {
            const auto model = bench::read_pmonsim_csv(expect);
            const auto diffs = bench::compare_counts(model, r.counts);
            if (!diffs.empty()) {
                std::cerr << "COUNTS DIFFER between pmonsim (" << expect << ") and the clocked baseline:\n";
                for (const auto& d : diffs) std::cerr << "  " << d << "\n";
                return 1;
            }
            unsigned nonzero = 0;
            for (const auto& c : r.counts) nonzero += c.value != 0;
            std::cerr << "counts identical: " << r.counts.size() << " counters (" << nonzero
                      << " non-zero) match " << expect << "\n";
        }
    } catch (const std::exception& e) {
        std::cerr << "pmonsim-bench-clocked: " << e.what() << "\n";
        return 2;
    }
    return 0;
}

// SystemC prints its banner on stdout; switch it off before sc_main runs.
int main(int argc, char** argv) {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    return sc_core::sc_elab_and_sim(argc, argv);
}
