// pmonsim: command-line front end. For now it runs the built-in demonstration
// scenario and prints every counter; trace replay and register scripts build
// on the same uncore_system.
#include <boost/program_options.hpp>
#include <cstdlib>
#include <iostream>
#include <systemc>

#include "demo_scenario.h"
#include "report.h"

namespace po = boost::program_options;
using namespace pmonsim;

namespace {

class demo_driver : public sc_core::sc_module {
public:
    demo_driver(sc_core::sc_module_name n, uncore_system& sys, double us) : sc_module(n), sys_(sys), us_(us) {
        SC_HAS_PROCESS(demo_driver);
        SC_THREAD(run);
    }

private:
    void run() {
        run_demo_scenario(sys_, us_);
        sc_core::sc_stop();
    }
    uncore_system& sys_;
    double us_;
};

void quiet_info(const sc_core::sc_report& r, const sc_core::sc_actions& a) {
    // SystemC prints info messages on stdout, which is the report's: keep them off.
    if (r.get_severity() == sc_core::SC_INFO) return;
    sc_core::sc_report_handler::default_handler(r, a);
}

}  // namespace

int sc_main(int argc, char** argv) {
    sc_core::sc_report_handler::set_handler(quiet_info);
    uncore_config cfg;
    std::string cpu = "ivb-ep";
    double us = 5;
    po::options_description opts("pmonsim options");
    opts.add_options()
        ("help,h", "show this help")
        ("cpu", po::value(&cpu)->default_value(cpu), "personality: snb-ep or ivb-ep")
        ("sockets", po::value(&cfg.sockets)->default_value(cfg.sockets), "sockets (1 or 2)")
        ("qpi-ports", po::value(&cfg.qpi_ports)->default_value(cfg.qpi_ports), "QPI ports per socket (3 on ivb-ep)")
        ("cpus-per-socket", po::value(&cfg.cpus_per_socket)->default_value(cfg.cpus_per_socket), "logical CPUs per socket")
        ("uclk-mhz", po::value(&cfg.uclk_mhz)->default_value(cfg.uclk_mhz), "UCLK frequency")
        ("qpi-gts", po::value(&cfg.qpi_gts)->default_value(cfg.qpi_gts), "QPI link rate (QCLK = GT/s / 8)")
        ("freeze-latency", po::value(&cfg.freeze_latency)->default_value(cfg.freeze_latency), "UCLK cycles for the global freeze to reach other boxes")
        ("start-frozen", po::bool_switch(&cfg.start_frozen), "start with the global freeze asserted (ivb-ep)")
        ("demo-us", po::value(&us)->default_value(us), "microseconds of built-in demo traffic");
    po::variables_map vm;
    try {
        po::store(po::parse_command_line(argc, argv, opts), vm);
        po::notify(vm);
        if (vm.count("help")) {
            std::cout << "Usage: pmonsim [options]\nRuns the built-in scenario and prints every counter.\n"
                      << "Example: pmonsim --cpu snb-ep --sockets 2\n\n" << opts;
            return 0;
        }
        auto m = parse_cpu_model(cpu);
        if (!m) throw std::invalid_argument("--cpu must be snb-ep or ivb-ep, not '" + cpu + "'");
        cfg.cpu = *m;
        cfg.validate();
    } catch (const std::exception& e) {
        std::cerr << "pmonsim: " << e.what() << "\n";
        return 2;
    }
    try {
        uncore_system sys("uncore", cfg);
        demo_driver driver("driver", sys, us);
        sc_core::sc_start();
        print_counter_table(std::cout, sys);
    } catch (const std::exception& e) {
        std::cerr << "pmonsim: internal error: " << e.what() << "\n";
        return 1;
    }
    return 0;
}

// SystemC prints its banner on stdout before sc_main runs; stdout carries the
// report only, so switch the banner off first.
int main(int argc, char** argv) {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    return sc_core::sc_elab_and_sim(argc, argv);
}
