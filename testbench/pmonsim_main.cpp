// pmonsim: replays QPI packet traces and event traces through the uncore PMON
// model, runs register-access scripts (the msr-tools / pciutils dialect), and
// reports counts as a table, CSV or JSON; optionally writes GTKWave waveforms.
// The command line is documented in docs/user-guide.md and by --help.
#include <unistd.h>

#include <boost/program_options.hpp>
#include <cerrno>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <systemc>

#include "version.h"
#include "driver/script/script.h"
#include "cli_status.h"
#include "model_options.h"
#include "output_file.h"
#include "progress.h"
#include "replay.h"
#include "report.h"
#include "sc/time_util.h"
#include "sim_target.h"
#include "trace/trace_convert.h"
#include "trace/trace_input.h"
#include "vcd/vcd_recorder.h"

namespace po = boost::program_options;
using namespace pmonsim;

namespace {

struct run_options {
    uncore_config cfg;
    std::vector<std::string> traces;
    std::string script_file, program_file, vcd_file, vcd_signals = "*", vcd_window, report_file;
    uint64_t cycles = 0;  // UCLK cycles; 0: until the traces end
    report_format report = report_format::table;
    bool report_none = false;
    bool strict = false;
    bool check_first = false;
    unsigned parse_threads = trace::chunked_text_rows::default_workers();
    unsigned threads = replayer::auto_threads;
};

const char* kExample =
    "Examples:\n"
    "  pmonsim --trace traces/drs_data_transfer/packets.csv --program traces/drs_data_transfer/program.sh\n"
    "  pmonsim --cpu snb-ep --trace qpi.csv --trace events.csv --script session.sh --report json\n"
    "  pmonsim --trace qpi.csv --program prog.sh --vcd run.vcd --vcd-signals 'socket0.qpi0.*' "
    "--vcd-window 0:2000\n"
    "  pmonsim convert qpi.csv qpi.bin      (text <-> binary trace; see pmonsim convert --help)\n"
    "  pmonsim exec --sockets 2 --trace qpi.csv -- pcm 1 -i=1   (real tools on the model; see pmonsim exec --help)\n"
    "  pmonsim serve --socket /run/pmonsim.sock                 (a long-running model for many clients)\n"
    "  pmonsim sweep runs.json --jobs 2 --out results.jsonl     (many runs from a manifest; see pmonsim sweep --help)\n"
    "Exit status: 0 success, 1 internal error, 2 bad input (or no arguments), 3 diagnostics\n"
    "(or a run that counted nothing) with --strict, 4 a script command failed (as with sh -e).\n";

// What `pmonsim` alone prints (on stderr, with exit status 2).
const char* kNoArguments =
    "Usage: pmonsim [options]        (pmonsim --help lists them all)\n"
    "pmonsim needs something to run:\n"
    "  --trace FILE    a QPI packet or event trace to replay (repeatable)\n"
    "  --program FILE  the register writes that program the counters first (with --trace)\n"
    "  --script FILE   a register-access script instead (wrmsr, rdmsr, setpci, sleep, echo)\n"
    "  --cycles N      how many UCLK cycles to run without a script\n"
    "e.g. pmonsim --trace traces/drs_data_transfer/packets.csv --program traces/drs_data_transfer/program.sh\n"
    "Subcommands: pmonsim convert, pmonsim exec, pmonsim serve, pmonsim sweep (each with --help).\n";

// Reads the whole file (or "-") into a script; parse errors are bad input.
driver::script load_script(const std::string& file, bool only_writes) {
    driver::script_options o;
    o.only_writes = only_writes;
    if (file == "-") return driver::parse_script(std::cin, "<stdin>", o);
    if (const std::string why = trace::unreadable_reason(file); !why.empty())
        throw bad_input(file + ": cannot open: " + why);
    std::ifstream in(file);
    if (!in) throw bad_input(file + ": cannot open");
    return driver::parse_script(in, file, o);
}

// The longest run the model's 64-bit picosecond time allows with room to
// spare (half its range, about 106 days).
constexpr double kMaxRunPs = 9.2e18;

// --cycles: a whole number of UCLK cycles (no sign, no wrap) whose run fits
// the model's time range.
uint64_t parse_cycles(const std::string& s, uint64_t uclk_hz) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
        throw bad_input("--cycles needs a whole number of UCLK cycles, not '" + s + "'");
    errno = 0;
    const unsigned long long v = std::strtoull(s.c_str(), nullptr, 10);
    if (errno == ERANGE || static_cast<double>(v) / static_cast<double>(uclk_hz) * 1e12 >= kMaxRunPs)
        throw bad_input("--cycles " + s + " is beyond the model's time range (about 106 days)");
    return v;
}

