// The waveform recorder (testbench/vcd): the VCD text for known scenarios,
// byte for byte where it is short, the globs, the window, the GTKWave save
// file, and that GTKWave's own vcd2fst/fst2vcd read the dump back unchanged.
//
// UCLK is 2 GHz (cycle k starts at 500k ps) and QCLK 1 GHz (cycle c starts at
// 1000c ps). At a cycle start the dump shows the registered state after the
// cycles before it (value, status, compare, overflow) and what the starting
// cycle does (inc, counting, frozen, flit classes).
//
// The dumps are kept in $PMONSIM_VCD_DIR (default: gtest's temporary
// directory), so `scripts/show-waves` can display them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sc/sc_harness.h"
#include "vcd/vcd_recorder.h"

namespace pmonsim {
namespace {

using test::run_script;

constexpr unsigned kBus = 0xFF;
constexpr unsigned kR2Dev = 19, kR2Fn = 1;
constexpr unsigned kQpiDev = 8, kPmon = 2, kFilter = 6;

std::string out_path(const std::string& name) {
    const char* dir = std::getenv("PMONSIM_VCD_DIR");
    std::string d = dir && *dir ? dir : ::testing::TempDir();
    if (!d.empty() && d.back() != '/') d += '/';
    return d + "pmonsim_vcd_" + name;
}

std::string slurp(const std::string& path) {
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

void wait_until_ps(time_ps t) {
    const time_ps now = now_ps();
    if (t > now) sc_core::wait(from_ps(t - now));
}

bool have_tool(const char* tool) {
    return std::system((std::string("command -v ") + tool + " >/dev/null 2>&1").c_str()) == 0;
}

// A VCD read back: per full dotted name its width and its (time, value) changes.
struct dump {
    std::vector<std::string> names;  // header order
    std::map<std::string, unsigned> width;
    std::map<std::string, std::vector<std::pair<uint64_t, uint64_t>>> changes;
    std::vector<uint64_t> times;     // every timestamp, in order
    std::string timescale;
};

dump parse_vcd(const std::string& text) {
    dump d;
    std::istringstream in(text);
    std::vector<std::string> scope;
    std::map<std::string, std::string> name_of;  // id -> name
    std::string tok;
    bool defs = true;
    uint64_t now = 0;
    auto set = [&](const std::string& id, uint64_t v) {
        auto it = name_of.find(id);
        if (it == name_of.end()) throw std::runtime_error("unknown id " + id);
        d.changes[it->second].push_back({now, v});
    };
    while (in >> tok) {
        if (defs) {
            if (tok == "$scope") {
                std::string kind, name;
                in >> kind >> name >> tok;
                scope.push_back(name);
            } else if (tok == "$upscope") {
                in >> tok;
                scope.pop_back();
            } else if (tok == "$timescale") {
                while (in >> tok && tok != "$end") d.timescale += tok;
            } else if (tok == "$var") {
                std::string type, id, name;
                unsigned w;
                in >> type >> w >> id >> name;
                while (in >> tok && tok != "$end") {}  // an optional [hi:lo]
                std::string full;
                for (const auto& s : scope) full += s + ".";
                full += name;
                d.names.push_back(full);
                d.width[full] = w;
                name_of[id] = full;
            } else if (tok == "$enddefinitions") {
                in >> tok;
                defs = false;
            } else if (tok[0] == '$') {
                while (in >> tok && tok != "$end") {}
            }
            continue;
        }
        if (tok[0] == '#') {
            now = std::stoull(tok.substr(1));
            d.times.push_back(now);
        } else if (tok == "$dumpvars" || tok == "$end") {
        } else if (tok[0] == '$') {
            while (in >> tok && tok != "$end") {}
        } else if (tok[0] == 'b' || tok[0] == 'B') {
            std::string id;
            in >> id;
            set(id, std::stoull(tok.substr(1), nullptr, 2));
        } else if (tok[0] == '0' || tok[0] == '1') {
            set(tok.substr(1), tok[0] == '1');
        } else {
            throw std::runtime_error("unexpected VCD token " + tok);
        }
    }
    return d;
}

using changes = std::vector<std::pair<uint64_t, uint64_t>>;

// --- pure helpers ------------------------------------------------------------

TEST(Vcd, GlobsMatchWholeDottedNames) {
    EXPECT_TRUE(vcd_glob_match("*", "socket0.qpi0.ctr0.value"));
    EXPECT_TRUE(vcd_glob_match("socket0.qpi0.*", "socket0.qpi0.ctr0.value"));
    EXPECT_TRUE(vcd_glob_match("*.ctr?.value", "socket1.r2pcie.ctr3.value"));
    EXPECT_TRUE(vcd_glob_match("socket?.pmi", "socket1.pmi"));
    EXPECT_TRUE(vcd_glob_match("*rx*", "socket0.qpi1.rx.drs_data"));
    EXPECT_FALSE(vcd_glob_match("socket0.qpi0", "socket0.qpi0.frozen"));  // whole name
    EXPECT_FALSE(vcd_glob_match("*.ctr?.value", "socket0.qpi0.ctr10.value"));
    EXPECT_FALSE(vcd_glob_match("socket0.qpi?.frozen", "socket0.r2pcie.frozen"));
    EXPECT_FALSE(vcd_glob_match("", "x"));
    EXPECT_TRUE(vcd_glob_match("", ""));
    EXPECT_TRUE(vcd_glob_match("a*b*c", "aXbYbZc"));
    EXPECT_FALSE(vcd_glob_match("a*b*c", "aXbYbZ"));
    EXPECT_EQ(gtkw_path_for("out/run.vcd"), "out/run.vcd.gtkw");
    EXPECT_EQ(gtkw_path_for("dump"), "dump.gtkw");
}

// --- R2PCIe CLOCKTICKS with a box freeze, byte for byte -----------------------

// CLOCKTICKS from cycle 0; frz at 2000 ps (cycle 4), unfrz at 3000 ps (cycle
// 6), a counter write of 100 at 3200 ps (between cycles 6 and 7).
void r2pcie_script(uncore_system& sys) {
    sys.pci_write(kBus, kR2Dev, kR2Fn, 0xD8, 4, 0x00400001);  // CLOCKTICKS, en
    wait_until_ps(2000);
    sys.pci_write(kBus, kR2Dev, kR2Fn, 0xF4, 4, 0x30100);     // frz (bits 17:16 write 1)
    wait_until_ps(3000);
    sys.pci_write(kBus, kR2Dev, kR2Fn, 0xF4, 4, 0x30000);     // unfreeze
    wait_until_ps(3200);
    sys.pci_write(kBus, kR2Dev, kR2Fn, 0xA0, 4, 100);         // counter written mid-cycle
    wait_until_ps(5200);
}

const std::vector<std::string> kR2Globs = {"socket0.global_freeze", "socket0.r2pcie.frozen",
                                           "socket0.r2pcie.box_ctl", "socket0.r2pcie.ctr0.*"};

const char* const kR2Header =
    "$version pmonsim vcd_recorder $end\n"
    "$timescale 1ps $end\n"
    "$scope module socket0 $end\n"
    "$var wire 1 ! global_freeze $end\n"
    "$scope module r2pcie $end\n"
    "$var wire 1 \" frozen $end\n"
    "$var wire 32 # box_ctl $end\n"
    "$scope module ctr0 $end\n"
    "$var wire 44 $ value $end\n"
    "$var wire 8 % inc $end\n"
    "$var wire 1 & compare $end\n"
    "$var wire 1 ' en $end\n"
    "$var wire 1 ( counting $end\n"
    "$var wire 1 ) overflow $end\n"
    "$upscope $end\n"
    "$upscope $end\n"
    "$upscope $end\n"
    "$enddefinitions $end\n";

TEST(Vcd, R2pcieClockticksWithFreezeExactDump) {
    uncore_config cfg;
    uncore_system sys("sys", cfg);
    vcd_options o;
    o.file = out_path("r2pcie.vcd");
    o.globs = kR2Globs;
    vcd_recorder rec("vcd", sys, o);
    run_script([&] { r2pcie_script(sys); });

    const std::string expected = std::string(kR2Header) +
        "#0\n$dumpvars\n0!\n0\"\nb0 #\nb0 $\nb1 %\n0&\n1'\n1(\n0)\n$end\n"
        "#500\nb1 $\n"
        "#1000\nb10 $\n"
        "#1500\nb11 $\n"
        // frz at the start of cycle 4: cycle 4 is frozen, the count so far is 4
        "#2000\n1\"\nb110000000100000000 #\nb100 $\n0(\n"
        "#3000\n0\"\nb110000000000000000 #\n1(\n"
        // cycle 6 counted (5), then the write at 3200 ps: 100 at cycle 7's start
        "#3500\nb1100100 $\n"
        "#4000\nb1100101 $\n"
        "#4500\nb1100110 $\n"
        "#5000\nb1100111 $\n"
        "#5200\n";  // sc_stop: the end of the dump
    EXPECT_EQ(slurp(o.file), expected);
}

TEST(Vcd, WindowClipsAndStartsWithTheValuesAtItsStart) {
    uncore_config cfg;
    uncore_system sys("sys", cfg);
    vcd_options o;
    o.file = out_path("r2pcie_window.vcd");
    o.globs = kR2Globs;
    o.start = 1200;  // inside cycle 2 (1000..1500): cycles 0..2 have counted
    o.end = 3600;
    vcd_recorder rec("vcd", sys, o);
    run_script([&] { r2pcie_script(sys); });

    const std::string expected = std::string(kR2Header) +
        "#1200\n$dumpvars\n0!\n0\"\nb0 #\nb11 $\nb1 %\n0&\n1'\n1(\n0)\n$end\n"
        "#2000\n1\"\nb110000000100000000 #\nb100 $\n0(\n"
        "#3000\n0\"\nb110000000000000000 #\n1(\n"
        "#3500\nb1100100 $\n"
        "#3600\n";  // the window's end; nothing after it
    EXPECT_EQ(slurp(o.file), expected);
}

TEST(Vcd, GtkwaveSaveFileHasOneGroupPerBox) {
    uncore_config cfg;
    uncore_system sys("sys", cfg);
    vcd_options o;
    o.file = out_path("r2pcie_gtkw.vcd");
    o.globs = kR2Globs;
    vcd_recorder rec("vcd", sys, o);
    EXPECT_EQ(rec.gtkw_file(), out_path("r2pcie_gtkw.vcd.gtkw"));
    run_script([&] { r2pcie_script(sys); });

    const std::string g = slurp(rec.gtkw_file());
    const std::string abs_vcd = std::filesystem::absolute(o.file).lexically_normal().string();
    const std::string abs_gtkw = std::filesystem::absolute(rec.gtkw_file()).lexically_normal().string();
    const std::string head =
        "[*] pmonsim vcd_recorder: one group per box\n"
        "[dumpfile] \"" + abs_vcd + "\"\n"
        "[savefile] \"" + abs_gtkw + "\"\n"
        "[timestart] 0\n"
        "[size] 1600 480\n"  // 9 signals in 2 groups: the smallest window
        "[pos] 0 0\n";
    ASSERT_EQ(g.substr(0, head.size()), head);
    // The zoom line: 2^-zoom ps per pixel fits 5200 ps into the wave pane.
    std::istringstream rest(g.substr(head.size()));
    std::string zoom_line;
    std::getline(rest, zoom_line);
    ASSERT_EQ(zoom_line[0], '*');
    std::istringstream z(zoom_line.substr(1));
    double zoom;
    z >> zoom;
    EXPECT_NEAR(zoom, -std::log2(5200.0 / (1600 - 220 - 330 - 50)), 1e-5);
    int markers = 0;
    for (long long m; z >> m; ++markers) EXPECT_EQ(m, -1);
    EXPECT_EQ(markers, 27);
    std::string tail((std::istreambuf_iterator<char>(rest)), std::istreambuf_iterator<char>());
    EXPECT_EQ(tail,
              "[sst_width] 220\n[signals_width] 330\n[sst_expanded] 1\n[sst_vpaned_height] 300\n"
              "@800200\n-socket0\n"
              "@28\nsocket0.global_freeze\n"
              "@1000200\n-socket0\n"
              "@800200\n-socket0.r2pcie\n"
              "@28\nsocket0.r2pcie.frozen\n"
              "@22\nsocket0.r2pcie.box_ctl[31:0]\n"
              "@24\nsocket0.r2pcie.ctr0.value[43:0]\n"
              "socket0.r2pcie.ctr0.inc[7:0]\n"
              "@28\nsocket0.r2pcie.ctr0.compare\n"
              "socket0.r2pcie.ctr0.en\n"
              "socket0.r2pcie.ctr0.counting\n"
              "socket0.r2pcie.ctr0.overflow\n"
              "@1000200\n-socket0.r2pcie\n"
              "[pattern_trace] 1\n[pattern_trace] 0\n");
}

// --- names and globs ------------------------------------------------------------

TEST(Vcd, NamesAreDottedIdentifiersAndOnlyGlobbedOnesAreRecorded) {
    uncore_config cfg;
    cfg.cpu = cpu_model::snb_ep;
    cfg.sockets = 2;
    uncore_system sys("sys", cfg);
    vcd_options o;
    o.file = out_path("names.vcd");
    o.globs = {"socket1.*.ctr?.value", "*.rx.filter_match", "socket0.pmi"};
    vcd_recorder rec("vcd", sys, o);
    run_script([] { test::wait_ns(3); });

    const std::regex well_formed("[A-Za-z0-9_]+(\\.[A-Za-z0-9_]+)*");
    const auto& all = rec.available_signals();
    std::set<std::string> unique(all.begin(), all.end());
    EXPECT_EQ(unique.size(), all.size());
    for (const auto& n : all) EXPECT_TRUE(std::regex_match(n, well_formed)) << n;
    for (const char* n : {"socket0.global_freeze", "socket1.pmi", "socket0.ubox.frozen",
                          "socket0.ubox_fixed.ctr0.value",
                          "socket1.r2pcie.box_ctl", "socket1.qpi1.ctr3.overflow",
                          "socket1.qpi1.rx.filter_match", "socket0.qpi0.tx.ncs",
                          "socket0.qpi0.rx.idle", "socket0.qpi0.ctr2.compare"})
        EXPECT_EQ(unique.count(n), 1u) << n;
    for (const char* n : {"socket0.ubox.box_ctl", "socket0.ubox.status",  // none on SNB-EP
                          "socket0.ubox_fixed.status",
                          "socket0.qpi0.tx.filter_match", "socket0.qpi2.frozen"})
        EXPECT_EQ(unique.count(n), 0u) << n;

    std::vector<std::string> want;
    for (const auto& n : all)
        for (const auto& g : o.globs)
            if (vcd_glob_match(g, n)) {
                want.push_back(n);
                break;
            }
    EXPECT_EQ(rec.recorded_signals(), want);
    const std::vector<std::string> expected_first = {
        "socket0.pmi", "socket0.qpi0.rx.filter_match", "socket0.qpi1.rx.filter_match",
        "socket1.ubox.ctr0.value", "socket1.ubox.ctr1.value", "socket1.ubox_fixed.ctr0.value"};
    ASSERT_GE(want.size(), expected_first.size());
    EXPECT_EQ(std::vector<std::string>(want.begin(), want.begin() + 6), expected_first);

    const dump d = parse_vcd(slurp(o.file));
    EXPECT_EQ(d.timescale, "1ps");
    EXPECT_EQ(d.names, want);
    EXPECT_EQ(d.width.at("socket1.qpi0.ctr0.value"), 48u);
    EXPECT_EQ(d.width.at("socket1.r2pcie.ctr0.value"), 44u);
    EXPECT_EQ(d.width.at("socket0.pmi"), 32u);
    EXPECT_EQ(d.width.at("socket0.qpi1.rx.filter_match"), 8u);
}

TEST(Vcd, NoMatchingSignalGivesAnEmptyButValidDump) {
    uncore_config cfg;
    uncore_system sys("sys", cfg);
    vcd_options o;
    o.file = out_path("empty.vcd");
    o.globs = {"socket7.*"};
    vcd_recorder rec("vcd", sys, o);
    run_script([] { test::wait_ns(3); });
    EXPECT_TRUE(rec.recorded_signals().empty());
    EXPECT_EQ(slurp(o.file), "$version pmonsim vcd_recorder $end\n$timescale 1ps $end\n"
                             "$enddefinitions $end\n");
}

TEST(Vcd, OneRecorderPerSimulation) {
    uncore_config cfg;
    uncore_system sys("sys", cfg);
    vcd_options o;
    o.file = out_path("first.vcd");
    vcd_recorder rec("vcd", sys, o);
    o.file = out_path("second.vcd");
    EXPECT_THROW(vcd_recorder("vcd2", sys, o), std::logic_error);
}

TEST(Vcd, RejectsAnEmptyWindow) {
    uncore_config cfg;
    uncore_system sys("sys", cfg);
    vcd_options o;
    o.file = out_path("bad.vcd");
    o.start = 5000;
    o.end = 5000;
    EXPECT_THROW(vcd_recorder("vcd", sys, o), std::invalid_argument);
}

// --- QPI packets ------------------------------------------------------------------

// One DRS data packet (1 header + 8 data flits) received with its header ready
// in QCLK cycle 2: slots 4..12, i.e. cycle 2 header + 1 data flit, cycles 3-5
// two data flits, cycle 6 one data flit and one idle. The filter matches DRS
// data (DRS.AnyDataC); counter 0 counts RxL_FLITS_G1.DRS_DATA, counter 1
// CTO_COUNT.
void qpi_scenario(uncore_system& sys) {
    run_script([&] {
        sys.pci_write(kBus, kQpiDev, kFilter, 0x228, 4, 0x1C00);  // MATCH0: MC = DRS
        sys.pci_write(kBus, kQpiDev, kFilter, 0x238, 4, 0x1F80);  // MASK0
        sys.pci_write(kBus, kQpiDev, kPmon, 0xD8, 4, 0x00600802);  // RxL_FLITS_G1.DRS_DATA
        sys.pci_write(kBus, kQpiDev, kPmon, 0xDC, 4, 0x00600038);  // CTO_COUNT
        qpi_packet p;
        p.mc = qpi_mc::drs;
        p.opc = 0;
        p.rds = 1;
        EXPECT_EQ(sys.socket(0).box("qpi0")->post_packet(qpi_dir::rx, 2, p), 2u);
        wait_until_ps(9500);
    });
}

const std::vector<std::string> kQpiGlobs = {"socket0.qpi0.rx.*", "socket0.qpi0.ctr0.value",
                                            "socket0.qpi0.ctr0.inc", "socket0.qpi0.ctr1.value"};

TEST(Vcd, QpiFlitClassesAndFilterMatchPerQclkCycle) {
    uncore_config cfg;
    uncore_system sys("sys", cfg);
    vcd_options o;
    o.file = out_path("qpi.vcd");
    o.globs = kQpiGlobs;
    vcd_recorder rec("vcd", sys, o);
    qpi_scenario(sys);

    const std::string text = slurp(o.file);
    const dump d = parse_vcd(text);
    const std::vector<std::string> names = {
        "socket0.qpi0.ctr0.value", "socket0.qpi0.ctr0.inc", "socket0.qpi0.ctr1.value",
        "socket0.qpi0.rx.idle", "socket0.qpi0.rx.data", "socket0.qpi0.rx.non_data",
        "socket0.qpi0.rx.snp", "socket0.qpi0.rx.hom_req", "socket0.qpi0.rx.hom_nonreq",
        "socket0.qpi0.rx.drs_data", "socket0.qpi0.rx.drs_nondata", "socket0.qpi0.rx.ndr_ad",
        "socket0.qpi0.rx.ndr_ak", "socket0.qpi0.rx.ncb_data", "socket0.qpi0.rx.ncb_nondata",
        "socket0.qpi0.rx.ncs", "socket0.qpi0.rx.filter_match"};
    EXPECT_EQ(d.names, names);
    // Only QCLK instants, each written only when something changed, then the end.
    EXPECT_EQ(d.times, (std::vector<uint64_t>{0, 2000, 3000, 4000, 5000, 6000, 7000, 9500}));

    const changes data = {{0, 0}, {2000, 1}, {3000, 2}, {6000, 1}, {7000, 0}};
    EXPECT_EQ(d.changes.at("socket0.qpi0.rx.idle"),
              (changes{{0, 2}, {2000, 0}, {6000, 1}, {7000, 2}}));
    EXPECT_EQ(d.changes.at("socket0.qpi0.rx.data"), data);
    EXPECT_EQ(d.changes.at("socket0.qpi0.rx.drs_data"), data);
    EXPECT_EQ(d.changes.at("socket0.qpi0.rx.non_data"), (changes{{0, 0}, {2000, 1}, {3000, 0}}));
    EXPECT_EQ(d.changes.at("socket0.qpi0.rx.drs_nondata"), (changes{{0, 0}, {2000, 1}, {3000, 0}}));
    EXPECT_EQ(d.changes.at("socket0.qpi0.rx.filter_match"), (changes{{0, 0}, {2000, 1}, {3000, 0}}));
    for (const char* quiet : {"snp", "hom_req", "hom_nonreq", "ndr_ad", "ndr_ak", "ncb_data",
                              "ncb_nondata", "ncs"})
        EXPECT_EQ(d.changes.at(std::string("socket0.qpi0.rx.") + quiet), (changes{{0, 0}})) << quiet;
    // The counters: the raw increment during a cycle, the count at the next start.
    EXPECT_EQ(d.changes.at("socket0.qpi0.ctr0.inc"), data);
    EXPECT_EQ(d.changes.at("socket0.qpi0.ctr0.value"),
              (changes{{0, 0}, {3000, 1}, {4000, 3}, {5000, 5}, {6000, 7}, {7000, 8}}));
    EXPECT_EQ(d.changes.at("socket0.qpi0.ctr1.value"), (changes{{0, 0}, {3000, 1}}));

    // Exact lines: the header cycle, with the identifiers of the header order.
    EXPECT_NE(text.find("#2000\nb1 \"\nb0 $\nb1 %\nb1 &\nb1 *\nb1 +\nb1 1\n#3000\n"), std::string::npos)
        << text;
}

TEST(Vcd, Vcd2fstReadsTheDumpBackUnchanged) {
    if (!have_tool("vcd2fst")) GTEST_SKIP() << "vcd2fst not installed (Debian package gtkwave)";
    uncore_config cfg;
    uncore_system sys("sys", cfg);
    vcd_options o;
    o.file = out_path("roundtrip.vcd");
    o.globs = {"*"};
    vcd_recorder rec("vcd", sys, o);
    qpi_scenario(sys);

    const std::string fst = out_path("roundtrip.fst");
    std::remove(fst.c_str());
    ASSERT_EQ(std::system(("vcd2fst '" + o.file + "' '" + fst + "' >/dev/null 2>&1").c_str()), 0);
    ASSERT_TRUE(std::filesystem::exists(fst));
    if (!have_tool("fst2vcd")) GTEST_SKIP() << "fst2vcd not installed: converted, not read back";
    const std::string back = out_path("roundtrip_back.vcd");
    ASSERT_EQ(std::system(("fst2vcd '" + fst + "' > '" + back + "' 2>/dev/null").c_str()), 0);
    const dump a = parse_vcd(slurp(o.file)), b = parse_vcd(slurp(back));
    EXPECT_EQ(b.names, a.names);
    EXPECT_EQ(b.width, a.width);
    EXPECT_EQ(b.changes, a.changes);
    EXPECT_EQ(a.changes.size(), rec.recorded_signals().size());
}

// --- IVB-EP overflow, freeze and PMI -------------------------------------------

// The picture in docs/waves.png: port 0 counts received DRS data flits with
// ov_en, preloaded 20 below the wrap; DRS data packets arrive in QCLK cycles
// 4, 16, 28 and 40 (8 data flits each: 1 in the header cycle, 2, 2, 2, 1).
// The 20th flit is in cycle 30 (it adds 2: the counter wraps to 1), so the box
// messages the UBox at the start of cycle 31 (31000 ps) and stops; the PMI to
// cores 0 and 1 lasts one UCLK cycle; the global freeze reaches R2PCIe and the
// fixed counter 3 UCLK cycles later (UCLK cycle 62 + 3 = 65, 32500 ps).
TEST(Vcd, IvbOverflowFreezeAndPmi) {
    uncore_config cfg;
    uncore_system sys("sys", cfg);
    vcd_options o;
    o.file = out_path("ivb_overflow.vcd");
    o.globs = {"socket0.global_freeze", "socket0.pmi", "socket0.qpi0.frozen",
               "socket0.qpi0.status", "socket0.qpi0.ctr0.*", "socket0.qpi0.ctr1.value",
               "socket0.qpi0.rx.idle", "socket0.qpi0.rx.data", "socket0.qpi0.rx.drs_*",
               "socket0.qpi0.rx.filter_match", "socket0.r2pcie.frozen", "socket0.r2pcie.ctr0.value",
               "socket0.r2pcie.ctr0.counting", "socket0.ubox_fixed.ctr0.value"};
    o.end = 50000;
    vcd_recorder rec("vcd", sys, o);
    run_script([&] {
        const uint64_t preload = (1ull << 48) - 20;
        sys.msr_write(0, 0xC00, 0x3);                               // PMI to cores 0, 1
        sys.msr_write(0, 0xC08, 1u << 22);                          // UCLK fixed counter
        sys.pci_write(kBus, kR2Dev, kR2Fn, 0xD8, 4, 0x00400001);    // R2PCIe CLOCKTICKS
        sys.pci_write(kBus, kQpiDev, kFilter, 0x228, 4, 0x1C00);    // filter: DRS.AnyDataC
        sys.pci_write(kBus, kQpiDev, kFilter, 0x238, 4, 0x1F80);
        sys.pci_write(kBus, kQpiDev, kPmon, 0xD8, 4, 0x00700802);   // DRS_DATA, en, ov_en
        sys.pci_write(kBus, kQpiDev, kPmon, 0xA0, 4, preload & 0xFFFFFFFF);
        sys.pci_write(kBus, kQpiDev, kPmon, 0xA4, 4, preload >> 32);
        sys.pci_write(kBus, kQpiDev, kPmon, 0xDC, 4, 0x00600038);   // CTO_COUNT
        box_module* q = sys.socket(0).box("qpi0");
        qpi_packet p;
        p.mc = qpi_mc::drs;
        p.rds = 1;
        for (cycle_t c : {4, 16, 28, 40}) q->post_packet(qpi_dir::rx, c, p);
        wait_until_ps(60000);  // past the window's end
    });

    const dump d = parse_vcd(slurp(o.file));
    const uint64_t top = 1ull << 48;
    EXPECT_EQ(d.changes.at("socket0.qpi0.ctr0.value").back(), (std::pair<uint64_t, uint64_t>{31000, 1}));
    EXPECT_EQ(d.changes.at("socket0.qpi0.ctr0.value").front(), (std::pair<uint64_t, uint64_t>{0, top - 20}));
    EXPECT_EQ(d.changes.at("socket0.qpi0.ctr0.overflow"), (changes{{0, 0}, {31000, 1}, {32000, 0}}));
    EXPECT_EQ(d.changes.at("socket0.qpi0.ctr0.counting"), (changes{{0, 1}, {31000, 0}}));
    EXPECT_EQ(d.changes.at("socket0.qpi0.frozen"), (changes{{0, 0}, {31000, 1}}));
    EXPECT_EQ(d.changes.at("socket0.qpi0.status"), (changes{{0, 0}, {31000, 1}}));
    EXPECT_EQ(d.changes.at("socket0.qpi0.ctr1.value"), (changes{{0, 0}, {5000, 1}, {17000, 2}, {29000, 3}}));
    EXPECT_EQ(d.changes.at("socket0.pmi"), (changes{{0, 0}, {31000, 3}, {31500, 0}}));
    EXPECT_EQ(d.changes.at("socket0.global_freeze"), (changes{{0, 0}, {32500, 1}}));
    EXPECT_EQ(d.changes.at("socket0.r2pcie.frozen"), (changes{{0, 0}, {32500, 1}}));
    EXPECT_EQ(d.changes.at("socket0.r2pcie.ctr0.counting"), (changes{{0, 1}, {32500, 0}}));
    EXPECT_EQ(d.changes.at("socket0.r2pcie.ctr0.value").back(), (std::pair<uint64_t, uint64_t>{32500, 65}));
    EXPECT_EQ(d.changes.at("socket0.ubox_fixed.ctr0.value").back(), (std::pair<uint64_t, uint64_t>{32500, 65}));
    // The link keeps moving flits after the freeze: the 4th packet shows.
    EXPECT_EQ(d.changes.at("socket0.qpi0.rx.drs_data").back(), (std::pair<uint64_t, uint64_t>{45000, 0}));
    EXPECT_EQ(d.times.back(), 50000u);  // the window's end, though the run went on
    for (uint64_t t : d.times) EXPECT_LE(t, 50000u);
}

// With the default open-ended window the recorder stops where the simulation
// would have run out of events, instead of sampling for ever.
TEST(Vcd, OpenEndedRecorderDoesNotKeepTheSimulationAlive) {
    uncore_config cfg;
    uncore_system sys("sys", cfg);
    vcd_options o;
    o.file = out_path("open_end.vcd");
    o.globs = {"socket0.ubox_fixed.ctr0.value"};
    vcd_recorder rec("vcd", sys, o);
    struct poke : sc_core::sc_module {
        uncore_system& s;
        poke(sc_core::sc_module_name n, uncore_system& sys) : sc_module(n), s(sys) {
            SC_HAS_PROCESS(poke);
            SC_THREAD(run);
        }
        void run() {
            s.msr_write(0, 0xC08, 1u << 22);  // the fixed counter counts UCLK for ever
            wait_until_ps(3000);              // then nothing is scheduled any more
        }
    } p("poke", sys);
    sc_core::sc_start();  // returns when events run out
    EXPECT_EQ(now_ps(), 3000u);
    sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_NS));  // time moves on, the dump does not
    EXPECT_EQ(now_ps(), 4000u);
    rec.close();
    const dump d = parse_vcd(slurp(o.file));
    EXPECT_EQ(d.times.back(), 3000u);
    EXPECT_EQ(d.changes.at("socket0.ubox_fixed.ctr0.value").back(), (std::pair<uint64_t, uint64_t>{3000, 6}));
}

}  // namespace
}  // namespace pmonsim
