// pmon-stat: `perf stat` for the UBox, R2PCIe and QPI PMON boxes, written once
// against the driver layer and run either on the model (--target sim, with
// pmonsim's model options and traces) or on a real SNB-EP/IVB-EP machine
// (--target hw). Output follows perf stat: a block of counts, per interval
// with -I, perf's CSV field order with -x, one JSON object per count with --json.
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <systemc>

#include "version.h"
#include "catalog/catalog.h"
#include "desc/nearest.h"
#include "driver/dry_run_target.h"
#include "driver/hw_target.h"
#include "driver/metrics.h"
#include "driver/session.h"
#include "driver/topology.h"
#include "command_run.h"
#include "model_options.h"
#include "output_file.h"
#include "plot.h"
#include "progress.h"
#include "replay.h"
#include "sc/time_util.h"
#include "sim_target.h"

namespace po = boost::program_options;
using namespace pmonsim;
using namespace pmonsim::driver;

namespace {

constexpr int kExitOk = 0, kExitInternal = 1, kExitBadInput = 2;

struct stat_options {
    std::string target = "sim", hw_root = "/", sep;
    std::vector<std::string> events, metrics, traces;
    double interval_ms = 0, duration_s = -1;
    bool json = false, list = false, dry_run = false;
    bool big_num = true;                 // perf's -B, on by default; --no-big-num
    std::string list_filter;             // --list FILTER
    std::vector<std::string> command;    // after --: counted while it runs
    int socket = -1;
    uncore_config cfg;
    bool cpu_given = false;
    unsigned threads = replayer::auto_threads;  // sim: replay threads (--threads)
};

// "1234567" as "1,234,567" (perf's -B, whatever the locale).
std::string big(uint64_t v, bool on) {
    std::string d = std::to_string(v);
    if (!on) return d;
    for (std::size_t i = d.size(); i > 3; i -= 3) d.insert(i - 3, ",");
    return d;
}

// A time as perf takes it (a plain number in `unit`) or with a unit of its
// own: 100ms, 2us, 1.5s, 500ns. Seconds; throws event_error naming `option`.
double parse_time_text(const std::string& option, const std::string& text, double unit_s) {
    static const std::pair<const char*, double> units[] = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}};
    std::string num = text;
    double scale = unit_s;
    for (const auto& [suffix, value] : units) {
        const std::size_t n = std::strlen(suffix);
        if (num.size() > n && num.compare(num.size() - n, n, suffix) == 0 &&
            !std::isalpha(static_cast<unsigned char>(num[num.size() - n - 1]))) {
            num.resize(num.size() - n);
            scale = value;
            break;
        }
    }
    char* end = nullptr;
    const double v = num.empty() ? 0 : std::strtod(num.c_str(), &end);
    if (num.empty() || end != num.c_str() + num.size() || !std::isfinite(v))
        throw event_error(option + " needs a time: a number (" + (unit_s == 1e-3 ? "milliseconds" : "seconds") +
                          ") or one with a unit (ns, us, ms, s), not " + text);
    return v * scale;
}

// -e takes comma-separated events; a comma inside a perf-style PMU/.../ or
// before a modifier (thresh=2, edge, inv, ...) does not start a new event.
std::vector<std::string> split_events(const std::string& list) {
    std::vector<std::string> out;
    std::string cur;
    int slashes = 0;
    auto flush = [&] {
        if (cur.empty()) return;
        // (A word without a box is a modifier, unless it is Intel's full name of an event.)
        const bool full_name = cur.size() > 4 && (cur.compare(0, 4, "UNC_") == 0 || cur.compare(0, 4, "unc_") == 0);
        if (!out.empty() && cur.find('/') == std::string::npos && !full_name) out.back() += "," + cur;  // a modifier
        else out.push_back(cur);
        cur.clear();
    };
    for (char c : list) {
        // (Nehalem's perf PMU is plain "uncore": its terms have '=', a
        // catalog name "uncore/EVENT.SUB" has none before the first comma.)
        const bool perf = cur.rfind("uncore_", 0) == 0 ||
                          (cur.rfind("uncore/", 0) == 0 && cur.find('=') != std::string::npos);
        if (c == '/') ++slashes;
        if (c == ',' && !(perf && slashes % 2 == 1)) {
            flush();
            slashes = 0;
            continue;
        }
        cur += c;
    }
    flush();
    return out;
}