void parse_window(const std::string& w, time_ps& start, time_ps& end) {
    const auto colon = w.find(':');
    auto ns = [&](const std::string& s) -> time_ps {
        char* e = nullptr;
        const double v = std::strtod(s.c_str(), &e);
        if (s.empty() || *e || !(v >= 0)) throw bad_input("--vcd-window: '" + w + "' is not START:END in ns");
        if (!(v * 1000.0 < kMaxRunPs)) throw bad_input("--vcd-window: '" + s + "' ns is beyond the model's time range");
        return static_cast<time_ps>(v * 1000.0 + 0.5);
    };
    if (colon == std::string::npos) throw bad_input("--vcd-window: '" + w + "' is not START:END in ns");
    start = ns(w.substr(0, colon));
    end = colon + 1 == w.size() ? ~time_ps{0} : ns(w.substr(colon + 1));
    if (end <= start) throw bad_input("--vcd-window: END must be after START");
}

// A size for people: "812 bytes", "3.4 kB", "1.8 GB" (powers of 1000).
std::string size_text(uint64_t bytes) {
    if (bytes < 1000) return std::to_string(bytes) + " bytes";
    static const char* const units[] = {"kB", "MB", "GB", "TB"};
    double v = static_cast<double>(bytes) / 1000;
    unsigned u = 0;
    while (v >= 999.95 && u + 1 < 4) v /= 1000, ++u;
    char b[32];
    std::snprintf(b, sizeof b, "%.1f %s", v, units[u]);
    return b;
}

std::vector<std::string> split_commas(const std::string& s) {
    std::vector<std::string> out;
    size_t from = 0;
    for (;;) {
        const size_t c = s.find(',', from);
        out.push_back(s.substr(from, c - from));
        if (c == std::string::npos) return out;
        from = c + 1;
    }
}

