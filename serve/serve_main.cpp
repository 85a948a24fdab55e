// pmonsim-serve: `pmonsim serve` and `pmonsim exec` (the pmonsim command runs
// this program for those two subcommands; one SystemC elaboration per
// process). docs/validating-profilers.md is the user's guide.
//
//   pmonsim serve --socket PATH [model options] [--trace F]... [--log F] [--exit-when-idle]
//   pmonsim exec [model options] [--trace F]... [--log F] [--strict] -- CMD ARGS...
//   pmonsim exec --connect PATH -- CMD ARGS...
#include <ftw.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <systemc>

#include "version.h"
#include "cli_status.h"
#include "model_options.h"
#include "output_file.h"
#include "replay.h"
#include "report.h"
#include "serve/machine_view.h"
#include "serve/server.h"

namespace po = boost::program_options;
using namespace pmonsim;

namespace {

struct options {
    bool exec = false;
    uncore_config cfg;
    std::vector<std::string> traces;
    std::string socket, connect, log_file, report_file, clock = "virtual";
    report_format report = report_format::table;
    bool report_none = false, strict = false, exit_when_idle = false;
    double tsc_mhz = 0, busy_limit_s = 10;
    serve::serve_options serve;
    std::vector<std::string> command;
};

// The directory of this program (for the interposer library beside it).
std::string self_dir() {
    char b[PATH_MAX];
    const ssize_t n = ::readlink("/proc/self/exe", b, sizeof b - 1);
    if (n <= 0) return ".";
    b[n] = 0;
    std::string s(b);
    return s.substr(0, s.rfind('/'));
}

// The interposer: $PMONSIM_PRELOAD, else beside this program (the build
// tree), else where `cmake --install` puts it.
std::string preload_library() {
    if (const char* p = std::getenv("PMONSIM_PRELOAD")) return p;
    const std::string here = self_dir();
    for (const std::string& p : {here + "/libpmonsim-preload.so",
                                 here + "/../" PMONSIM_INSTALL_LIBDIR "/pmonsim/libpmonsim-preload.so"}) {
        char real[PATH_MAX];
        if (::access(p.c_str(), R_OK) == 0 && ::realpath(p.c_str(), real)) return real;
    }
    throw std::runtime_error("cannot find libpmonsim-preload.so beside " + here +
                             " or in the install tree; set PMONSIM_PRELOAD to its path");
}

void parse_clock(const std::string& s, options& o) {
    if (s == "virtual") {
        o.serve.clock = wire::clock_mode::virtual_time;
        return;
    }
    if (s == "wall" || s.rfind("wall=", 0) == 0) {
        o.serve.clock = wire::clock_mode::wall;
        if (s.size() > 4) {
            char* e = nullptr;
            const std::string v = s.substr(5);
            const double scale = std::strtod(v.c_str(), &e);
            if (v.empty() || *e || !(scale > 0 && scale <= 1e6))
                throw bad_input("--clock wall=SCALE: SCALE must be a number in (0, 1e6], not '" + v + "'");
            o.serve.wall_scale = scale;
        }
        return;
    }
    throw bad_input("--clock must be virtual, wall or wall=SCALE, not '" + s + "'");
}

bool parse(int argc, char** argv, options& o) {
    o.exec = std::string(argv[1]) == "exec";
    // Everything after "--" is the command (exec).
    int end = argc;
    for (int i = 2; i < argc; ++i)
        if (std::string(argv[i]) == "--") {
            end = i;
            for (int j = i + 1; j < argc; ++j) o.command.push_back(argv[j]);
            break;
        }
    std::string cpu = describe(default_cpu).name, report = "table";
    po::options_description opts(o.exec ? "pmonsim exec options" : "pmonsim serve options");
    opts.add_options()("help,h", "show this help")
        ("version", "print the version and exit")
        ("cpu", po::value(&cpu)->default_value(cpu), ("CPU: " + cpu_names(", ")).c_str());
    add_model_options(opts, o.cfg);
    opts.add_options()
        ("start-frozen", po::bool_switch(&o.cfg.start_frozen), ("start with the global freeze asserted (" + cpus_with_global_freeze() + ")").c_str())
        ("trace", po::value(&o.traces), "QPI packet or event trace replayed as time passes (repeatable)")
        ("clock", po::value(&o.clock)->default_value(o.clock),
         "virtual (time moves when the software sleeps), wall or wall=SCALE (time follows the wall clock)")
        ("busy-limit", po::value(&o.busy_limit_s)->default_value(o.busy_limit_s),
         "virtual clock: when the software's threads have used this many seconds of CPU time while a sleep "
         "waits and never all blocked, the earliest sleep ends (a thread busy-waiting beside a sleeper)")
        ("tsc-mhz", po::value(&o.tsc_mhz), "TSC frequency (default: the CPU's base frequency)")
        ("log", po::value(&o.log_file), "write every access, diagnostic and note to FILE (- for stderr)")
        ("report", po::value(&report)->default_value(report), "table, csv, json or none, at the end")
        ("report-file", po::value(&o.report_file), "write the report to FILE instead of stdout");
    if (o.exec)
        opts.add_options()
            ("strict", po::bool_switch(&o.strict), "exit with status 3 if the command made any diagnosed mistake")
            ("connect", po::value(&o.connect), "use the server at PATH instead of a private one");
    else
        opts.add_options()
            ("socket", po::value(&o.socket), "the Unix socket to listen at (created 0600)")
            ("exit-when-idle", po::bool_switch(&o.exit_when_idle), "stop when the last client has gone");
    po::variables_map vm;
    parse_command_line(end - 1, argv + 1, opts, vm, o.exec ? "pmonsim exec" : "pmonsim serve");
    po::notify(vm);
    if (vm.count("version")) {
        std::cout << version_text(o.exec ? "pmonsim exec" : "pmonsim serve");
        return false;
    }
    if (vm.count("help")) {
        if (o.exec)
            std::cout << "Usage: pmonsim exec [options] -- COMMAND [ARGS...]\n"
                         "Runs COMMAND against a private simulated machine (its MSRs, PCI configuration space,\n"
                         "CPUs, CPUID and clocks are the model's) and prints the report when it exits.\n\n";
        else
            std::cout << "Usage: pmonsim serve --socket PATH [options]\n"
                         "Serves a simulated machine to `pmonsim exec --connect PATH` clients until SIGINT/SIGTERM.\n\n";
        std::cout << opts << "\nSee docs/validating-profilers.md.\n";
        return false;
    }
    o.cfg.cpu = parse_cpu_option(cpu);
    parse_report_option(report, o.report, o.report_none);
    parse_clock(o.clock, o);
    o.serve.exit_when_idle = o.exit_when_idle;
    if (!(o.busy_limit_s >= 0.001 && o.busy_limit_s <= 86400))
        throw bad_input("--busy-limit must be between 0.001 and 86400 seconds");
    if (!vm["busy-limit"].defaulted() && o.serve.clock != wire::clock_mode::virtual_time)
        throw bad_input("--busy-limit applies to --clock virtual only");
    o.serve.busy_limit_ns = static_cast<uint64_t>(o.busy_limit_s * 1e9 + 0.5);
    if (vm.count("tsc-mhz") && !(o.tsc_mhz >= 100 && o.tsc_mhz <= 10000))
        throw bad_input("--tsc-mhz must be between 100 and 10000");
    if (o.exec && o.command.empty()) throw bad_input("exec needs a command after --");
    if (!o.connect.empty())  // the server joined has its own machine, clock and report
        for (const auto& [name, value] : vm)
            if (name != "connect" && !value.defaulted())
                throw bad_input("--" + name + " does not apply with --connect (the server at " + o.connect +
                                " was started with its own options)");
    if (!o.exec && !o.command.empty()) throw bad_input("serve takes no command; use pmonsim exec -- CMD");
    if (!o.exec && o.socket.empty()) throw bad_input("serve needs --socket PATH");
    try {
        o.cfg.validate();
    } catch (const std::invalid_argument& e) {
        throw bad_input(e.what());
    }
    return true;
}

int remove_entry(const char* path, const struct stat*, int, FTW*) { return ::remove(path); }

// A private directory for the socket and the served files, removed at the end.
struct private_dir {
    std::string path;
    // In $TMPDIR, else in memory (/dev/shm: the tree is a few thousand small
    // files, slow to create on a journalled disk), else /tmp.
    private_dir() {
        const char* tmp = std::getenv("TMPDIR");
        std::string base = tmp && *tmp ? tmp : ::access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" : "/tmp";
        std::string t = base + "/pmonsim.XXXXXX";
        if (!::mkdtemp(t.data())) throw std::runtime_error("cannot make a directory under " + t + ": " + std::strerror(errno));
        path = t;
    }
    ~private_dir() { ::nftw(path.c_str(), remove_entry, 16, FTW_DEPTH | FTW_PHYS); }
};

// The command, with the interposer preloaded and the server's address.
[[noreturn]] void run_command(const options& o, const std::string& socket, const std::string& preload) {
    std::string pre = preload;
    if (const char* old = std::getenv("LD_PRELOAD"); old && *old) pre += std::string(":") + old;
    ::setenv("LD_PRELOAD", pre.c_str(), 1);
    ::setenv("PMONSIM_SOCKET", socket.c_str(), 1);
    ::signal(SIGINT, SIG_DFL);
    std::vector<char*> args;
    for (const auto& a : o.command) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    std::fprintf(stderr, "pmonsim exec: cannot run %s: %s\n", args[0], std::strerror(errno));
    ::_exit(127);
}

int exit_status_of(int wait_status) {
    if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
    if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
    return kExitInternal;
}

// --connect: the command against a server that is already running.
int exec_connected(const options& o) {
    const std::string preload = preload_library();
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) run_command(o, o.connect, preload);
    ::signal(SIGINT, SIG_IGN);
    int st = 0;
    while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    return exit_status_of(st);
}