// --list [FILTER]: every event with its description (perf list's way), the
// CTO_COUNT presets and the metrics; with FILTER only the lines that contain
// it, in any case (their section headings kept).
void list_catalog(std::ostream& os, cpu_model cpu, const std::string& filter) {
    auto lower = [](std::string v) {
        for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return v;
    };
    const std::string want = lower(filter);
    std::vector<std::string> section;
    bool shown_any = false;
    auto heading = [&](const std::string& h) { section = {h}; };
    auto line = [&](const std::string& name, const std::string& what) {
        if (!want.empty() && lower(name).find(want) == std::string::npos && lower(what).find(want) == std::string::npos)
            return;
        for (const std::string& h : section) os << h << "\n";
        section.clear();
        char b[160];
        std::snprintf(b, sizeof b, "  %-46s", name.c_str());
        os << b << (what.empty() ? "" : " " + what) << "\n";
        shown_any = true;
    };
    heading("Events of " + std::string(to_string(cpu)) + " (BOX/EVENT[.SUB][,thresh=N][,edge][,inv]):");
    for (const box_desc& b : describe(cpu).boxes) {
        const std::string box = unit_name(b.kind, 0);  // (a numbered kind: its unit 0)
        if (!b.events) continue;  // (fixed counters below)
        for (const event_def& e : catalog_for(b.kind, cpu).events()) {
            if (e.umasks.empty()) line(box + "/" + e.name, e.description);
            for (const umask_def& u : e.umasks) line(box + "/" + e.name + "." + u.name, e.description);
        }
    }
    for (const box_desc& b : describe(cpu).boxes)
        if (!b.events) line(std::string(to_string(b.kind)) + "/UCLK", "uncore clock cycles (fixed counter)");
    if (describe(cpu).box(box_kind::qpi)) {
        heading("QPI CTO_COUNT filter presets (qpi0/CTO_COUNT:NAME):");
        for (const filter_preset& p : catalog_for(box_kind::qpi, cpu).presets()) line(p.name, "");
        heading("Metrics (-M, per QPI port):");
        for (const metric& m : driver::metrics()) line(m.name, "[" + m.unit + "] " + m.description);
    }
    if (!want.empty() && !shown_any) throw event_error("--list " + filter + ": nothing on " + to_string(cpu) + " matches");
}

struct metric_use {
    const metric* m;
    unsigned port;
    std::vector<std::size_t> events;
};