bool parse_options(int argc, char** argv, run_options& o) {
    std::string cpu = describe(default_cpu).name, report = "table", config, cycles;
    po::options_description opts("pmonsim options");
    opts.add_options()
        ("help,h", "show this help")
        ("version", "print the version (the project's, its git commit, SystemC's) and exit")
        ("config", po::value(&config), "read options from FILE (one 'name = value' per line)")
        ("cpu", po::value(&cpu)->default_value(cpu), ("CPU: " + cpu_names(", ")).c_str());
    add_model_options(opts, o.cfg);
    opts.add_options()
        ("start-frozen", po::bool_switch(&o.cfg.start_frozen), ("start with the global freeze asserted (" + cpus_with_global_freeze() + ")").c_str())
        ("trace", po::value(&o.traces), "QPI packet or event trace (repeatable; - is stdin; pipes work)")
        ("script", po::value(&o.script_file), "register-access script (wrmsr/rdmsr/setpci/sleep/echo)")
        ("program", po::value(&o.program_file), "writes-only script run at time 0 when there is no --script")
        ("cycles", po::value(&cycles), "run length in UCLK cycles without --script (default: until the traces end)")
        ("report", po::value(&report)->default_value(report), "table, csv, json or none (to stdout)")
        ("report-file", po::value(&o.report_file), "write the report to FILE instead of stdout (which keeps the script's output)")
        ("vcd", po::value(&o.vcd_file),
         "write waveforms to FILE (VCD; FST if FILE ends in .fst, made by GTKWave's vcd2fst), and FILE.gtkw for "
         "GTKWave")
        ("vcd-signals", po::value(&o.vcd_signals)->default_value(o.vcd_signals), "comma-separated globs of signal names")
        ("vcd-window", po::value(&o.vcd_window), "START:END in ns (END may be empty)")
        ("strict", po::bool_switch(&o.strict), "exit with status 3 if there is any diagnostic")
        ("check-first", po::bool_switch(&o.check_first),
         "check every trace completely before the simulation starts (the default with --script or --vcd)")
        ("parse-threads", po::value(&o.parse_threads)->default_value(o.parse_threads),
         "threads that parse each text trace of 4 MiB or more, in chunks, during the replay (1: one thread, as "
         "a smaller file; default: the cores there are, at most 4)")
        ("threads", po::value(&o.threads)->default_value(o.threads, "auto"),
         "threads that replay, each reading every trace for the boxes it owns (whole QPI ports, then the boxes "
         "of event rows; 1: one thread; auto: with uncompressed binary traces, the cores there are, at most the "
         "QPI ports plus 2; else 1); the counts are the same whatever the number");
    add_progress_options(opts);  // the replay's status line (progress.h)
    po::variables_map vm;
    // No positional arguments: a stray word is an error, not silently ignored.
    parse_command_line(argc, argv, opts, vm, "pmonsim");
    if (vm.count("config")) {
        const std::string file = vm["config"].as<std::string>();
        if (const std::string why = trace::unreadable_reason(file); !why.empty())
            throw bad_input("--config: cannot open " + file + ": " + why);
        std::ifstream in(file);
        if (!in) throw bad_input("--config: cannot open " + file);
        // Read bounded (a configuration is a few lines; /dev/zero is not one).
        constexpr std::size_t kMaxConfig = 1 << 20;
        std::string text(kMaxConfig + 1, '\0');
        in.read(text.data(), static_cast<std::streamsize>(text.size()));
        text.resize(static_cast<std::size_t>(in.gcount()));
        if (text.size() > kMaxConfig)
            throw bad_input("--config: " + file + " is larger than " + std::to_string(kMaxConfig) + " bytes");
        if (text.find('\0') != std::string::npos)
            throw bad_input("--config: " + file + " holds a NUL byte: not a text file");
        std::istringstream parsed(text);
        po::store(po::parse_config_file(parsed, opts), vm);  // the command line wins
    }
    po::notify(vm);
    if (vm.count("version")) {
        std::cout << version_text("pmonsim");
        return false;
    }
    if (vm.count("help")) {
        std::cout << "Usage: pmonsim [options]\n"
                     "Replays QPI packet and event traces through the Xeon E5-2600 (v2) uncore PMON model,\n"
                     "runs register-access scripts, and reports every counter.\n\n"
                  << opts << "\n" << kExample;
        return false;
    }
    o.cfg.cpu = parse_cpu_option(cpu);
    parse_report_option(report, o.report, o.report_none);
    if (!o.script_file.empty() && !o.program_file.empty())
        throw bad_input("--program is for runs without --script; put the writes in the script");
    if (vm.count("cycles")) o.cycles = parse_cycles(cycles, o.cfg.uclk_hz());
    if (o.parse_threads == 0 || o.parse_threads > trace::chunked_text_rows::max_workers)
        throw bad_input("--parse-threads " + std::to_string(o.parse_threads) + ": 1 to " +
                        std::to_string(trace::chunked_text_rows::max_workers) + " threads");
    if ((o.threads == 0 && !vm["threads"].defaulted()) || o.threads > replayer::max_threads)
        throw bad_input("--threads " + std::to_string(o.threads) + ": 1 to " + std::to_string(replayer::max_threads) +
                        " threads");
    if (!o.script_file.empty() && vm.count("cycles"))
        throw bad_input("--cycles is for runs without --script; use sleep in the script");
    if (vm.count("vcd-window") && o.vcd_file.empty()) throw bad_input("--vcd-window needs --vcd");
    try {
        o.cfg.validate();
    } catch (const std::invalid_argument& e) {
        throw bad_input(e.what());
    }
    return true;
}

