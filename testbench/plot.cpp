// Plots of interval measurements with gnuplot (plot.h).
#include "plot.h"

#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "driver/event_spec.h"
#include "driver/metrics.h"
#include "output_file.h"

extern char** environ;

namespace po = boost::program_options;

namespace pmonsim {

namespace {

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool ends_with(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// A string for gnuplot's double quotes (which read backslash escapes: a
// newline stays "\n" on purpose, the rest is taken literally).
std::string quoted(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '\\' || c == '"') out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out + "\"";
}

std::string errno_text(int err) { return std::strerror(err); }

// A private directory for the script, the data and gnuplot's output,
// removed with everything in it.
class temp_dir {
public:
    temp_dir() {
        const char* base = std::getenv("TMPDIR");
        std::string tmpl = std::string(base && *base ? base : "/tmp") + "/pmonsim-plot.XXXXXX";
        if (!::mkdtemp(tmpl.data()))
            throw plot_error("--plot: cannot create a temporary directory " + tmpl + ": " + errno_text(errno));
        path_ = tmpl;
    }
    ~temp_dir() {
        if (DIR* d = ::opendir(path_.c_str())) {
            while (const dirent* e = ::readdir(d))
                if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
                    ::unlink((path_ + "/" + e->d_name).c_str());
            ::closedir(d);
        }
        ::rmdir(path_.c_str());
    }
    std::string file(const std::string& name) const { return path_ + "/" + name; }

private:
    std::string path_;
};

void write_text(const std::string& path, const std::string& text) {
    std::ofstream f(path, std::ios::binary);
    f << text;
    f.flush();
    if (!f) throw plot_error("--plot: cannot write " + path + ": " + errno_text(errno ? errno : EIO));
}

std::string read_text(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

// Runs gnuplot on `script`; its messages go to `messages`. Throws plot_error
// with the last of them when it fails.
void run_gnuplot(const std::string& gnuplot, const std::string& script, const std::string& messages) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, messages.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    std::string arg0 = "gnuplot", arg1 = script;
    char* argv[] = {arg0.data(), arg1.data(), nullptr};
    pid_t pid = 0;
    const int rc = ::posix_spawn(&pid, gnuplot.c_str(), &fa, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) throw plot_error("--plot: cannot run " + gnuplot + ": " + errno_text(rc));
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) throw plot_error("--plot: waiting for gnuplot: " + errno_text(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
    std::string said = read_text(messages);
    while (!said.empty() && (said.back() == '\n' || said.back() == ' ')) said.pop_back();
    if (said.size() > 600) said = "..." + said.substr(said.size() - 600);
    const std::string how = WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                              : "signal " + std::to_string(WTERMSIG(status));
    throw plot_error("--plot: gnuplot failed (" + how + ")" + (said.empty() ? "" : ": " + said));
}

// The unit a time axis spanning `span` seconds reads best in.
void time_unit(double span, double& scale, const char*& name) {
    if (span < 1e-6) scale = 1e9, name = "ns";
    else if (span < 1e-3) scale = 1e6, name = "us";
    else if (span < 1) scale = 1e3, name = "ms";
    else scale = 1, name = "s";
}

}  // namespace

bool rate_plot::format_of(const std::string& file, format& f) {
    const std::string l = lower(file);
    if (ends_with(l, ".svg") && l.size() > 4 && l[l.size() - 5] != '/') {
        f = format::svg;
        return true;
    }
    if (ends_with(l, ".png") && l.size() > 4 && l[l.size() - 5] != '/') {
        f = format::png;
        return true;
    }
    return false;
}

void rate_plot::add(const std::string& unit, const std::string& name, double t_s, double value) {
    for (series& s : series_)
        if (s.unit == unit && s.name == name) {
            s.points.emplace_back(t_s, value);
            return;
        }
    series_.push_back({unit, name, {{t_s, value}}});
}

std::string find_gnuplot() {
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/bin:/bin";
    std::size_t from = 0;
    for (;;) {
        const std::size_t colon = dirs.find(':', from);
        std::string dir = dirs.substr(from, colon == std::string::npos ? std::string::npos : colon - from);
        if (dir.empty()) dir = ".";
        const std::string exe = dir + "/gnuplot";
        struct stat st;
        if (::stat(exe.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(exe.c_str(), X_OK) == 0) return exe;
        if (colon == std::string::npos) return {};
        from = colon + 1;
    }
}

double rate_plot::right_margin(int width) const {
    std::size_t longest = 0;
    for (const series& s : series_) longest = std::max(longest, s.name.size());
    const double legend_px = 7.5 * static_cast<double>(longest) + 90;  // (text at 11 px, the line sample)
    return std::clamp(1 - legend_px / width, 0.45, 0.9);
}

void rate_plot::write(const std::string& file, const labels& l) const {
    format fmt;
    if (!format_of(file, fmt)) throw plot_error("--plot: " + file + ": not a .svg or .png file name");
    if (series_.empty()) throw plot_error("--plot: nothing to draw (the run had no interval)");
    const std::string gnuplot = find_gnuplot();
    if (gnuplot.empty())
        throw plot_error("--plot needs gnuplot, which is not installed (Debian package gnuplot-nox: "
                         "apt-get install gnuplot-nox)");

    // Panels in the order of their first series.
    std::vector<std::string> panels;
    for (const series& s : series_)
        if (std::find(panels.begin(), panels.end(), s.unit) == panels.end()) panels.push_back(s.unit);
    double span = 0;
    for (const series& s : series_)
        for (const auto& p : s.points) span = std::max(span, p.first);
    double scale;
    const char* unit_name;
    time_unit(span, scale, unit_name);

    temp_dir tmp;
    const std::string data = tmp.file("series.dat"), script = tmp.file("plot.gp"),
                      out = tmp.file(fmt == format::svg ? "plot.svg" : "plot.png");
    // The data: one block per series (gnuplot's `index`), in seconds x scale.
    std::string d;
    char line[96];
    for (const series& s : series_) {
        d += "# " + s.name + " [" + s.unit + "]\n";
        for (const auto& p : s.points) {
            std::snprintf(line, sizeof line, "%.10g %.10g\n", p.first * scale, p.second);
            d += line;
        }
        d += "\n\n";
    }
    write_text(data, d);

    const int width = 1000, height = 110 + 300 * static_cast<int>(panels.size());
    std::ostringstream g;
    g << "# pmon-stat --plot: one panel per unit, one series per event (or metric) and socket\n";
    if (fmt == format::svg)
        g << "set terminal svg size " << width << "," << height
          << " dynamic noenhanced font 'sans,11' background '#ffffff'\n";
    else
        g << "set terminal pngcairo size " << width << "," << height
          << " noenhanced font 'sans,10' background '#ffffff'\n";
    g << "set output " << quoted(out) << "\n"
      << "set encoding utf8\n"
      << "set grid\n"
      << "set key outside right top\n"
      // (The same margins in every panel, so that their time axes line up:
      // the right one holds the longest legend.)
      << "set lmargin 11\n"
      << "set rmargin at screen " << right_margin(width) << "\n"
      << "set xrange [0:" << (span > 0 ? span * scale : 1) << "]\n"
      << "set yrange [0:*]\n"
      << "set xlabel " << quoted(l.time_axis + " (" + unit_name + ")") << "\n"
      << "set multiplot layout " << panels.size() << ",1 title " << quoted(l.title) << " font ',13'\n";
    for (const std::string& unit : panels) {
        const bool rate = unit == "events/s";
        g << "set ylabel " << quoted(unit) << "\n"
          << "set format y " << (rate ? "'%.1s%c'" : "'%g'") << "\n"
          << "plot ";
        bool first = true;
        std::size_t i = 0;
        for (const series& s : series_) {
            if (s.unit == unit) {
                const char* style = s.points.size() <= 200 ? "linespoints pt 7 ps 0.5" : "lines";
                g << (first ? "" : ", \\\n     ") << quoted(data) << " index " << i << " using 1:2 with " << style
                  << " lw 1.5 title " << quoted(s.name);
                first = false;
            }
            ++i;
        }
        g << "\n";
    }
    g << "unset multiplot\n";
    write_text(script, g.str());
    run_gnuplot(gnuplot, script, tmp.file("gnuplot.messages"));

    // Into place: a temporary name beside FILE, renamed when complete.
    std::ifstream picture(out, std::ios::binary);
    if (!picture) throw plot_error("--plot: gnuplot wrote no picture (" + out + ")");
    try {
        write_output(file, [&](std::ostream& os) { os << picture.rdbuf(); });
    } catch (const output_error& e) {
        throw plot_error(std::string("--plot: ") + e.what());
    }
}

// ---- pmon-stat --plot -------------------------------------------------------

namespace {

std::string g_file;
bool g_given = false;

// A series of pmon-stat's rows before the sockets are known to be one or many.
struct row_series {
    std::string unit, name;
    unsigned socket;
    std::vector<std::pair<double, double>> points;
};
std::vector<row_series> g_rows;
double g_last_end = 0, g_last_length = 0;  // the last interval's

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return {};
    return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// The value of "key" in one line of pmon-stat's JSON: a string's contents
// or a number's text; false when the key is not there.
bool json_field(const std::string& line, const std::string& key, std::string& out) {
    const std::string k = "\"" + key + "\"";
    std::size_t at = line.find(k);
    if (at == std::string::npos) return false;
    at = line.find_first_not_of(" \t", at + k.size());
    if (at == std::string::npos || line[at] != ':') return false;
    at = line.find_first_not_of(" \t", at + 1);
    if (at == std::string::npos) return false;
    out.clear();
    if (line[at] == '"') {
        for (std::size_t i = at + 1; i < line.size(); ++i) {
            if (line[i] == '\\' && i + 1 < line.size()) {
                out += line[++i];
                continue;
            }
            if (line[i] == '"') return true;
            out += line[i];
        }
        return false;
    }
    const std::size_t end = line.find_first_of(",}", at);
    out = trim(line.substr(at, end == std::string::npos ? std::string::npos : end - at));
    return true;
}

void add_row(const std::string& unit, const std::string& name, unsigned socket, double t, double v) {
    for (row_series& r : g_rows)
        if (r.unit == unit && r.name == name && r.socket == socket) {
            r.points.emplace_back(t, v);
            return;
        }
    g_rows.push_back({unit, name, socket, {{t, v}}});
}

}  // namespace

static void note_plot_file(const std::string& f) {
    g_file = f;
    g_given = true;
}

void add_plot_options(po::options_description& opts) {
    opts.add_options()("plot", po::value<std::string>()->value_name("FILE")->notifier(&note_plot_file),
                       "with -I: draw each event's rate and each metric per interval against time into "
                       "FILE (.svg or .png; needs gnuplot)");
}

bool plot_wanted() { return g_given; }

void check_plot_options(bool interval_given) {
    if (!g_given) return;
    rate_plot::format f;
    if (!rate_plot::format_of(g_file, f))
        throw driver::event_error("--plot " + g_file + ": the file name must end in .svg or .png (the picture's format)");
    if (!interval_given) throw driver::event_error("--plot draws the intervals of -I: give -I MS as well");
    if (find_gnuplot().empty())
        throw plot_error("--plot needs gnuplot, which is not installed (Debian package gnuplot-nox: "
                         "apt-get install gnuplot-nox)");
    try {  // (fail now rather than after a long run: a temporary file beside it, removed)
        staged_output probe(g_file);
    } catch (const output_error& e) {
        throw plot_error(std::string("--plot: ") + e.what());
    }
}

void plot_add_interval(const std::string& json_block, double end_s, double length_s,
                       const std::vector<std::string>& events, const std::vector<std::string>& metrics) {
    // A metric's inputs, as it names them (an event asked by -e too keeps the
    // spelling of -e, which comes first).
    std::vector<std::string> inputs;
    for (const std::string& name : metrics)
        if (const driver::metric* m = driver::find_metric(name))
            for (unsigned port = 0; port < 3; ++port)
                for (const std::string& e : m->events_for_port(port)) inputs.push_back(e);
    auto among = [](const std::vector<std::string>& list, const std::string& e) {
        return std::any_of(list.begin(), list.end(), [&](const std::string& a) { return trim(a) == e; });
    };
    g_last_end = end_s;
    g_last_length = length_s;
    std::istringstream in(json_block);
    std::string line, socket, event, value, unit, metric;
    while (std::getline(in, line)) {
        unsigned sock = 0;
        if (json_field(line, "socket", socket) && socket.size() > 1 && socket[0] == 'S')
            sock = static_cast<unsigned>(std::strtoul(socket.c_str() + 1, nullptr, 10));
        if (json_field(line, "event", event) && json_field(line, "counter-value", value)) {
            const std::string e = trim(event);
            if (among(inputs, e) && !among(events, e)) continue;  // (only a metric's input)
            value.erase(std::remove(value.begin(), value.end(), ','), value.end());  // (thousands separators)
            const double count = std::strtod(value.c_str(), nullptr);
            add_row("events/s", e, sock, end_s, length_s > 0 ? count / length_s : 0);
        } else if (json_field(line, "metric", metric) && json_field(line, "metric-value", value)) {
            if (!json_field(line, "metric-unit", unit)) unit.clear();
            add_row(unit.empty() ? "value" : unit, metric, sock, end_s, std::strtod(value.c_str(), nullptr));
        }
    }
}

void plot_write(const std::vector<std::string>& traces, cpu_model cpu, bool simulated, double interval_ms) {
    if (!g_given) return;
    bool many_sockets = false;
    for (const row_series& r : g_rows) many_sockets |= r.socket != g_rows.front().socket;
    // A last interval under a tenth of -I (the run ended just after a whole
    // one) is left out: its rate rests on a few events and would dwarf the rest.
    const bool drop_last = g_last_length < interval_ms * 1e-4 && g_last_end > g_last_length;
    rate_plot p;
    for (const row_series& r : g_rows) {
        const std::string name = many_sockets ? "S" + std::to_string(r.socket) + " " + r.name : r.name;
        for (const auto& [t, v] : r.points)
            if (!(drop_last && t == g_last_end)) p.add(r.unit, name, t, v);
    }
    rate_plot::labels l;
    const cpu_desc& c = describe(cpu);
    double scale;
    const char* unit;
    time_unit(interval_ms * 1e-3 * 1.0001, scale, unit);
    char every[48];
    std::snprintf(every, sizeof every, "intervals of %g %s", interval_ms * 1e-3 * scale, unit);
    std::string what;
    if (simulated) {
        for (std::size_t i = 0; i < traces.size() && i < 3; ++i) what += (i ? ", " : "") + traces[i];
        if (traces.size() > 3) what += " and " + std::to_string(traces.size() - 3) + " more";
        if (traces.empty()) what = "no trace";
        l.title = "pmon-stat: " + what + "\n" + c.title + ", the model (--cpu " + c.name + "), " + every;
        l.time_axis = "simulated time";
    } else {
        char host[256] = "this machine";
        ::gethostname(host, sizeof host - 1);
        l.title = std::string("pmon-stat on ") + host + "\n" + c.title + " (" + c.name + "), " + every;
        l.time_axis = "time";
    }
    p.write(g_file, l);
}

}  // namespace pmonsim