// Prints one block (a whole run, or one interval) of readings.
void print_block(std::ostream& os, const stat_options& o, pmon_session& s,
                 const std::vector<pmon_session::reading>& rs, const std::vector<metric_use>& uses,
                 double seconds, double at_seconds, bool interval) {
    std::map<std::pair<unsigned, std::size_t>, uint64_t> count;  // (socket, event) -> delta
    for (const auto& r : rs) count[{r.socket, r.event}] = r.delta;
    const uint64_t runtime_ns = static_cast<uint64_t>(std::llround(seconds * 1e9));
    char t[32];
    std::snprintf(t, sizeof t, "%16.9f", at_seconds);
    const bool many_sockets = s.topo().sockets.size() > 1;
    if (!o.sep.empty() || o.json) {
        for (const auto& r : rs) {
            if (o.socket >= 0 && r.socket != unsigned(o.socket)) continue;
            const std::string& ev = s.events()[r.event].text;
            if (o.json) {
                os << "{";
                if (interval) os << "\"interval\" : " << t + std::strspn(t, " ") << ", ";
                os << "\"socket\" : \"S" << r.socket << "\", \"counter-value\" : \"" << r.delta
                   << ".000000\", \"unit\" : \"\", \"event\" : \"" << ev << "\", \"event-runtime\" : " << runtime_ns
                   << ", \"pcnt-running\" : 100.00, \"metric-value\" : \"0.000000\", \"metric-unit\" : \"\"}\n";
            } else {
                if (interval) os << (t + std::strspn(t, " ")) << o.sep;
                os << 'S' << r.socket << o.sep << 1 << o.sep << r.delta << o.sep << o.sep << ev << o.sep
                   << runtime_ns << o.sep << "100.00" << o.sep << o.sep << "\n";
            }
        }
        for (const metric_use& u : uses)
            for (unsigned sock = 0; sock < s.topo().sockets.size(); ++sock) {
                if (o.socket >= 0 && sock != unsigned(o.socket)) continue;
                metric_inputs in{{}, seconds, s.qpi_rate_gts(sock, u.port)};
                for (std::size_t e : u.events) in.counts.push_back(static_cast<double>(count[{sock, e}]));
                char v[32];
                std::snprintf(v, sizeof v, "%.6f", u.m->value(in));
                const std::string name = u.m->name + ".qpi" + std::to_string(u.port);
                if (o.json) {
                    os << "{";
                    if (interval) os << "\"interval\" : " << t + std::strspn(t, " ") << ", ";
                    os << "\"socket\" : \"S" << sock << "\", \"metric-value\" : \"" << v << "\", \"metric-unit\" : \""
                       << u.m->unit << "\", \"metric\" : \"" << name << "\"}\n";
                } else {
                    if (interval) os << (t + std::strspn(t, " ")) << o.sep;
                    os << 'S' << sock << o.sep << 1 << o.sep << o.sep << o.sep << o.sep << runtime_ns << o.sep
                       << "100.00" << o.sep << v << o.sep << u.m->unit << " " << name << "\n";
                }
            }
        return;
    }
    if (!interval) os << "\n Performance counter stats for 'uncore PMON':\n\n";
    for (const auto& r : rs) {
        if (o.socket >= 0 && r.socket != unsigned(o.socket)) continue;
        char line[256];
        std::snprintf(line, sizeof line, "%s%s%15s      %s%s\n", interval ? t : "",
                      many_sockets || o.socket >= 0 ? (" S" + std::to_string(r.socket)).c_str() : "",
                      big(r.delta, o.big_num).c_str(), s.events()[r.event].text.c_str(),
                      r.overflowed ? "   (overflow status was set)" : "");
        os << line;
    }
    for (const metric_use& u : uses)
        for (unsigned sock = 0; sock < s.topo().sockets.size(); ++sock) {
            if (o.socket >= 0 && sock != unsigned(o.socket)) continue;
            metric_inputs in{{}, seconds, s.qpi_rate_gts(sock, u.port)};
            for (std::size_t e : u.events) in.counts.push_back(static_cast<double>(count[{sock, e}]));
            char line[256];
            std::snprintf(line, sizeof line, "%s%s%15.2f %-5s %s.qpi%u\n", interval ? t : "",
                          many_sockets || o.socket >= 0 ? (" S" + std::to_string(sock)).c_str() : "", u.m->value(in),
                          u.m->unit.c_str(), u.m->name.c_str(), u.port);
            os << line;
        }
    if (!interval) {
        char line[64];
        std::snprintf(line, sizeof line, "\n %15.9f seconds time elapsed\n\n", seconds);
        os << line;
    }
}