// The simulation's one thread: the script, or program-then-run.
class session : public sc_core::sc_module {
public:
    session(sc_core::sc_module_name n, uncore_system& sys, replayer& rep, const run_options& o,
            const driver::script* script, const driver::script* program, std::ostream& out, std::ostream& err)
        : sc_module(n), sys_(sys), rep_(rep), o_(o), script_(script), program_(program), out_(out), err_(err) {
        SC_HAS_PROCESS(session);
        SC_THREAD(run);
    }
    int status = 0;
    std::string error;
    unsigned absent_selections = 0;  // script commands that selected no PCI device

private:
    void run() {
        sim_target t(sys_, [this](time_ps until) { return rep_.feed(until); }, rep_.feed_length());
        try {
            if (script_) {
                status = driver::run_script(*script_, t, out_, err_);
            } else {
                if (program_) status = driver::run_script(*program_, t, out_, err_);
                if (status == 0) run_to_end(t);
            }
        } catch (const std::exception& e) {  // (a bad trace row too: the replayer keeps it)
            error = e.what();
        }
        absent_selections = t.absent_selections();
        out_.flush();
        sc_core::sc_stop();
    }
    void run_to_end(sim_target& t) {
        if (o_.cycles) {
            const time_ps end = clock_domain(o_.cfg.uclk_hz()).cycle_start(o_.cycles);
            if (end > now_ps()) t.advance(end - now_ps());
            return;
        }
        while (const time_ps left = rep_.time_left(now_ps())) t.advance(left);
    }
    uncore_system& sys_;
    replayer& rep_;
    const run_options& o_;
    const driver::script* script_;
    const driver::script* program_;
    std::ostream& out_;
    std::ostream& err_;
};

void quiet_info(const sc_core::sc_report& r, const sc_core::sc_actions& a) {
    // SystemC prints info messages on stdout, which carries the report: drop them.
    if (r.get_severity() == sc_core::SC_INFO) return;
    sc_core::sc_report_handler::default_handler(r, a);
}

}  // namespace

