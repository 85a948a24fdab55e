// pmonsim sweep (sweep.h; docs/sweeps.md).
#include "sweep.h"

#include "version.h"  // testbench/: version_text()

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sched.h>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace pmonsim::sweep {

using nlohmann::json;

namespace {

std::string dump(const json& j) {
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string resolve(const std::string& dir, const std::string& path) {
    if (path.empty() || path[0] == '/' || dir.empty()) return path;
    return dir + "/" + path;
}

std::vector<std::string> string_list(const json& doc, const char* key, bool required) {
    std::vector<std::string> out;
    if (!doc.contains(key)) {
        if (required) throw ManifestError(std::string("missing key '") + key + "' (a list of strings)");
        return out;
    }
    const json& list = doc.at(key);
    if (!list.is_array())
        throw ManifestError(std::string("key '") + key + "': expected a list, got " + list.type_name());
    if (list.empty()) throw ManifestError(std::string("key '") + key + "': the list is empty");
    std::set<std::string> seen;
    for (size_t i = 0; i < list.size(); ++i) {
        const json& e = list[i];
        std::string where = std::string("key '") + key + "', entry " + std::to_string(i);
        if (!e.is_string()) throw ManifestError(where + ": expected a string, got " + dump(e));
        std::string s = e.get<std::string>();
        if (s.empty()) throw ManifestError(where + ": empty string");
        if (!seen.insert(s).second) throw ManifestError(where + " (\"" + s + "\"): listed twice");
        out.push_back(s);
    }
    return out;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

const std::set<std::string> kCpus = {"snb-ep", "ivb-ep", "nhm-ep", "wsm-ep"};

}  // namespace

std::string command_text(const std::vector<std::string>& argv) {
    std::string text;
    for (const auto& a : argv) {
        if (!text.empty()) text += ' ';
        if (!a.empty() && a.find_first_of(" \t\n'\"\\") == std::string::npos) {
            text += a;
            continue;
        }
        text += '\'';
        for (char c : a) text += c == '\'' ? std::string("'\\''") : std::string(1, c);
        text += '\'';
    }
    return text;
}

Manifest parse_manifest(const json& doc, const std::string& dir) {
    if (!doc.is_object()) throw ManifestError(std::string("expected a JSON object, got ") + doc.type_name());
    static const std::set<std::string> known = {"traces", "scripts", "cpus", "options", "expected", "scripts_as", "commands"};
    for (auto it = doc.begin(); it != doc.end(); ++it)
        if (!known.count(it.key()))
            throw ManifestError("unknown key '" + it.key() +
                                "' (known: traces, scripts, commands, cpus, options, expected, scripts_as)");
    Manifest m;
    m.dir = dir;
    m.traces = string_list(doc, "traces", true);
    if (!doc.contains("scripts") && !doc.contains("commands"))
        throw ManifestError("missing key 'scripts' or 'commands' (a list of scripts or of command lines)");
    m.scripts = string_list(doc, "scripts", false);
    m.cpus = string_list(doc, "cpus", true);
    std::vector<std::string> command_texts;
    std::vector<std::vector<std::string>> command_argvs;  // resolved
    if (doc.contains("commands")) {
        const json& list = doc.at("commands");
        if (!list.is_array())
            throw ManifestError(std::string("key 'commands': expected a list, got ") + list.type_name());
        if (list.empty()) throw ManifestError("key 'commands': the list is empty");
        std::set<std::string> seen;
        for (size_t i = 0; i < list.size(); ++i) {
            const json& e = list[i];
            std::string where = "key 'commands', entry " + std::to_string(i);
            std::vector<std::string> argv;
            if (e.is_string()) {
                std::istringstream words(e.get<std::string>());
                for (std::string w; words >> w;) argv.push_back(w);
            } else if (e.is_array()) {
                for (const auto& a : e) {
                    if (!a.is_string())
                        throw ManifestError(where + ": expected a string or a list of strings, got " + dump(e));
                    argv.push_back(a.get<std::string>());
                }
                if (!argv.empty() && argv[0].empty()) throw ManifestError(where + ": empty command name");
            } else {
                throw ManifestError(where + ": expected a string or a list of strings, got " + dump(e));
            }
            if (argv.empty()) throw ManifestError(where + ": empty command line");
            std::string text = command_text(argv);
            where += " (\"" + text + "\")";
            if (!seen.insert(text).second) throw ManifestError(where + ": listed twice");
            // Relative paths naming a file in the manifest's folder are resolved
            // against it; a command name that does not is looked up in PATH.
            std::vector<std::string> resolved = argv;
            for (auto& a : resolved) {
                if (a.empty() || a[0] == '/' || a[0] == '-') continue;
                std::string p = resolve(dir, a);
                struct stat st;
                if (p != a && ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode)) a = p;
            }
            const std::string& exe = resolved[0];
            if (exe.find('/') != std::string::npos) {
                if (::access(exe.c_str(), X_OK) != 0)
                    throw ManifestError(where + ": cannot run " + exe + ": " + std::strerror(errno));
            } else {
                bool found = false;
                const char* path = std::getenv("PATH");
                std::istringstream dirs(path ? path : "/usr/bin:/bin");
                for (std::string d; !found && std::getline(dirs, d, ':');)
                    found = ::access(((d.empty() ? "." : d) + "/" + exe).c_str(), X_OK) == 0;
                if (!found)
                    throw ManifestError(where + ": " + exe + " is neither a file in " + dir + " nor a command in PATH");
            }
            m.commands.push_back(argv);
            command_texts.push_back(text);
            command_argvs.push_back(resolved);
        }
    }
    for (size_t i = 0; i < m.cpus.size(); ++i)
        if (!kCpus.count(m.cpus[i]))
            throw ManifestError("key 'cpus', entry " + std::to_string(i) + " (\"" + m.cpus[i] +
                                "\"): unknown CPU (snb-ep, ivb-ep, nhm-ep, wsm-ep)");
    for (auto* list : {&m.traces, &m.scripts}) {
        const char* key = list == &m.traces ? "traces" : "scripts";
        for (size_t i = 0; i < list->size(); ++i) {
            std::string p = resolve(dir, (*list)[i]);
            if (::access(p.c_str(), R_OK) != 0)
                throw ManifestError(std::string("key '") + key + "', entry " + std::to_string(i) + " (\"" +
                                    (*list)[i] + "\"): cannot read " + p + ": " + std::strerror(errno));
        }
    }
    if (doc.contains("options")) {
        const json& o = doc.at("options");
        if (!o.is_object())
            throw ManifestError(std::string("key 'options': expected an object, got ") + o.type_name());
        static const std::set<std::string> forbidden = {"cpu", "trace", "script", "program", "report",
                                                        "report-file", "config", "vcd", "help", "version",
                                                        "connect"};
        for (auto it = o.begin(); it != o.end(); ++it) {
            std::string where = "key 'options', entry '" + it.key() + "'";
            if (forbidden.count(it.key()))
                throw ManifestError(where + ": set by the sweep itself, not an option of the manifest");
            const json& v = it.value();
            if (v.is_boolean()) {
                if (v.get<bool>()) m.options.emplace_back(it.key(), "");
            } else if (v.is_number_integer() || v.is_number_unsigned() || v.is_number_float()) {
                m.options.emplace_back(it.key(), v.dump());
            } else if (v.is_string()) {
                m.options.emplace_back(it.key(), v.get<std::string>());
            } else {
                throw ManifestError(where + ": expected a number, string or boolean, got " + v.type_name());
            }
        }
    }
    if (doc.contains("scripts_as")) {
        const json& a = doc.at("scripts_as");
        if (!a.is_string() || (a.get<std::string>() != "script" && a.get<std::string>() != "program"))
            throw ManifestError("key 'scripts_as': expected \"script\" (--script) or \"program\" (--program), got " +
                                dump(a));
        m.scripts_as = a.get<std::string>();
    }
    if (doc.contains("expected")) {
        const json& e = doc.at("expected");
        if (!e.is_string() || e.get<std::string>().empty())
            throw ManifestError("key 'expected': expected the path of a golden results file");
        m.expected = resolve(dir, e.get<std::string>());
    }
    for (const auto& cpu : m.cpus)
        for (size_t t = 0; t < m.traces.size(); ++t) {
            for (size_t s = 0; s < m.scripts.size(); ++s) {
                Run r;
                r.cpu = cpu;
                r.trace = m.traces[t];
                r.script = m.scripts[s];
                r.id = cpu + "|" + r.trace + "|" + r.script;
                r.trace_path = resolve(dir, r.trace);
                r.script_path = resolve(dir, r.script);
                m.runs.push_back(r);
            }
            for (size_t c = 0; c < command_texts.size(); ++c) {
                Run r;
                r.cpu = cpu;
                r.trace = m.traces[t];
                r.command = command_texts[c];
                r.id = cpu + "|" + r.trace + "|-- " + r.command;
                r.trace_path = resolve(dir, r.trace);
                r.argv = command_argvs[c];
                m.runs.push_back(r);
            }
        }
    std::sort(m.runs.begin(), m.runs.end(), [](const Run& a, const Run& b) { return a.id < b.id; });
    return m;
}

Manifest load_manifest(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw ManifestError("cannot read " + path + ": " + std::strerror(errno));
    json doc;
    try {
        doc = json::parse(in);
    } catch (const json::parse_error& e) {
        throw ManifestError(std::string("not valid JSON: ") + e.what());
    }
    std::string dir = ".";
    auto slash = path.rfind('/');
    if (slash != std::string::npos) dir = slash == 0 ? "/" : path.substr(0, slash);
    return parse_manifest(doc, dir);
}

std::vector<Run> shard(const std::vector<Run>& runs, unsigned i, unsigned n) {
    std::vector<Run> out;
    for (size_t p = 0; p < runs.size(); ++p)
        if (p % n == i) out.push_back(runs[p]);
    return out;
}

std::string classify(const json& r) {
    if (!r.value("error", json()).is_null() && r.value("exit_status", json()).is_null()) return "error";
    if (!r.value("signal", json()).is_null()) return "error";
    const json& st = r.value("exit_status", json());
    if (!st.is_number_integer()) return "error";
    int s = st.get<int>();
    if (s == 0) return r.value("error", json()).is_null() ? "passed" : "error";
    if (s == 3 || s == 4) return "failed";
    // A command run: the command's own exit status, the model having run (its report read).
    if (r.contains("command") && r.value("model_time_ps", json()).is_number()) return "failed";
    return "error";
}

json comparable(const json& r) {
    json c = r;
    c.erase("wall_s");
    return c;
}

std::vector<json> read_results(const std::string& path, bool must_exist) {
    std::vector<json> out;
    std::ifstream in(path);
    if (!in) {
        if (must_exist) throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
        return out;
    }
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        try {
            json j = json::parse(line);
            if (j.is_object() && j.contains("id") && j["id"].is_string()) out.push_back(std::move(j));
        } catch (const json::parse_error&) {
            // an incomplete last line of a killed sweep
        }
    }
    return out;
}

namespace {

std::string xml_escape(const std::string& s) {
    std::string o;
    for (unsigned char c : s) {
        switch (c) {
        case '&': o += "&amp;"; break;
        case '<': o += "&lt;"; break;
        case '>': o += "&gt;"; break;
        case '"': o += "&quot;"; break;
        case '\'': o += "&apos;"; break;
        default:
            if (c < 0x20 && c != '\n' && c != '\t') o += ' ';
            else o += static_cast<char>(c);
        }
    }
    // invalid UTF-8 would make the file unreadable: go through json's replacement
    std::string checked = json(o).dump(-1, ' ', false, json::error_handler_t::replace);
    return json::parse(checked).get<std::string>();
}

}  // namespace

std::string junit_xml(const std::vector<json>& results, const std::map<std::string, std::string>& differences) {
    size_t failures = 0, errors = 0;
    double total = 0;
    std::ostringstream body;
    for (const auto& r : results) {
        std::string id = r.value("id", "");
        std::string cls = r.contains("missing") ? "error" : classify(r);
        double t = r.value("wall_s", 0.0);
        total += t;
        body << "    <testcase classname=\"pmonsim.sweep." << xml_escape(r.value("cpu", "")) << "\" name=\""
             << xml_escape(id) << "\" time=\"" << t << "\">\n";
        auto diff = differences.find(id);
        std::string err = r.value("error", json()).is_string() ? r["error"].get<std::string>() : "";
        if (cls == "error") {
            ++errors;
            body << "      <error message=\"" << xml_escape(err.substr(0, 200)) << "\">" << xml_escape(err)
                 << "</error>\n";
        } else if (cls == "failed") {
            ++failures;
            body << "      <failure message=\"exit status " << r.value("exit_status", -1) << "\">"
                 << xml_escape(err) << "</failure>\n";
        } else if (diff != differences.end()) {
            ++failures;
            body << "      <failure message=\"differs from the golden result\">" << xml_escape(diff->second)
                 << "</failure>\n";
        }
        if (r.value("output", json()).is_string() && !r["output"].get<std::string>().empty())
            body << "      <system-out>" << xml_escape(r["output"].get<std::string>()) << "</system-out>\n";
        body << "    </testcase>\n";
    }
    std::ostringstream x;
    x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites tests=\"" << results.size() << "\" failures=\"" << failures << "\" errors=\"" << errors
      << "\" time=\"" << total << "\">\n"
      << "  <testsuite name=\"pmonsim sweep\" tests=\"" << results.size() << "\" failures=\"" << failures
      << "\" errors=\"" << errors << "\" time=\"" << total << "\">\n"
      << body.str() << "  </testsuite>\n</testsuites>\n";
    return x.str();
}

namespace {

// ---- running ---------------------------------------------------------------

json counts_of(const json& report) {
    json counts = json::object();
    if (!report.contains("sockets")) return counts;
    for (const auto& s : report["sockets"]) {
        int sock = s.value("socket", 0);
        if (!s.contains("boxes")) continue;
        for (const auto& b : s["boxes"]) {
            std::string box = b.value("box", "?");
            if (!b.contains("counters")) continue;
            for (const auto& c : b["counters"]) {
                if (!c.contains("value") || !c["value"].is_number()) continue;
                if (c["value"].get<double>() == 0) continue;  // zeros are left out
                counts["s" + std::to_string(sock) + "." + box + "." + std::to_string(c.value("counter", 0))] =
                    c["value"];
            }
        }
    }
    return counts;
}

struct Job {
    Run run;
    std::string out, err, rep;
    std::chrono::steady_clock::time_point start;
};

std::string self_exe() {
    if (const char* e = std::getenv("PMONSIM_SWEEP_EXE")) return e;
    char buf[4096];
    ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return "pmonsim";
    buf[n] = 0;
    return buf;
}

// The replay threads of each run when `jobs` run at once: the cores shared
// out, so that runs that each take every core (pmonsim's default for binary
// traces) do not crowd them; 0 (pmonsim's default) for one run at a time or
// when the manifest sets `threads`.
unsigned threads_per_run(const Manifest& m, unsigned jobs) {
    if (jobs <= 1) return 0;
    for (const auto& o : m.options)
        if (o.first == "threads") return 0;
    cpu_set_t set;
    const int cores = ::sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    return std::max(1u, static_cast<unsigned>(std::max(cores, 1)) / jobs);
}

pid_t launch(const std::string& exe, const Manifest& m, Job& job, unsigned threads) {
    std::vector<std::string> args;
    if (job.run.command.empty()) {
        args = {exe,           "--cpu", job.run.cpu,     "--trace",       job.run.trace_path,
                "--" + m.scripts_as,    job.run.script_path, "--report", "json",
                "--report-file", job.rep, "--no-progress"};
        if (threads) args.insert(args.end(), {"--threads", std::to_string(threads)});
    }
    else  // pmonsim exec --cpu C --trace T --report json --report-file R [options] -- ARGV...
        args = {exe, "exec", "--cpu", job.run.cpu, "--trace", job.run.trace_path,
                "--report", "json", "--report-file", job.rep};
    for (const auto& [k, v] : m.options) {
        args.push_back("--" + k);
        if (!v.empty()) args.push_back(v);
    }
    if (!job.run.command.empty()) {
        args.push_back("--");
        args.insert(args.end(), job.run.argv.begin(), job.run.argv.end());
    }
    job.start = std::chrono::steady_clock::now();
    pid_t pid = ::fork();
    if (pid != 0) return pid;
    int o = ::open(job.out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = ::open(job.err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int in = ::open("/dev/null", O_RDONLY);
    if (o < 0 || e < 0 || in < 0) ::_exit(121);
    ::dup2(in, 0);
    ::dup2(o, 1);
    ::dup2(e, 2);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(exe.c_str(), argv.data());
    std::fprintf(stderr, "cannot run %s: %s\n", exe.c_str(), std::strerror(errno));
    ::_exit(127);
}

json finish(const Job& job, int status) {
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - job.start).count();
    json r;
    r["id"] = job.run.id;
    r["cpu"] = job.run.cpu;
    r["trace"] = job.run.trace;
    if (job.run.command.empty()) r["script"] = job.run.script;
    else r["command"] = job.run.command;
    r["exit_status"] = WIFEXITED(status) ? json(WEXITSTATUS(status)) : json();
    r["signal"] = WIFSIGNALED(status) ? json(WTERMSIG(status)) : json();
    r["output"] = read_file(job.out);
    std::string err = read_file(job.err);
    json report;
    try {
        std::string text = read_file(job.rep);
        if (!text.empty()) report = json::parse(text);
    } catch (const json::parse_error&) {
    }
    r["counts"] = report.is_object() ? counts_of(report) : json::object();
    r["diagnostics"] = report.is_object() && report.contains("diagnostics") ? report["diagnostics"] : json::array();
    r["model_time_ps"] = report.is_object() && report.contains("time_ps") ? report["time_ps"] : json();
    r["wall_s"] = wall;
    if (WIFSIGNALED(status))
        r["error"] = std::string("killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
                     strsignal(WTERMSIG(status)) + ")" + (err.empty() ? "" : ": " + err);
    else if (WEXITSTATUS(status) != 0)
        r["error"] = err.empty() ? "exit status " + std::to_string(WEXITSTATUS(status)) : err;
    else if (!report.is_object())
        r["error"] = "no report was written";
    else
        r["error"] = json();
    ::unlink(job.out.c_str());
    ::unlink(job.err.c_str());
    ::unlink(job.rep.c_str());
    return r;
}

void write_atomically(const std::string& path, const std::vector<json>& results) {
    std::string tmp = path + ".tmp." + std::to_string(::getpid());
    {
        std::ofstream o(tmp, std::ios::binary | std::ios::trunc);
        if (!o) throw std::runtime_error("cannot write " + tmp + ": " + std::strerror(errno));
        for (const auto& r : results) o << dump(r) << "\n";
        o.flush();
        if (!o) throw std::runtime_error("cannot write " + tmp + ": " + std::strerror(errno));
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        int e = errno;
        ::unlink(tmp.c_str());
        throw std::runtime_error("cannot rename " + tmp + " to " + path + ": " + std::strerror(e));
    }
}

// ---- summary ---------------------------------------------------------------

struct Summary {
    size_t runs = 0, passed = 0, failed = 0, errors = 0, missing = 0, duplicates = 0, differences = 0;
    bool golden = false;
    std::map<std::string, std::string> diffs;  // id -> what differs
    bool clean() const { return failed == 0 && errors == 0 && missing == 0 && differences == 0; }
};

std::string describe_difference(const json& got, const json& want) {
    std::ostringstream s;
    json a = comparable(got), b = comparable(want);
    for (auto it = b.begin(); it != b.end(); ++it)
        if (!a.contains(it.key()) || a[it.key()] != it.value())
            s << it.key() << ": expected " << dump(it.value()).substr(0, 300) << ", got "
              << (a.contains(it.key()) ? dump(a[it.key()]).substr(0, 300) : "nothing") << "\n";
    return s.str();
}

Summary summarize(const std::vector<json>& results, const std::vector<json>* golden) {
    Summary s;
    std::map<std::string, const json*> gold;
    if (golden) {
        s.golden = true;
        for (const auto& g : *golden) gold[g["id"].get<std::string>()] = &g;
    }
    for (const auto& r : results) {
        if (r.contains("missing")) {
            ++s.missing;
            continue;
        }
        ++s.runs;
        std::string c = classify(r);
        std::string id = r["id"].get<std::string>();
        bool differs = false;
        if (golden) {
            auto g = gold.find(id);
            if (g == gold.end()) {
                s.diffs[id] = "not in the golden results\n";
                differs = true;
            } else if (comparable(r) != comparable(*g->second)) {
                s.diffs[id] = describe_difference(r, *g->second);
                differs = true;
            }
            if (differs) ++s.differences;
        }
        if (c == "passed" && !differs) ++s.passed;
        else if (c == "error") ++s.errors;
        else ++s.failed;
    }
    return s;
}

void print_summary(std::ostream& o, const Summary& s, const std::vector<json>& results) {
    o << "runs         " << s.runs << "\n"
      << "passed       " << s.passed << "\n"
      << "failed       " << s.failed << "\n"
      << "errors       " << s.errors << "\n"
      << "missing      " << s.missing << "\n"
      << "duplicates   " << s.duplicates << "\n"
      << "differences  " << (s.golden ? std::to_string(s.differences) : std::string("- (no golden results)"))
      << "\n";
    size_t shown = 0;
    for (const auto& r : results) {
        std::string id = r["id"].get<std::string>();
        std::string c = r.contains("missing") ? "missing" : classify(r);
        bool d = s.diffs.count(id);
        if (c == "passed" && !d) continue;
        if (++shown > 20) {
            o << "  ...\n";
            break;
        }
        o << "  " << (d && c == "passed" ? "differs" : c) << "  " << id;
        if (!r.contains("missing") && r.value("exit_status", json()).is_number())
            o << "  (exit status " << r["exit_status"] << ")";
        o << "\n";
    }
}

int usage_error(const std::string& msg) {
    std::cerr << "pmonsim sweep: " << msg << "\n(see pmonsim sweep --help)\n";
    return 2;
}

const char* kHelp =
    "Usage: pmonsim sweep MANIFEST [--out FILE] [--shard I/N] [--jobs J] [--resume]\n"
    "       pmonsim sweep --merge FILE... --out FILE [--manifest MANIFEST] [--expected GOLDEN] [--junit FILE]\n"
    "Runs the cross product of a manifest's traces, cpus and scripts (or commands, each\n"
    "run under pmonsim exec), each run a pmonsim process of its own, and writes one JSON\n"
    "line per run (docs/sweeps.md).\n"
    "  --out FILE        results (JSON lines), replaced atomically (default: stdout)\n"
    "  --shard I/N       only the runs at positions p (sorted by id) with p % N == I\n"
    "  --jobs J          J runs at once (default 1)\n"
    "  --resume          keep the runs already in --out (or in FILE.part of a killed sweep)\n"
    "  --merge FILE...   merge result files into --out; duplicates and missing runs reported\n"
    "  --manifest M      (with --merge) the runs to expect, and its golden file\n"
    "  --expected G      compare with golden results G (an earlier sweep's --out)\n"
    "  --junit FILE      JUnit XML, one test case per run\n"
    "  --version         print the version and exit\n"
    "Exit status: 0 every run passed, 2 bad manifest or usage, 3 some run failed, had an\n"
    "error, is missing or differs from the golden results, 1 internal error.\n";

bool parse_uint(const std::string& s, unsigned& v) {
    if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos) return false;
    v = static_cast<unsigned>(std::stoul(s));
    return true;
}

int finish_results(std::vector<json> results, const std::string& out, const std::string& junit,
                   const std::vector<json>* golden, size_t duplicates, std::ostream& summary_to) {
    std::sort(results.begin(), results.end(),
              [](const json& a, const json& b) { return a["id"].get<std::string>() < b["id"].get<std::string>(); });
    Summary s = summarize(results, golden);
    s.duplicates = duplicates;
    std::vector<json> present;
    for (const auto& r : results)
        if (!r.contains("missing")) present.push_back(r);
    if (out.empty() || out == "-") {
        for (const auto& r : present) std::cout << dump(r) << "\n";
        std::cout.flush();
    } else {
        write_atomically(out, present);
    }
    if (!junit.empty()) {
        std::ofstream j(junit + ".tmp");
        j << junit_xml(results, s.diffs);
        j.close();
        if (!j || std::rename((junit + ".tmp").c_str(), junit.c_str()) != 0)
            throw std::runtime_error("cannot write " + junit);
    }
    print_summary(summary_to, s, results);
    return s.clean() && duplicates == 0 ? 0 : 3;
}

}  // namespace

}  // namespace pmonsim::sweep

int sweep_main(int argc, char** argv) {
    using namespace pmonsim::sweep;
    std::string manifest_path, out, junit, expected, merge_manifest;
    std::vector<std::string> merge_files;
    unsigned shard_i = 0, shard_n = 1, jobs = 1;
    bool resume = false, merge = false;
    for (int i = 2; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&](std::string& into) {
            if (i + 1 >= argc) return false;
            into = argv[++i];
            return true;
        };
        if (a == "-h" || a == "--help") {
            std::cout << kHelp;
            return 0;
        } else if (a == "--version") {
            std::cout << pmonsim::version_text("pmonsim sweep");
            return 0;
        } else if (a == "--out") {
            if (!value(out)) return usage_error("--out needs a FILE");
        } else if (a == "--junit") {
            if (!value(junit)) return usage_error("--junit needs a FILE");
        } else if (a == "--expected") {
            if (!value(expected)) return usage_error("--expected needs a FILE");
        } else if (a == "--manifest") {
            if (!value(merge_manifest)) return usage_error("--manifest needs a FILE");
        } else if (a == "--resume") {
            resume = true;
        } else if (a == "--jobs") {
            std::string v;
            if (!value(v) || !parse_uint(v, jobs) || jobs == 0) return usage_error("--jobs needs a number >= 1");
        } else if (a == "--shard") {
            std::string v;
            auto slash = v.npos;
            if (!value(v) || (slash = v.find('/')) == v.npos || !parse_uint(v.substr(0, slash), shard_i) ||
                !parse_uint(v.substr(slash + 1), shard_n) || shard_n == 0 || shard_i >= shard_n)
                return usage_error("--shard needs I/N with 0 <= I < N, got '" + v + "'");
        } else if (a == "--merge") {
            merge = true;
        } else if (!a.empty() && a[0] == '-' && a != "-") {
            return usage_error("unknown option " + a);
        } else if (merge) {
            merge_files.push_back(a);
        } else if (manifest_path.empty()) {
            manifest_path = a;
        } else {
            return usage_error("one MANIFEST only (got '" + manifest_path + "' and '" + a + "')");
        }
    }
    try {
        if (merge) {
            if (!manifest_path.empty()) return usage_error("--merge takes result files, not a MANIFEST");
            if (merge_files.empty()) return usage_error("--merge needs result files");
            if (out.empty()) return usage_error("--merge needs --out FILE");
            Manifest m;
            bool have_manifest = !merge_manifest.empty();
            if (have_manifest) m = load_manifest(merge_manifest);
            if (expected.empty() && have_manifest) expected = m.expected;
            std::map<std::string, json> by_id;
            size_t duplicates = 0;
            for (const auto& f : merge_files) {
                bool exists = ::access(f.c_str(), F_OK) == 0;
                if (!exists) {
                    std::cerr << "pmonsim sweep: " << f << " does not exist (a shard that did not finish?)\n";
                    continue;
                }
                for (auto& r : read_results(f, true)) {
                    std::string id = r["id"].get<std::string>();
                    if (by_id.count(id)) {
                        ++duplicates;
                        std::cerr << "pmonsim sweep: duplicate run " << id << " (in " << f
                                  << (comparable(by_id[id]) == comparable(r) ? ", same result" : ", different result")
                                  << ")\n";
                        continue;
                    }
                    by_id[id] = std::move(r);
                }
            }
            if (have_manifest) {
                for (const auto& run : m.runs)
                    if (!by_id.count(run.id)) {
                        std::cerr << "pmonsim sweep: missing run " << run.id << "\n";
                        by_id[run.id] = json{{"id", run.id}, {"cpu", run.cpu}, {"trace", run.trace},
                                             {"missing", true}, {"error", "no result: its shard did not finish"}};
                        if (run.command.empty()) by_id[run.id]["script"] = run.script;
                        else by_id[run.id]["command"] = run.command;
                    }
            }
            std::vector<json> results;
            for (auto& [id, r] : by_id) results.push_back(std::move(r));
            std::vector<json> golden;
            if (!expected.empty()) golden = read_results(expected, true);
            return finish_results(std::move(results), out, junit, expected.empty() ? nullptr : &golden,
                                  duplicates, std::cout);
        }
        if (manifest_path.empty()) return usage_error("needs a MANIFEST (or --merge FILE...)");
        Manifest m;
        try {
            m = load_manifest(manifest_path);
        } catch (const ManifestError& e) {
            std::cerr << "pmonsim sweep: " << manifest_path << ": " << e.what() << "\n";
            return 2;
        }
        if (resume && (out.empty() || out == "-")) return usage_error("--resume needs --out FILE");
        std::vector<Run> mine = shard(m.runs, shard_i, shard_n);
        std::vector<json> results;
        std::set<std::string> done;
        std::string part = out.empty() || out == "-" ? "" : out + ".part";
        if (resume) {
            std::set<std::string> wanted;
            for (const auto& r : mine) wanted.insert(r.id);
            for (const auto& f : {out, part})
                for (auto& r : read_results(f, false)) {
                    std::string id = r["id"].get<std::string>();
                    if (wanted.count(id) && done.insert(id).second) results.push_back(std::move(r));
                }
        }
        // The runs finished so far, one line each as they end: what --resume
        // finds after a killed sweep (--out itself is only ever replaced whole).
        std::ofstream journal;
        if (!part.empty()) {
            std::vector<json> kept = results;
            write_atomically(part, kept);
            journal.open(part, std::ios::app | std::ios::binary);
        }
        std::vector<Run> todo;
        for (const auto& r : mine)
            if (!done.count(r.id)) todo.push_back(r);
        if (resume) std::cerr << "pmonsim sweep: " << done.size() << " runs kept, " << todo.size() << " to run\n";

        char tmpl[] = "/tmp/pmonsim-sweep.XXXXXX";
        const char* tmpdir = std::getenv("TMPDIR");
        std::string dirtmpl = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/pmonsim-sweep.XXXXXX";
        std::vector<char> dbuf(dirtmpl.begin(), dirtmpl.end());
        dbuf.push_back(0);
        if (!::mkdtemp(dbuf.data()) && !::mkdtemp(tmpl)) throw std::runtime_error("cannot create a temporary folder");
        std::string work = dbuf.data();
        const std::string exe = self_exe();
        const unsigned threads = threads_per_run(m, jobs);
        std::map<pid_t, Job> running;
        size_t next = 0;
        while (next < todo.size() || !running.empty()) {
            while (next < todo.size() && running.size() < jobs) {
                Job job;
                job.run = todo[next];
                std::string base = work + "/" + std::to_string(next);
                job.out = base + ".out";
                job.err = base + ".err";
                job.rep = base + ".json";
                pid_t pid = launch(exe, m, job, threads);
                if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
                running.emplace(pid, job);
                ++next;
            }
            int status = 0;
            pid_t pid = ::waitpid(-1, &status, 0);
            if (pid < 0) {
                if (errno == EINTR) continue;
                throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
            }
            auto it = running.find(pid);
            if (it == running.end()) continue;
            json r = finish(it->second, status);
            running.erase(it);
            if (journal.is_open()) {
                journal << dump(r) << "\n";
                journal.flush();
            }
            results.push_back(std::move(r));
        }
        ::rmdir(work.c_str());
        std::vector<json> golden;
        if (!expected.empty()) m.expected = expected;
        if (!m.expected.empty()) golden = read_results(m.expected, true);
        int rc = finish_results(std::move(results), out, junit, m.expected.empty() ? nullptr : &golden, 0, std::cerr);
        if (journal.is_open()) journal.close();
        if (!part.empty()) ::unlink(part.c_str());
        return rc;
    } catch (const ManifestError& e) {
        std::cerr << "pmonsim sweep: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "pmonsim sweep: " << e.what() << "\n";
        return 1;
    }
}