// The measurement, the same on both targets. Without --duration the run
// lasts `remaining()` more picoseconds (until the trace replay ends; 0: over).
int measure(target& t, cpu_model cpu, const stat_options& o, const std::function<uint64_t()>& remaining,
            std::ostream& os, command_run* cmd = nullptr) {
    topology topo = discover(t, cpu);
    if (o.socket >= 0 && static_cast<size_t>(o.socket) >= topo.sockets.size())
        throw event_error("--socket " + std::to_string(o.socket) + ": the machine has " +
                          std::to_string(topo.sockets.size()) + " socket(s), numbered from 0");
    pmon_session s(t, topo);
    unsigned ports = 0;
    std::map<box_kind, unsigned> units;  // of the other numbered kinds, as discovered
    for (const auto& sk : topo.sockets) {
        for (unsigned p : sk.qpi_ports) ports = std::max(ports, p + 1);
        for (const auto* found : {&sk.pci_units, &sk.msr_units})
            for (const auto& [kind, unit] : *found) units[kind] = std::max(units[kind], unit + 1);
    }
    const auto present = [&](box_kind k) { return units[k]; };
    for (const std::string& e : o.events)
        for (const std::string& one : expand_full_name(e, topo.cpu, ports, present)) s.add(one);
    std::vector<metric_use> uses;
    for (const std::string& name : o.metrics) {
        const metric* m = find_metric(name);
        if (!m) {
            std::vector<std::string> names;
            for (const metric& k : driver::metrics()) names.push_back(k.name);
            std::string all;
            for (const std::string& n : names) all += (all.empty() ? "" : ", ") + n;
            throw event_error("-M " + name + ": no such metric (the metrics: " + all + ")" + did_you_mean(name, names));
        }
        for (unsigned p : topo.sockets[0].qpi_ports) {
            metric_use u{m, p, {}};
            for (const std::string& e : m->events_for_port(p)) u.events.push_back(s.add(e));
            uses.push_back(u);
        }
    }
    if (s.events().empty()) throw event_error("no events: give -e EVENT or -M METRIC (see --list)");
    s.program();
    s.start();
    if (cmd && cmd->given() && !o.dry_run) cmd->start();  // counting runs: now the workload
    if (o.dry_run) {  // (the target printed the writes: setup, start, and stop below)
        s.stop();
        return kExitOk;
    }
    const uint64_t t0 = t.now();
    const uint64_t total_ps = o.duration_s >= 0 ? static_cast<uint64_t>(std::llround(o.duration_s * 1e12)) : 0;
    // Picoseconds left to measure.
    auto left = [&]() -> uint64_t {
        if (o.duration_s < 0) return remaining();
        const uint64_t el = t.now() - t0;
        return el >= total_ps ? 0 : total_ps - el;
    };
    if (o.interval_ms > 0) {
        const uint64_t step = static_cast<uint64_t>(std::llround(o.interval_ms * 1e9));
        if (o.sep.empty() && !o.json) os << "#           time" << (topo.sockets.size() > 1 ? " socket" : "")
                                         << "         counts   events\n";
        while (left() > 0) {
            const uint64_t before = t.now();
            // A whole interval, unless the run ends first: then this is the
            // last one. (What is left can grow while the replay goes on, so
            // it is asked again rather than taken as the interval's length.)
            for (uint64_t el = 0; el < step && left() > 0; el = t.now() - before)
                t.advance(std::min(step - el, left()));
            const auto rs = s.read();
            print_block(os, o, s, rs, uses, (t.now() - before) / 1e12, (t.now() - t0) / 1e12, true);
            if (plot_wanted()) {  // --plot: the interval as --json gives it, kept for the picture (plot.h)
                stat_options j = o;
                j.json = true;
                j.sep.clear();
                std::ostringstream b;
                print_block(b, j, s, rs, uses, (t.now() - before) / 1e12, (t.now() - t0) / 1e12, true);
                plot_add_interval(b.str(), (t.now() - t0) / 1e12, (t.now() - before) / 1e12, o.events, o.metrics);
            }
        }
    } else {
        while (left() > 0) t.advance(left());
        const auto rs = s.read();
        print_block(os, o, s, rs, uses, (t.now() - t0) / 1e12, (t.now() - t0) / 1e12, false);
    }
    s.stop();
    if (plot_wanted()) plot_write(o.traces, cpu, o.target == "sim", o.interval_ms);
    return cmd && cmd->started() ? cmd->wait() : kExitOk;  // perf stat exits with the command's status
}

// What is left of a run counting a command: on real hardware, while it runs
// (checked every 10 ms); on the model, simulated time follows the wall clock
// from its start to its end, so `-- sleep 1` measures one simulated second.
std::function<uint64_t()> while_command_runs(command_run& cmd, const std::function<uint64_t()>& sim_elapsed) {
    constexpr uint64_t kPoll = 10'000'000'000ull;  // 10 ms in ps
    return [&cmd, sim_elapsed]() -> uint64_t {
        if (!cmd.started()) return 1;  // (measure() starts it)
        const bool running = cmd.running();
        if (!sim_elapsed) return running ? kPoll : 0;
        const uint64_t wall = cmd.elapsed_ps(), sim = sim_elapsed();
        if (!running) return wall > sim ? wall - sim : 0;
        if (wall <= sim) ::usleep(10000);  // ahead of the wall clock: let it catch up
        return std::max<uint64_t>(1, wall > sim ? wall - sim : 1);
    };
}