int sc_main(int argc, char** argv) {
    sc_core::sc_report_handler::set_handler(quiet_info);
    run_options o;
    std::unique_ptr<driver::script> script, program;
    try {
        if (!parse_options(argc, argv, o)) return kExitOk;
        if (!o.script_file.empty()) script = std::make_unique<driver::script>(load_script(o.script_file, false));
        if (!o.program_file.empty()) program = std::make_unique<driver::script>(load_script(o.program_file, true));
    } catch (const po::error& e) {
        std::cerr << "pmonsim: " << e.what() << " (see pmonsim --help)\n";
        return kExitBadInput;
    } catch (const std::exception& e) {
        std::cerr << "pmonsim: " << e.what() << "\n";
        return kExitBadInput;
    }
    try {
        uncore_system sys("uncore", o.cfg);
        // Each trace is read once, checked as it is replayed, when nothing of
        // the run shows before its end (the report): no script (its output
        // comes as it runs) and no waveforms. A --program's output waits
        // until the traces are known to be good. A bad row then gives the
        // same message, exit status and (absent) output as checking first.
        const bool check_while_replaying = o.script_file.empty() && o.vcd_file.empty() && !o.check_first;
        std::unique_ptr<replayer> rep;
        try {
            rep = std::make_unique<replayer>(sys, o.traces,
                                             check_while_replaying ? replayer::checking::while_replaying
                                                                   : replayer::checking::before,
                                             o.parse_threads, o.threads);
        } catch (const trace::trace_error& e) {
            std::cerr << "pmonsim: " << e.what() << "\n";
            return kExitBadInput;
        }
        std::unique_ptr<vcd_recorder> vcd;
        if (!o.vcd_file.empty()) {
            vcd_options v;
            v.file = o.vcd_file;
            v.globs = split_commas(o.vcd_signals);
            v.no_match_is_error = true;  // (refused before any file is made)
            // Once, when the dump gets large (PMONSIM_VCD_NOTE_BYTES: another size, for tests).
            if (const char* n = std::getenv("PMONSIM_VCD_NOTE_BYTES")) v.large_bytes = std::strtoull(n, nullptr, 10);
            v.on_large = [file = o.vcd_file](uint64_t bytes) {
                std::cerr << "pmonsim: the waveforms for " << file << " have passed " << size_text(bytes)
                          << " and grow as the run goes on; --vcd-window START:END (ns) or --vcd-signals GLOBS "
                             "record less\n";
            };
            try {
                if (!o.vcd_window.empty()) parse_window(o.vcd_window, v.start, v.end);
            } catch (const bad_input& e) {
                std::cerr << "pmonsim: " << e.what() << "\n";
                return kExitBadInput;
            }
            try {
                vcd = std::make_unique<vcd_recorder>("vcd", sys, v);
            } catch (const vcd_no_signal&) {
                std::cerr << "pmonsim: --vcd-signals '" << o.vcd_signals
                          << "' matches no signal (names look like socket0.qpi0.ctr0.value, socket0.global_freeze)\n";
                return kExitBadInput;
            } catch (const std::exception& e) {  // cannot write the file, empty window, no vcd2fst
                std::cerr << "pmonsim: --vcd: " << e.what() << "\n";
                return kExitBadInput;
            }
        }
        const auto progress = start_progress(*rep, "pmonsim");  // (progress.h)
        std::ostringstream held_out, held_err;  // the program's output, while the traces may be bad
        session s("session", sys, *rep, o, script.get(), program.get(), check_while_replaying ? held_out : std::cout,
                  check_while_replaying ? held_err : std::cerr);
        sc_core::sc_start();
        if (vcd) {
            try {
                vcd->close();
            } catch (const output_error& e) {
                std::cerr << "pmonsim: --vcd: " << e.what() << "\n";
                return kExitInternal;
            }
            std::error_code ec;
            const auto size = std::filesystem::is_regular_file(o.vcd_file, ec)
                                  ? std::filesystem::file_size(o.vcd_file, ec) : vcd->vcd_bytes();
            std::cerr << "pmonsim: wrote " << size_text(ec ? vcd->vcd_bytes() : size) << " of waveforms to "
                      << o.vcd_file;
            if (vcd_file_is_fst(o.vcd_file)) std::cerr << " (FST of " << size_text(vcd->vcd_bytes()) << " of VCD)";
            std::cerr << "\n";
        }
        try {
            rep->finish_checks();
        } catch (const trace::trace_error& e) {
            std::cerr << "pmonsim: " << e.what() << "\n";
            return kExitBadInput;
        }
        std::cout << held_out.str() << std::flush;
        std::cerr << held_err.str() << std::flush;
        if (!s.error.empty()) {
            std::cerr << "pmonsim: " << s.error << "\n";
            return kExitInternal;
        }
        if (!o.report_none) {
            try {
                write_report(sys, o.report, o.report_file);
            } catch (const output_error& e) {
                std::cerr << "pmonsim: the report: " << e.what() << "\n";
                return kExitInternal;
            }
        }
        // A run with input to count that counted nothing because no counter
        // was programmed (issue 15): said on stderr, and an error with --strict.
        bool idle_run = false;
        if ((!o.traces.empty() || o.cycles) && ((!script && !program) || s.absent_selections) &&
            counted_nothing(sys)) {
            idle_run = true;
            if (!script && !program)
                std::cerr << "pmonsim: nothing was programmed (no --program or --script): every counter stayed "
                             "disabled, so the run counted nothing; give the register writes with --program FILE "
                             "(e.g. traces/drs_data_transfer/program.sh)\n";
            else
                std::cerr << "pmonsim: every counter stayed disabled, so the run counted nothing: the "
                          << (script ? "--script" : "--program") << "'s setpci selected devices this machine lacks ("
                          << s.absent_selections << " time(s); see the diagnostics)\n";
        }
        if (s.status != 0) return s.status;
        if (o.strict && (idle_run || !sys.diagnostics().records().empty())) {
            if (sys.diagnostics().records().empty())
                std::cerr << "pmonsim: nothing counted and --strict\n";
            else
                std::cerr << "pmonsim: " << sys.diagnostics().records().size() << " diagnostic(s) and --strict\n";
            return kExitStrict;
        }
    } catch (const std::exception& e) {
        std::cerr << "pmonsim: internal error: " << e.what() << "\n";
        return kExitInternal;
    }
    return kExitOk;
}

