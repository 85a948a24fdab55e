// pmonsim sweep: many independent model runs (the cross product of a
// manifest's traces, scripts and CPUs), each in its own process, sharded
// for a cluster and merged again (docs/sweeps.md).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pmonsim::sweep {

// A manifest error: the message names the key and the entry.
struct ManifestError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Run {
    std::string id;      // cpu|trace|script or cpu|trace|-- command, as written in the manifest (stable)
    std::string cpu;
    std::string trace;   // as written in the manifest
    std::string script;  // a script run: the script as written; "" for a command run
    std::string command; // a command run: its text (argv joined, quoted where needed); "" for a script run
    std::string trace_path;   // resolved against the manifest's folder
    std::string script_path;
    std::vector<std::string> argv;  // a command run: argv, paths resolved against the manifest's folder
};

// A command line as one string: the arguments joined by spaces, those holding
// spaces, quotes or backslashes (or empty) in single quotes.
std::string command_text(const std::vector<std::string>& argv);

struct Manifest {
    std::string dir;                                  // the manifest's folder
    std::vector<std::string> traces, scripts, cpus;
    std::vector<std::vector<std::string>> commands;  // as written (argv), run under pmonsim exec
    std::vector<std::pair<std::string, std::string>> options;  // --name value
    std::string expected;                             // golden file (resolved), or ""
    std::string scripts_as = "script";                // "script" (--script) or "program" (--program)
    std::vector<Run> runs;                            // sorted by id
};

Manifest parse_manifest(const nlohmann::json& doc, const std::string& dir);
Manifest load_manifest(const std::string& path);

// Shard i of n (0 <= i < n): the runs at positions p (sorted by id) with p % n == i.
std::vector<Run> shard(const std::vector<Run>& runs, unsigned i, unsigned n);

// "passed", "failed" (a script command failed, diagnostics under --strict, a
// command run's command exited non-zero after the model ran, or a difference
// against the golden result) or "error" (anything else).
std::string classify(const nlohmann::json& result);

// Fields that must be equal between two results of one run (not the wall time).
nlohmann::json comparable(const nlohmann::json& result);

// Reads a JSON-lines results file: complete, parseable lines only.
std::vector<nlohmann::json> read_results(const std::string& path, bool must_exist);

std::string junit_xml(const std::vector<nlohmann::json>& results,
                      const std::map<std::string, std::string>& differences);

}  // namespace pmonsim::sweep

int sweep_main(int argc, char** argv);