class sim_run : public sc_core::sc_module {
public:
    sim_run(sc_core::sc_module_name n, uncore_system& sys, replayer& rep, const stat_options& o)
        : sc_module(n), sys_(sys), rep_(rep), o_(o) {
        SC_HAS_PROCESS(sim_run);
        SC_THREAD(run);
    }
    int status = kExitInternal;
    std::string error;
    bool bad_input = false;

private:
    void run() {
        try {
            sim_target t(sys_, [this](time_ps until) { return rep_.feed(until); }, rep_.feed_length());
            command_run cmd(o_.command);
            const time_ps t0 = now_ps();
            const std::function<uint64_t()> left =
                cmd.given() ? while_command_runs(cmd, [t0] { return now_ps() - t0; })
                            : std::function<uint64_t()>([this] { return rep_.time_left(now_ps()); });
            if (o_.traces.empty() && !cmd.given() && o_.duration_s < 0)
                std::cerr << "pmon-stat: no --trace: the model sees no traffic, so the counts are 0 "
                             "(give --trace FILE, or --duration T to count the clock)\n";
            status = measure(t, o_.cfg.cpu, o_, left, std::cout, &cmd);
        } catch (const event_error& e) {
            error = e.what();
            bad_input = true;
        } catch (const schedule_error& e) {
            error = e.what();
            bad_input = true;
        } catch (const command_error& e) {
            error = e.what();
            bad_input = true;
        } catch (const std::exception& e) {
            error = e.what();
        }
        sc_core::sc_stop();
    }
    uncore_system& sys_;
    replayer& rep_;
    const stat_options& o_;
};

stat_options g_opts;  // parsed in main, used by sc_main