void quiet_info(const sc_core::sc_report& r, const sc_core::sc_actions& a) {
    if (r.get_severity() == sc_core::SC_INFO) return;  // stdout carries the report
    sc_core::sc_report_handler::default_handler(r, a);
}

// Writes the report (output_file.h: complete or absent); false, with the
// reason on stderr, when it could not be written.
bool report_to_file(uncore_system& sys, const options& o) {
    if (o.report_none) return true;
    try {
        write_report(sys, o.report, o.report_file);
        return true;
    } catch (const output_error& e) {
        std::cerr << "pmonsim: the report: " << e.what() << "\n";
        return false;
    }
}

}  // namespace

int sc_main(int argc, char** argv) {
    sc_core::sc_report_handler::set_handler(quiet_info);
    const char* me = argc > 1 && std::string(argv[1]) == "exec" ? "pmonsim exec" : "pmonsim serve";
    options o;
    try {
        if (argc < 2 || (std::string(argv[1]) != "serve" && std::string(argv[1]) != "exec"))
            throw bad_input("usage: pmonsim serve|exec [options]");
        if (!parse(argc, argv, o)) return kExitOk;
    } catch (const std::exception& e) {
        std::cerr << me << ": " << e.what() << "\n";
        return kExitBadInput;
    }
    if (!o.connect.empty()) {
        try {
            return exec_connected(o);
        } catch (const std::exception& e) {
            std::cerr << me << ": " << e.what() << "\n";
            return kExitInternal;
        }
    }
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> log(nullptr, std::fclose);
    try {
        if (o.log_file == "-") {
            o.serve.log = stderr;
        } else if (!o.log_file.empty()) {
            log.reset(std::fopen(o.log_file.c_str(), "w"));
            if (!log) throw bad_input("--log: cannot write " + o.log_file + ": " + std::strerror(errno));
            std::setvbuf(log.get(), nullptr, _IOLBF, 0);  // a log others may follow while it runs
            o.serve.log = log.get();
        }
    } catch (const std::exception& e) {
        std::cerr << me << ": " << e.what() << "\n";
        return kExitBadInput;
    }
    try {
        private_dir dir;
        const std::string root = dir.path + "/root";
        uncore_system sys("uncore", o.cfg);
        std::unique_ptr<replayer> rep;
        try {
            if (!o.traces.empty()) rep = std::make_unique<replayer>(sys, o.traces, replayer::checking::before);
        } catch (const trace::trace_error& e) {
            std::cerr << me << ": " << e.what() << "\n";
            return kExitBadInput;
        }
        const double tsc_mhz = o.tsc_mhz ? o.tsc_mhz : describe(o.cfg.cpu).identity.base_mhz;
        serve::machine_view view(sys, static_cast<uint64_t>(tsc_mhz * 1e6 + 0.5));
        if (::mkdir(root.c_str(), 0755) != 0) throw std::runtime_error("cannot make " + root);
        view.write_tree(root);
        std::unique_ptr<serve::listener> l;
        try {
            l = std::make_unique<serve::listener>(o.exec ? dir.path + "/socket" : o.socket);
        } catch (const std::exception& e) {
            std::cerr << me << ": " << e.what() << "\n";
            return kExitBadInput;
        }
        o.serve.ignore_sigint = o.exec;
        serve::server srv("server", sys, rep.get(), view, *l, root, o.serve);
        if (o.exec) {
            const std::string preload = preload_library();
            std::cout.flush();
            const pid_t pid = ::fork();
            if (pid < 0) throw std::runtime_error("fork failed");
            if (pid == 0) run_command(o, l->path(), preload);
            srv.watch_child(pid);
        }
        sc_core::sc_start();
        if (!srv.error().empty()) {
            std::cerr << me << ": " << srv.error() << "\n";
            return kExitInternal;
        }
        if (log && (std::fflush(log.get()) != 0 || std::ferror(log.get()))) {
            std::cerr << me << ": cannot write the log " << o.log_file << "\n";
            return kExitInternal;
        }
        if (!report_to_file(sys, o)) return kExitInternal;  // (it said why)
        const int status = o.exec ? exit_status_of(srv.child_wait_status()) : kExitOk;
        if (status != 0) return status;
        if (o.strict && !sys.diagnostics().records().empty()) {
            std::cerr << me << ": " << sys.diagnostics().records().size() << " diagnostic(s) and --strict\n";
            return kExitStrict;
        }
        return kExitOk;
    } catch (const std::exception& e) {
        std::cerr << me << ": " << e.what() << "\n";
        return kExitInternal;
    }
}

int main(int argc, char** argv) {
    ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    return sc_core::sc_elab_and_sim(argc, argv);
}
