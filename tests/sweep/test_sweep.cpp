// Unit tests of pmonsim sweep's parts (sweep/sweep.h): the manifest, the
// shards, the classification of results, the results file, the JUnit XML.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>

#include "sweep/sweep.h"

using nlohmann::json;
using namespace pmonsim::sweep;

namespace {

const std::string kSrc = PMONSIM_SOURCE_DIR;

json good() {
    return json{{"traces", {"traces/drs_data_transfer/packets.csv", "traces/snoop_storm/packets.csv"}},
                {"scripts", {"traces/drs_data_transfer/program.sh", "tests/cli/inputs/echo_only.sh",
                             "tests/cli/inputs/bad_script.sh"}},
                {"cpus", {"snb-ep", "ivb-ep"}}};
}

std::string error_of(const json& doc) {
    try {
        parse_manifest(doc, kSrc);
    } catch (const ManifestError& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST(SweepManifest, CrossProductSortedByStableIds) {
    Manifest m = parse_manifest(good(), kSrc);
    ASSERT_EQ(m.runs.size(), 12u);
    EXPECT_EQ(m.runs.front().id, "ivb-ep|traces/drs_data_transfer/packets.csv|tests/cli/inputs/bad_script.sh");
    EXPECT_EQ(m.runs.front().trace_path, kSrc + "/traces/drs_data_transfer/packets.csv");
    EXPECT_EQ(m.runs.back().id, "snb-ep|traces/snoop_storm/packets.csv|traces/drs_data_transfer/program.sh");
    EXPECT_EQ(m.scripts_as, "script");
    // Reordering the lists changes no id.
    json r = good();
    r["cpus"] = {"ivb-ep", "snb-ep"};
    r["scripts"] = {"tests/cli/inputs/bad_script.sh", "traces/drs_data_transfer/program.sh",
                    "tests/cli/inputs/echo_only.sh"};
    Manifest m2 = parse_manifest(r, kSrc);
    for (size_t i = 0; i < m.runs.size(); ++i) EXPECT_EQ(m.runs[i].id, m2.runs[i].id);
}

TEST(SweepManifest, OptionsBecomeCommandLineOptions) {
    json d = good();
    d["options"] = {{"sockets", 2}, {"start-frozen", true}, {"strict", false}, {"uclk-mhz", "1800"}};
    Manifest m = parse_manifest(d, kSrc);
    std::vector<std::pair<std::string, std::string>> want = {{"sockets", "2"}, {"start-frozen", ""}, {"uclk-mhz", "1800"}};
    EXPECT_EQ(m.options, want);
}

TEST(SweepManifest, ErrorsNameTheKeyAndTheEntry) {
    json d = good();
    d.erase("scripts");
    EXPECT_EQ(error_of(d), "missing key 'scripts' or 'commands' (a list of scripts or of command lines)");
    d = good();
    d["cpus"] = {"ivb-ep", "skx"};
    EXPECT_EQ(error_of(d), "key 'cpus', entry 1 (\"skx\"): unknown CPU (snb-ep, ivb-ep, nhm-ep, wsm-ep)");
    d = good();
    d["traces"][1] = 3;
    EXPECT_EQ(error_of(d), "key 'traces', entry 1: expected a string, got 3");
    d = good();
    d["scripts"][2] = "no/such.sh";
    EXPECT_EQ(error_of(d).rfind("key 'scripts', entry 2 (\"no/such.sh\"): cannot read " + kSrc + "/no/such.sh", 0), 0u);
    d = good();
    d["options"] = {{"sockets", nullptr}};
    EXPECT_EQ(error_of(d), "key 'options', entry 'sockets': expected a number, string or boolean, got null");
    d = good();
    d["expected"] = 5;
    EXPECT_EQ(error_of(d), "key 'expected': expected the path of a golden results file");
    d = good();
    d["commands"] = {"no-such-profiler-anywhere 1"};
    EXPECT_EQ(error_of(d), "key 'commands', entry 0 (\"no-such-profiler-anywhere 1\"): no-such-profiler-anywhere is "
                           "neither a file in " + kSrc + " nor a command in PATH");
    d["commands"] = {json::array({"sh", "-c", "exit 0"}), "sh -c true", 5};
    EXPECT_EQ(error_of(d), "key 'commands', entry 2: expected a string or a list of strings, got 5");
    d["commands"] = {"sh -c true", json::array({"sh", "-c", "true"})};
    EXPECT_EQ(error_of(d), "key 'commands', entry 1 (\"sh -c true\"): listed twice");
}

TEST(SweepManifest, CommandsCrossedWithTracesAndCpus) {
    json d = good();
    d["commands"] = {json::array({"sh", "tests/sweep/ubox_counter.sh"}), "rdmsr  -p 0\t0xc09",
                     json::array({"sh", "-c", "echo 'x y'"})};
    Manifest m = parse_manifest(d, kSrc);
    ASSERT_EQ(m.runs.size(), 2u * 2u * (3u + 3u));  // cpus x traces x (scripts + commands)
    std::set<std::string> ids;
    const pmonsim::sweep::Run* ubox = nullptr;
    for (const auto& r : m.runs) {
        ids.insert(r.id);
        if (r.id == "snb-ep|traces/snoop_storm/packets.csv|-- sh tests/sweep/ubox_counter.sh") ubox = &r;
    }
    EXPECT_EQ(ids.size(), m.runs.size());
    ASSERT_NE(ubox, nullptr);
    EXPECT_EQ(ubox->script, "");
    EXPECT_EQ(ubox->command, "sh tests/sweep/ubox_counter.sh");
    // The argument naming a file of the manifest's folder is resolved; "sh" is not.
    EXPECT_EQ(ubox->argv, (std::vector<std::string>{"sh", kSrc + "/tests/sweep/ubox_counter.sh"}));
    EXPECT_TRUE(ids.count("ivb-ep|traces/drs_data_transfer/packets.csv|-- rdmsr -p 0 0xc09"));  // split on whitespace
    EXPECT_TRUE(ids.count(R"(ivb-ep|traces/drs_data_transfer/packets.csv|-- sh -c 'echo '\''x y'\''')"));
    EXPECT_EQ(command_text({"a", "", "b c"}), "a '' 'b c'");
    // Commands alone are enough.
    d.erase("scripts");
    EXPECT_EQ(parse_manifest(d, kSrc).runs.size(), 12u);
}

TEST(SweepShard, DeterministicBalancedPartition) {
    Manifest m = parse_manifest(good(), kSrc);  // 12 runs
    for (unsigned n : {1u, 2u, 3u, 5u, 12u, 13u}) {
        std::multiset<std::string> all;
        for (unsigned i = 0; i < n; ++i) {
            auto s = shard(m.runs, i, n);
            EXPECT_GE(s.size(), 12u / n) << i << "/" << n;
            EXPECT_LE(s.size(), (12u + n - 1) / n) << i << "/" << n;
            for (const auto& r : s) all.insert(r.id);
            EXPECT_EQ(s.size(), shard(m.runs, i, n).size());
        }
        EXPECT_EQ(all.size(), 12u);
        EXPECT_EQ(std::set<std::string>(all.begin(), all.end()).size(), 12u);  // each run once
    }
    auto s = shard(m.runs, 1, 5);  // positions 1, 6, 11
    ASSERT_EQ(s.size(), 3u);
    EXPECT_EQ(s[1].id, m.runs[6].id);
}

TEST(SweepResults, Classify) {
    EXPECT_EQ(classify(json{{"exit_status", 0}, {"signal", nullptr}, {"error", nullptr}}), "passed");
    EXPECT_EQ(classify(json{{"exit_status", 4}, {"signal", nullptr}, {"error", "x"}}), "failed");
    EXPECT_EQ(classify(json{{"exit_status", 3}, {"signal", nullptr}, {"error", "x"}}), "failed");
    EXPECT_EQ(classify(json{{"exit_status", 2}, {"signal", nullptr}, {"error", "x"}}), "error");
    EXPECT_EQ(classify(json{{"exit_status", nullptr}, {"signal", 11}, {"error", "killed"}}), "error");
    EXPECT_EQ(classify(json{{"exit_status", 0}, {"signal", nullptr}, {"error", "no report was written"}}), "error");
    // A command run: its command's non-zero status fails it once the model ran; without a report it is an error.
    EXPECT_EQ(classify(json{{"command", "sh x"}, {"exit_status", 1}, {"signal", nullptr}, {"error", "x"},
                            {"model_time_ps", 0}}), "failed");
    EXPECT_EQ(classify(json{{"command", "sh x"}, {"exit_status", 2}, {"signal", nullptr}, {"error", "x"},
                            {"model_time_ps", nullptr}}), "error");
    json a = {{"id", "x"}, {"counts", {{"s0.qpi0.0", 800}}}, {"wall_s", 0.1}};
    json b = a;
    b["wall_s"] = 0.2;
    EXPECT_EQ(comparable(a), comparable(b));
    b["counts"]["s0.qpi0.0"] = 801;
    EXPECT_NE(comparable(a), comparable(b));
}

TEST(SweepResults, ReadSkipsAnIncompleteLastLine) {
    std::string path = ::testing::TempDir() + "sweep_results.jsonl";
    {
        std::ofstream o(path);
        o << R"({"id":"a","exit_status":0})" << "\n" << R"({"id":"b","exit_status":4})" << "\n" << R"({"id":"c","exi)";
    }
    auto r = read_results(path, true);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[1]["id"], "b");
    std::remove(path.c_str());
    EXPECT_TRUE(read_results(path, false).empty());
    EXPECT_THROW(read_results(path, true), std::runtime_error);
}

TEST(SweepJunit, CountsAndEscaping) {
    std::vector<json> rs = {
        {{"id", "ivb-ep|a<b>.csv|s.sh"}, {"cpu", "ivb-ep"}, {"exit_status", 0}, {"signal", nullptr},
         {"error", nullptr}, {"output", "0x10 & \"q\"\n"}, {"wall_s", 0.5}},
        {{"id", "ivb-ep|t|bad.sh"}, {"cpu", "ivb-ep"}, {"exit_status", 2}, {"signal", nullptr},
         {"error", "bad.sh:3: wrmsr\x01"}, {"output", ""}, {"wall_s", 0.25}},
        {{"id", "snb-ep|t|f.sh"}, {"cpu", "snb-ep"}, {"exit_status", 4}, {"signal", nullptr},
         {"error", "failed"}, {"output", ""}, {"wall_s", 0.25}},
    };
    std::string x = junit_xml(rs, {{"ivb-ep|a<b>.csv|s.sh", "counts: expected 1, got 2\n"}});
    EXPECT_NE(x.find(R"(<testsuite name="pmonsim sweep" tests="3" failures="2" errors="1" time="1">)"), x.npos) << x;
    EXPECT_NE(x.find(R"(name="ivb-ep|a&lt;b&gt;.csv|s.sh")"), x.npos);
    EXPECT_NE(x.find("<system-out>0x10 &amp; &quot;q&quot;\n</system-out>"), x.npos);
    EXPECT_NE(x.find("<failure message=\"differs from the golden result\">counts: expected 1, got 2\n</failure>"), x.npos);
    EXPECT_NE(x.find("<failure message=\"exit status 4\">failed</failure>"), x.npos);
    EXPECT_NE(x.find("<error message=\"bad.sh:3: wrmsr \">"), x.npos);  // control character replaced
    EXPECT_EQ(x.find('\x01'), x.npos);
}