bool parse(int argc, char** argv, stat_options& o) {
    std::string cpu = describe(default_cpu).name, interval, duration;
    std::vector<std::string> ev, words;
    bool no_big_num = false;
    po::options_description opts("pmon-stat options");
    opts.add_options()
        ("help,h", "show this help")
        ("version", "print the version (the project's, its git commit, SystemC's) and exit")
        ("list", po::bool_switch(&o.list), "list the events (with descriptions), filter presets and metrics; "
                                           "--list FILTER lists those whose line contains FILTER (any case)")
        ("dry-run", po::bool_switch(&o.dry_run),
         "hw: print every write the session would make (wrmsr/setpci lines), make none, and exit")
        ("target", po::value(&o.target)->default_value(o.target), "sim (the model) or hw (this machine)")
        ("hw-root", po::value(&o.hw_root)->default_value(o.hw_root), "hw: root of /dev, /sys and /proc (for tests)")
        ("event,e", po::value(&ev), "events, comma-separated: qpi0/RxL_FLITS_G1.DRS_DATA or uncore_qpi_0/event=0x102,umask=0x08/")
        ("metric,M", po::value(&o.metrics), "derived metric (repeatable; see --list)")
        ("interval,I", po::value(&interval), "print counts every T: milliseconds, or with a unit (100ms, 2us)")
        ("duration", po::value(&duration),
         "how long to measure: seconds, or with a unit (2us, 10ms) (sim default: until the traces end; hw: 1 s)")
        ("all-cpus,a", "system-wide (accepted as perf takes it: uncore counts are per socket anyway)")
        ("big-num,B", "thousands separators in counts (the default, as perf's)")
        ("no-big-num", po::bool_switch(&no_big_num), "no thousands separators")
        ("field-separator,x", po::value(&o.sep), "CSV output with this separator (perf's field order)")
        ("json", po::bool_switch(&o.json), "one JSON object per count")
        ("socket", po::value(&o.socket), "show only this socket")
        ("cpu", po::value(&cpu), ("sim: " + cpu_names(", ") + " (default " + describe(default_cpu).name + "); hw: override the detected CPU").c_str())
        ("trace", po::value(&o.traces), "sim: QPI packet or event trace (repeatable)")
        ("threads", po::value(&o.threads)->default_value(o.threads, "auto"),
         "sim: threads that replay, each reading every trace for the boxes it owns (1: one thread; auto: with "
         "uncompressed binary traces, the cores there are, at most the QPI ports plus 2; else 1); the counts are "
         "the same whatever the number");
    add_model_options(opts, o.cfg, "sim: ");
    add_progress_options(opts);  // sim: the replay's status line (progress.h)
    add_plot_options(opts);      // --plot FILE (plot.h)
    po::options_description hidden;
    hidden.add_options()("word", po::value(&words));
    po::options_description all;
    all.add(opts).add(hidden);
    po::positional_options_description pos;
    pos.add("word", -1);
    // A command to count goes after `--` (as perf's); the words before it are
    // --list's filter, or a mistake said as such below.
    int cut = argc;
    for (int i = 1; i < argc; ++i)
        if (std::string(argv[i]) == "--") {
            cut = i;
            break;
        }
    for (int i = cut + 1; i < argc; ++i) o.command.push_back(argv[i]);
    if (cut < argc && o.command.empty()) throw event_error("nothing after '--': give the command to count while it runs");
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(cut, argv).options(all).positional(pos).run(), vm);
    } catch (const po::unknown_option& e) {  // (not parse_command_line: the hidden words must not be suggested)
        throw event_error(std::string(e.what()) + option_suggestion(e.get_option_name(), opts) + " (see pmon-stat --help)");
    }
    po::notify(vm);
    o.big_num = !no_big_num;
    if (!words.empty()) {
        if (!o.list || words.size() > 1)
            throw event_error("unexpected argument '" + words[o.list ? 1 : 0] +
                              "' (a command to count goes after --: pmon-stat -e EVENT -- CMD; --list takes one FILTER)");
        o.list_filter = words[0];
    }
    if ((o.threads == 0 && !vm["threads"].defaulted()) || o.threads > replayer::max_threads)
        throw event_error("--threads " + std::to_string(o.threads) + ": 1 to " + std::to_string(replayer::max_threads) +
                        " threads");
    if (vm.count("interval")) o.interval_ms = parse_time_text("-I", interval, 1e-3) * 1e3;
    if (vm.count("duration")) o.duration_s = parse_time_text("--duration", duration, 1.0);
    if (!o.command.empty() && vm.count("duration"))
        throw event_error("--duration and a command exclude each other: the command's run is the measurement");
    if (vm.count("version")) {
        std::cout << version_text("pmon-stat");
        return false;
    }
    if (vm.count("help")) {
        std::cout << "Usage: pmon-stat --target sim|hw -e EVENT[,EVENT...] [-M METRIC] [-I MS] [--duration S]\n"
                     "                 [-x SEP | --json] [--socket N]\n\n"
                  << opts
                  << "\nExamples:\n"
                     "  pmon-stat --target sim --trace traces/drs_data_transfer/packets.csv \\\n"
                     "            -e qpi0/RxL_FLITS_G1.DRS_DATA,uncore_qpi_0/event=0x138,match_mc=0xe,mask_mc=0xf,mask_opc=0xc/\n"
                     "  sudo pmon-stat --target hw -M qpi_data_bw -I 1000 --duration 10\n";
        return false;
    }
    for (const std::string& e : ev)
        for (const std::string& one : split_events(e)) o.events.push_back(one);
    if (vm.count("cpu")) {
        const cpu_desc* d = find_cpu(cpu);
        if (!d) throw event_error("--cpu " + unknown_cpu_text(cpu));
        o.cfg.cpu = d->key;
        o.cpu_given = true;
    }
    if (o.target != "sim" && o.target != "hw") throw event_error("--target must be sim or hw, not '" + o.target + "'");
    if (o.dry_run && o.target != "hw") throw event_error("--dry-run is for --target hw (the model has nothing to protect)");
    if (o.target == "hw" && !o.traces.empty()) throw event_error("--trace is for --target sim");
    // Times become picoseconds in 64 bits: finite, at least 1 ps for an
    // interval, and far from overflow (about 106 days of simulated time).
    constexpr double kMaxSeconds = 9.2e6;
    auto shown = [](double v) {
        char b[32];
        std::snprintf(b, sizeof b, "%g", v);
        return std::string(b);
    };
    if (vm.count("interval") && !(o.interval_ms * 1e9 >= 1 && o.interval_ms <= kMaxSeconds * 1e3))
        throw event_error("-I needs between 1 ps and " + std::to_string(static_cast<long long>(kMaxSeconds * 1e3)) +
                          " ms, not " + shown(o.interval_ms) + " ms");
    if (vm.count("duration") && !(o.duration_s >= 0 && o.duration_s <= kMaxSeconds))
        throw event_error("--duration needs between 0 and " + std::to_string(static_cast<long long>(kMaxSeconds)) +
                          " seconds, not " + shown(o.duration_s) + " s");
    if (vm.count("socket") && o.socket < 0) throw event_error("--socket needs a socket number (0, 1, ...)");
    if (!o.sep.empty() && o.json) throw event_error("-x and --json exclude each other");
    o.cfg.validate();
    check_plot_options(vm.count("interval") > 0);
    return true;
}

}  // namespace