// `pmonsim convert IN OUT`: the format OUT's name says (.csv/.txt text, .bin
// binary), else text to binary or binary to text (the input told by content;
// .gz read as is; - for stdin/stdout), checked against the machine the
// options describe. Runs no simulation.
int convert_main(int argc, char** argv) {
    uncore_config cfg;
    std::string cpu = describe(default_cpu).name;
    std::vector<std::string> files;
    unsigned binary_version = 3;
    // Only what the checks use (trace_context_of: CPU, sockets, ports, the
    // two clocks); the files are positional (hidden from --help).
    po::options_description opts("pmonsim convert options");
    opts.add_options()
        ("help,h", "show this help")
        ("version", "print the version and exit")
        ("cpu", po::value(&cpu)->default_value(cpu), "personality the trace is checked against")
        ("sockets", po::value(&cfg.sockets)->default_value(cfg.sockets), "sockets (1 or 2)")
        ("qpi-ports", po::value(&cfg.qpi_ports)->default_value(cfg.qpi_ports), "QPI ports per socket")
        ("uclk-mhz", po::value(&cfg.uclk_mhz)->default_value(cfg.uclk_mhz),
         "UCLK frequency in MHz (times given in cycles)")
        ("qpi-gts", po::value(&cfg.qpi_gts)->default_value(cfg.qpi_gts), "QPI rate in GT/s (QCLK = GT/s / 8)")
        ("binary-version", po::value(&binary_version)->default_value(binary_version),
         "binary packet traces: 3 (compact records, bursts as one) or 1 (fixed 24-byte records)");
    po::options_description hidden;
    hidden.add_options()("files", po::value(&files), "IN OUT");
    po::options_description all;
    all.add(opts).add(hidden);
    po::positional_options_description pos;
    pos.add("files", 2);
    try {
        po::variables_map vm;
        parse_command_line(argc - 1, argv + 1, all, vm, "pmonsim convert", pos);
        po::notify(vm);
        if (vm.count("version")) {
            std::cout << version_text("pmonsim convert");
            return kExitOk;
        }
        if (vm.count("help")) {
            std::cout << "Usage: pmonsim convert [options] IN OUT\n"
                         "Writes the trace IN in the format OUT's name gives: .csv or .txt text, .bin binary\n"
                         "(text to text normalizes, binary to binary checks and rewrites); any other name, or -,\n"
                         "gets text from binary and binary from text. OUT.zst is compressed with zstd, in the\n"
                         "format its name without .zst gives. Every record is checked. gzip and zstd input is\n"
                         "read as is; a .gz OUT is refused. - is stdin/stdout. Binary packet traces are written\n"
                         "in compact records (version 3), a burst of equal packets at a constant spacing as one\n"
                         "record. The binary format is in docs/trace-binary-format.md.\n\n" << opts;
            return kExitOk;
        }
        if (files.size() != 2) throw bad_input("convert needs IN and OUT (see pmonsim convert --help)");
        if (binary_version != 1 && binary_version != 3)
            throw bad_input("--binary-version " + std::to_string(binary_version) +
                            ": convert writes version 3 (compact) or 1 (fixed records)");
        cfg.cpu = parse_cpu_option(cpu);
        cfg.validate();
        trace::convert_trace(files[0], files[1], trace_context_of(cfg),
                             binary_version == 1 ? trace::packet_layout::fixed : trace::packet_layout::compact);
        return kExitOk;
    } catch (const trace::trace_error& e) {
        std::cerr << "pmonsim: " << e.what() << "\n";
    } catch (const po::error& e) {
        std::cerr << "pmonsim convert: " << e.what() << "\n";
    } catch (const std::exception& e) {  // bad_input, invalid_argument
        std::cerr << "pmonsim: " << e.what() << "\n";
    }
    return kExitBadInput;
}

// `pmonsim serve` and `pmonsim exec` are the program pmonsim-serve beside
// this one (one SystemC elaboration per process; serve/ builds on this tool's
// pieces, so the tool does not link it).
int run_serve(char** argv) {
    char self[4096];
    const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
    std::string dir = ".";
    if (n > 0) {
        self[n] = 0;
        dir = std::string(self).substr(0, std::string(self).rfind('/'));
    }
    const std::string serve = dir + "/pmonsim-serve";
    ::execv(serve.c_str(), argv);
    std::cerr << "pmonsim: cannot run " << serve << ": " << std::strerror(errno) << "\n";
    return kExitInternal;
}

// SystemC prints its banner on stdout before sc_main runs; stdout carries the
// report, so switch the banner off first.
int main(int argc, char** argv) {
    if (argc <= 1) {  // (a run of nothing would only report every counter at zero)
        std::cerr << kNoArguments;
        return kExitBadInput;
    }
    if (argc > 1 && std::string(argv[1]) == "convert") return convert_main(argc, argv);
    if (argc > 1 && std::string(argv[1]) == "sweep") { int sweep_main(int, char**); return sweep_main(argc, argv); }
    if (argc > 1 && (std::string(argv[1]) == "serve" || std::string(argv[1]) == "exec")) return run_serve(argv);
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    return sc_core::sc_elab_and_sim(argc, argv);
}