int sc_main(int, char**) {
    stat_options& o = g_opts;
    try {
        uncore_system sys("uncore", o.cfg);
        std::unique_ptr<replayer> rep;
        try {
            rep = std::make_unique<replayer>(sys, o.traces, replayer::checking::before,
                                             trace::chunked_text_rows::default_workers(), o.threads);
        } catch (const trace::trace_error& e) {
            std::cerr << "pmon-stat: " << e.what() << "\n";
            return kExitBadInput;
        }
        const auto progress = start_progress(*rep, "pmon-stat");  // (progress.h)
        sim_run run("run", sys, *rep, o);
        sc_core::sc_start();
        if (!run.error.empty()) {
            std::cerr << "pmon-stat: " << run.error << "\n";
            return run.bad_input ? kExitBadInput : kExitInternal;
        }
        return run.status;
    } catch (const std::exception& e) {
        std::cerr << "pmon-stat: internal error: " << e.what() << "\n";
        return kExitInternal;
    }
}

int run_main(int argc, char** argv) {
    stat_options& o = g_opts;
    try {
        if (!parse(argc, argv, o)) return kExitOk;
        if (o.list) {
            cpu_model cpu = o.cfg.cpu;
            if (o.target == "hw" && !o.cpu_given) cpu = require_supported_cpu(o.hw_root);
            list_catalog(std::cout, cpu, o.list_filter);
            return kExitOk;
        }
        if (o.target == "hw") {
            hw_target t(o.hw_root);
            t.check_msr_access();  // fail before touching anything: module loaded, permissions
            const cpu_model cpu = o.cpu_given ? o.cfg.cpu : require_supported_cpu(o.hw_root);
            if (o.duration_s < 0 && o.command.empty()) o.duration_s = 1;
            if (o.dry_run) {
                std::cout << "# pmon-stat --dry-run: the writes of the setup, the start and the stop, not made\n";
                dry_run_target d(t, std::cout);
                return measure(d, cpu, o, [] { return uint64_t{0}; }, std::cout);
            }
            command_run cmd(o.command);
            return measure(t, cpu, o, cmd.given() ? while_command_runs(cmd, nullptr) : [] { return uint64_t{0}; },
                           std::cout, &cmd);
        }
    } catch (const po::error& e) {
        std::cerr << "pmon-stat: " << e.what() << " (see pmon-stat --help)\n";
        return kExitBadInput;
    } catch (const event_error& e) {
        std::cerr << "pmon-stat: " << e.what() << "\n";
        return kExitBadInput;
    } catch (const schedule_error& e) {
        std::cerr << "pmon-stat: " << e.what() << "\n";
        return kExitBadInput;
    } catch (const command_error& e) {
        std::cerr << "pmon-stat: " << e.what() << "\n";
        return kExitBadInput;
    } catch (const std::invalid_argument& e) {
        std::cerr << "pmon-stat: " << e.what() << "\n";
        return kExitBadInput;
    } catch (const std::exception& e) {  // hw_error and session_error say what to do
        std::cerr << "pmon-stat: " << e.what() << "\n";
        return kExitInternal;
    }
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
    return sc_core::sc_elab_and_sim(argc, argv);
}

// What pmon-stat printed must have reached its output (a full disk, a closed
// pipe): otherwise exit 1 saying so, as perf does.
int main(int argc, char** argv) {
    const int rc = run_main(argc, argv);
    try {
        check_stream(std::cout, "standard output");
    } catch (const output_error& e) {
        std::cerr << "pmon-stat: " << e.what() << "\n";
        return rc ? rc : kExitInternal;
    }
    return rc;
}
