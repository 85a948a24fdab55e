// The register-access script language (driver/script): parsing, and what each
// command prints and does, run against an in-memory target. Expected outputs
// are what msr-tools (rdmsr.c, wrmsr.c), pciutils (setpci.c, lib/filter.c)
// and coreutils sleep print for the same values, worked out by hand from
// their sources (see script.cpp for the list of places).
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "driver/script/script.h"
#include "driver/target.h"

namespace pmonsim::driver {
namespace {

std::string hex(uint64_t v) {
    char b[32];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
    return b;
}

std::string slot(const pci_address& a) {
    char b[32];
    std::snprintf(b, sizeof b, "%04x:%02x:%02x.%x", a.domain, a.bus, a.dev, a.fn);
    return b;
}

// A machine in memory. Every access is logged ("rdmsr 0 0x10", "wrmsr 1 0x10
// 0x5", "pci_read 0000:7f:13.1 0x4 2", "pci_write ... 0x4 2 0x7",
// "advance 500"), failing ones with " FAIL".
class fake_target : public target {
public:
    struct device {
        pci_device_info info;
        std::array<uint8_t, 4096> cfg{};
        std::set<uint32_t> failing;  // offsets whose accesses fail
    };

    unsigned cpus = 1;
    std::map<std::pair<unsigned, uint32_t>, uint64_t> msrs;
    std::set<std::pair<unsigned, uint32_t>> failing_msrs;
    std::vector<device> devices;  // in (domain, bus, dev, fn) order
    std::vector<std::string> log;
    uint64_t time = 0;

    // A function with vendor/device, class 0x110100 (performance counters),
    // revision 4 and header type 0x80 (type 0, multi-function).
    device& add_device(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t device_id) {
        device d;
        d.info.addr = {0, bus, dev, fn};
        d.info.vendor = 0x8086;
        d.info.device = device_id;
        put(d, 0x00, 2, 0x8086);
        put(d, 0x02, 2, device_id);
        put(d, 0x08, 4, 0x11010004);
        put(d, 0x0E, 1, 0x80);
        devices.push_back(d);
        return devices.back();
    }
    static void put(device& d, uint32_t off, unsigned size, uint64_t v) {
        for (unsigned i = 0; i < size; ++i) d.cfg[off + i] = static_cast<uint8_t>(v >> (8 * i));
    }
    static uint64_t get(const device& d, uint32_t off, unsigned size) {
        uint64_t v = 0;
        for (unsigned i = 0; i < size; ++i) v |= uint64_t{d.cfg[off + i]} << (8 * i);
        return v;
    }
    device* find(const pci_address& a) {
        for (auto& d : devices)
            if (d.info.addr == a) return &d;
        return nullptr;
    }
    uint64_t cfg(uint8_t bus, uint8_t dev, uint8_t fn, uint32_t off, unsigned size) {
        return get(*find({0, bus, dev, fn}), off, size);
    }

    unsigned cpu_count() const override { return cpus; }
    bool msr_read(unsigned cpu, uint32_t msr, uint64_t& value) override {
        const bool ok = !failing_msrs.count({cpu, msr});
        log.push_back("rdmsr " + std::to_string(cpu) + " " + hex(msr) + (ok ? "" : " FAIL"));
        if (ok) value = msrs[{cpu, msr}];
        return ok;
    }
    bool msr_write(unsigned cpu, uint32_t msr, uint64_t value) override {
        const bool ok = !failing_msrs.count({cpu, msr});
        log.push_back("wrmsr " + std::to_string(cpu) + " " + hex(msr) + " " + hex(value) + (ok ? "" : " FAIL"));
        if (ok) msrs[{cpu, msr}] = value;
        return ok;
    }
    bool pci_read(const pci_address& a, uint32_t offset, unsigned size, uint64_t& value) override {
        device* d = find(a);
        const bool ok = d && !d->failing.count(offset) && offset + size <= 4096;
        log.push_back("pci_read " + slot(a) + " " + hex(offset) + " " + std::to_string(size) + (ok ? "" : " FAIL"));
        if (ok) value = get(*d, offset, size);
        return ok;
    }
    bool pci_write(const pci_address& a, uint32_t offset, unsigned size, uint64_t value) override {
        device* d = find(a);
        const bool ok = d && !d->failing.count(offset) && offset + size <= 4096;
        log.push_back("pci_write " + slot(a) + " " + hex(offset) + " " + std::to_string(size) + " " + hex(value) +
                      (ok ? "" : " FAIL"));
        if (ok) put(*d, offset, size, value);
        return ok;
    }
    void no_device_selected(const std::string& selection) override { log.push_back("no device " + selection); }
    std::vector<pci_device_info> pci_devices() override {
        std::vector<pci_device_info> out;
        for (const auto& d : devices) out.push_back(d.info);
        return out;
    }
    void advance(uint64_t ps) override {
        time += ps;
        log.push_back("advance " + std::to_string(ps));
    }
    uint64_t now() const override { return time; }
};

struct result {
    int status;
    std::string out, err;
};

result run(fake_target& t, const std::string& text, const script_options& options = {}) {
    std::istringstream in(text);
    const script s = parse_script(in, "test.sh", options);
    std::ostringstream out, err;
    const int status = run_script(s, t, out, err);
    return {status, out.str(), err.str()};
}

// The output of a script that must succeed without messages.
std::string output(fake_target& t, const std::string& text) {
    const result r = run(t, text);
    EXPECT_EQ(r.status, 0) << text;
    EXPECT_EQ(r.err, "") << text;
    return r.out;
}

std::string parse_error(const std::string& text, const script_options& options = {}) {
    std::istringstream in(text);
    try {
        parse_script(in, "prog.sh", options);
    } catch (const script_error& e) {
        return e.what();
    }
    return "(parsed)";
}

// One CPU whose MSR 0x10 holds `value`; returns what `rdmsr OPTIONS 0x10` prints.
std::string rdmsr(const std::string& options, uint64_t value) {
    fake_target t;
    t.msrs[{0, 0x10}] = value;
    return output(t, "rdmsr " + options + " 0x10\n");
}

// Two sockets' uncore functions on buses 0x7F and 0xFF (as the model places them).
fake_target two_sockets() {
    fake_target t;
    for (uint8_t bus : {uint8_t{0x7F}, uint8_t{0xFF}}) {
        t.add_device(bus, 0x08, 2, 0x0E32);
        t.add_device(bus, 0x09, 2, 0x0E33);
        auto& r2 = t.add_device(bus, 0x13, 1, 0x0E34);
        fake_target::put(r2, 0xD8, 4, bus == 0x7F ? 0x12345678 : 0x9ABCDEF0);
        fake_target::put(r2, 0x04, 2, 0x0006);
    }
    return t;
}

// --- Parsing -----------------------------------------------------------------------

TEST(ScriptParse, CommentsBlankLinesAndWhitespace) {
    const std::string text =
        "#!/bin/sh\n"
        "set -e\n"
        "\n"
        "   \t\n"
        "# a whole-line comment\n"
        "\twrmsr 0x10 1   # a trailing comment\n"
        "  echo x#y  \n"  // '#' inside a word is not a comment (sh)
        "echo '3'# not a comment either\n";
    std::istringstream in(text);
    const script s = parse_script(in, "x.sh");
    ASSERT_EQ(s.commands.size(), 3u);
    EXPECT_EQ(s.commands[0].line, 6u);
    EXPECT_EQ(s.commands[0].source, "wrmsr 0x10 1   # a trailing comment");
    EXPECT_EQ(s.commands[1].line, 7u);
    EXPECT_EQ(s.commands[1].source, "echo x#y");
    EXPECT_EQ(s.commands[2].line, 8u);
    // "0x2#3" is one word, not a C integer; "'3'#4" is the word 3#4; "'#4'" is #4.
    EXPECT_EQ(parse_error("  wrmsr 0x11 0x2#3\n"),
              "prog.sh:1: wrmsr: invalid value '0x2#3' (a 64-bit C integer: 0x400000, 4194304, 020000000)");
    EXPECT_EQ(parse_error("wrmsr 0x10 1\n\nwrmsr 0x12 '3'#4\n"),
              "prog.sh:3: wrmsr: invalid value '3#4' (a 64-bit C integer: 0x400000, 4194304, 020000000)");
    EXPECT_EQ(parse_error("wrmsr 0x13 '#4' #5\n"),
              "prog.sh:1: wrmsr: invalid value '#4' (a 64-bit C integer: 0x400000, 4194304, 020000000)");
    fake_target t;
    EXPECT_EQ(output(t, text + "wrmsr 0x11 '0x2'  # x\n"), "x#y\n3# not a comment either\n");
    EXPECT_EQ(t.log, (std::vector<std::string>{"wrmsr 0 0x10 0x1", "wrmsr 0 0x11 0x2"}));
}

TEST(ScriptParse, ErrorsNameFileLineAndToken) {
    EXPECT_EQ(parse_error("wrmsr 0x10 1\nrdmr 0x10\n"),
              "prog.sh:2: unknown command 'rdmr' (rdmsr, wrmsr, setpci, sleep, echo, set -e)");
    EXPECT_EQ(parse_error("\n\nrdmsr -q 0x10\n"), "prog.sh:3: rdmsr: invalid option -- 'q'");
    EXPECT_EQ(parse_error("rdmsr --hexa-decimal 0x10\n"), "prog.sh:1: rdmsr: unrecognized option '--hexa-decimal'");
    EXPECT_EQ(parse_error("rdmsr --c 0x10\n"),
              "prog.sh:1: rdmsr: option '--c' is ambiguous; possibilities: '--capital-hexadecimal' "
              "'--c-language' '--cpu'");
    EXPECT_EQ(parse_error("rdmsr -x=1 0x10\n"), "prog.sh:1: rdmsr: invalid option -- '='");
    EXPECT_EQ(parse_error("rdmsr --raw=1 0x10\n"), "prog.sh:1: rdmsr: option '--raw' doesn't allow an argument");
    EXPECT_EQ(parse_error("rdmsr 0x10 -p\n"), "prog.sh:1: rdmsr: option requires an argument -- 'p'");
    EXPECT_EQ(parse_error("rdmsr -p 5120 0x10\n"), "prog.sh:1: rdmsr: invalid CPU number '5120' for -p (0 to 5119)");
    EXPECT_EQ(parse_error("rdmsr --cpu=1x 0x10\n"), "prog.sh:1: rdmsr: invalid CPU number '1x' for --cpu (0 to 5119)");
    EXPECT_EQ(parse_error("rdmsr -f 8:15 0x10\n"),
              "prog.sh:1: rdmsr: invalid bit field '8:15' for -f (HIGH:LOW, 63 >= HIGH >= LOW)");
    EXPECT_EQ(parse_error("rdmsr -f 64:0 0x10\n"),
              "prog.sh:1: rdmsr: invalid bit field '64:0' for -f (HIGH:LOW, 63 >= HIGH >= LOW)");
    EXPECT_EQ(parse_error("rdmsr 0x1g\n"), "prog.sh:1: rdmsr: invalid register number '0x1g' (a C integer: 0x1A0, 416, 0640)");
    EXPECT_EQ(parse_error("rdmsr 08\n"), "prog.sh:1: rdmsr: invalid register number '08' (a C integer: 0x1A0, 416, 0640)");
    EXPECT_EQ(parse_error("rdmsr 0x100000010\n"), "prog.sh:1: rdmsr: register number '0x100000010' does not fit in 32 bits");
    EXPECT_EQ(parse_error("rdmsr 0x10 0x11\n"), "prog.sh:1: rdmsr: exactly one register number expected, 2 given");
    EXPECT_EQ(parse_error("rdmsr -h\n"), "prog.sh:1: rdmsr: option -h only prints help and exits; not allowed in a script");
    EXPECT_EQ(parse_error("wrmsr --version 0x10 1\n"),
              "prog.sh:1: wrmsr: option --version only prints the version and exits; not allowed in a script");
    EXPECT_EQ(parse_error("wrmsr 0x10\n"), "prog.sh:1: wrmsr: a register number and at least one value expected");
    // getopt takes "-1" for options, as it does for the real wrmsr.
    EXPECT_EQ(parse_error("wrmsr 0x10 -1\n"), "prog.sh:1: wrmsr: invalid option -- '1'");
    EXPECT_EQ(parse_error("wrmsr 0x10 0x1ffffffffffffffff\n"),
              "prog.sh:1: wrmsr: invalid value '0x1ffffffffffffffff' (a 64-bit C integer: 0x400000, 4194304, 020000000)");
    EXPECT_EQ(parse_error("wrmsr '' 1\n"), "prog.sh:1: wrmsr: invalid register number '' (a C integer: 0x1A0, 416, 0640)");
    EXPECT_EQ(parse_error("set -x\n"), "prog.sh:1: only 'set -e' is supported, not 'set -x'");
}

TEST(ScriptParse, ShellSyntaxThatWouldMeanSomethingElseIsRejected) {
    EXPECT_EQ(parse_error("wrmsr 0x10 $X\n"),
              "prog.sh:1: '$' has a meaning to sh; not supported (quote it with '...')");
    EXPECT_EQ(parse_error("rdmsr 0x10 > out\n"),
              "prog.sh:1: '>' has a meaning to sh; not supported (quote it with '...')");
    EXPECT_EQ(parse_error("wrmsr 0x10 1; wrmsr 0x11 2\n"),
              "prog.sh:1: ';' has a meaning to sh; not supported (quote it with '...')");
    EXPECT_EQ(parse_error("setpci -s *:13.1 0.L\n"), "prog.sh:1: '*' is a sh wildcard; quote it with '...'");
    EXPECT_EQ(parse_error("echo \"a$b\"\n"),
              "prog.sh:1: '$' inside double quotes: sh would expand it; not supported");
    EXPECT_EQ(parse_error("echo 'abc\n"), "prog.sh:1: unterminated single quote");
    EXPECT_EQ(parse_error("wrmsr 0x10 1\r\n"),
              "prog.sh:1: carriage return (DOS line ending): convert the file to Unix line endings");
    EXPECT_EQ(parse_error("echo ~/x\n"), "prog.sh:1: '~' at the start of a word is expanded by sh; quote it with '...'");
}

TEST(ScriptParse, SetpciErrorsUseSetpcisWords) {
    const auto err = [](const std::string& args) { return parse_error("setpci " + args + "\n"); };
    EXPECT_EQ(err("-s 7f:13.1 d8"), "prog.sh:1: setpci: Missing width in \"d8\" (add .B, .W or .L)");
    EXPECT_EQ(err("-s 7f:13.1 d8.Q"), "prog.sh:1: setpci: Invalid width \"Q\"");
    EXPECT_EQ(err("-s 7f:13.1 d8.LL"), "prog.sh:1: setpci: Invalid width \"LL\"");
    EXPECT_EQ(err("-s 7f:13.1 FOO.L"), "prog.sh:1: setpci: Unknown register \"FOO\"");
    EXPECT_EQ(err("-s 7f:13.1 CAP_EXP+2.W"),
              "prog.sh:1: setpci: capability-relative register \"CAP_EXP\" is not supported (give the offset in hex)");
    EXPECT_EQ(err("-s 7f:13.1 CAP10.W"),
              "prog.sh:1: setpci: capability-relative register \"CAP10\" is not supported (give the offset in hex)");
    EXPECT_EQ(err("-s 7f:13.1 d9.W"), "prog.sh:1: setpci: Unaligned register address d9 in \"d9.W\"");
    EXPECT_EQ(err("-s 7f:13.1 1000.B"), "prog.sh:1: setpci: Register number 1000 out of range in \"1000.B\"");
    EXPECT_EQ(err("-s 7f:13.1 ffc.L=1,2"), "prog.sh:1: setpci: Register number ffc out of range in \"ffc.L=1,2\"");
    EXPECT_EQ(err("-s 7f:13.1 d8.B=100"), "prog.sh:1: setpci: Value \"100\" is out of range");
    EXPECT_EQ(err("-s 7f:13.1 d8.W=1:10000"), "prog.sh:1: setpci: Mask \"10000\" is out of range");
    EXPECT_EQ(err("-s 7f:13.1 d8.L=1,,2"), "prog.sh:1: setpci: Invalid value \"\"");
    EXPECT_EQ(err("-s 7f:13.1 d8.L=0xzz"), "prog.sh:1: setpci: Invalid value \"0xzz\"");
    EXPECT_EQ(err("-s 7f:13.1 d8.L=1:"), "prog.sh:1: setpci: Invalid mask \"\"");
    EXPECT_EQ(err("-s 7f:13.1 d8.L="), "prog.sh:1: setpci: Missing value in \"d8.L=\"");
    EXPECT_EQ(err("-s 7f:13.1 d8+1000.B"), "prog.sh:1: setpci: Invalid offset \"1000\"");
    EXPECT_EQ(err("d8.L"), "prog.sh:1: setpci: Filter specification expected before \"d8.L\" (-s or -d)");
    EXPECT_EQ(err("-v"), "prog.sh:1: setpci: No operation specified");
    EXPECT_EQ(err("-s 0x7f:13.1 d8.L"), "prog.sh:1: setpci: Unable to parse filter -s Invalid bus number (in '0x7f:13.1')");
    EXPECT_EQ(err("-s 7f:20.1 d8.L"), "prog.sh:1: setpci: Unable to parse filter -s Invalid slot number (in '7f:20.1')");
    EXPECT_EQ(err("-s 7f:13.8 d8.L"), "prog.sh:1: setpci: Unable to parse filter -s Invalid function number (in '7f:13.8')");
    EXPECT_EQ(err("-s 0:0:7f:13.1 d8.L"), "prog.sh:1: setpci: Unable to parse filter -s Too many fields (in '0:0:7f:13.1')");
    EXPECT_EQ(err("-d 8086 d8.L"), "prog.sh:1: setpci: Unable to parse filter -d At least two fields must be given (in '8086')");
    EXPECT_EQ(err("-s"), "prog.sh:1: setpci: Option -s requires an argument");
    EXPECT_EQ(err("-x 7f:13.1 d8.L"), "prog.sh:1: setpci: Invalid option '-x'");
    EXPECT_EQ(err("-s 7f:13.1 d8.L -v"), "prog.sh:1: setpci: Invalid option '-v'");  // general options come first
    EXPECT_EQ(err("-vs 7f:13.1 d8.L"), "prog.sh:1: setpci: Invalid or misplaced option -s in '-vs'");
    EXPECT_EQ(err("-A linux-sysfs -s 7f:13.1 d8.L"),
              "prog.sh:1: setpci: option -A selects how libpci reaches the hardware; not supported");
    EXPECT_EQ(err("--dumpregs"), "prog.sh:1: setpci: --dumpregs accesses no register; not allowed in a script");
}

TEST(ScriptParse, SleepAndEchoErrors) {
    EXPECT_EQ(parse_error("sleep\n"), "prog.sh:1: sleep: missing operand");
    EXPECT_EQ(parse_error("sleep 1e-3\n"),
              "prog.sh:1: sleep: invalid time interval '1e-3' (a decimal number of seconds, with an optional s, m, h or d suffix)");
    EXPECT_EQ(parse_error("sleep 0.5x\n"),
              "prog.sh:1: sleep: invalid time interval '0.5x' (a decimal number of seconds, with an optional s, m, h or d suffix)");
    EXPECT_EQ(parse_error("sleep 300d\n"),  // more picoseconds than 64 bits hold
              "prog.sh:1: sleep: invalid time interval '300d' (a decimal number of seconds, with an optional s, m, h or d suffix)");
    EXPECT_EQ(parse_error("echo -e 'a'\n"), "prog.sh:1: echo: option '-e' differs between shells; only -n is supported");
    EXPECT_EQ(parse_error("echo 'a\\nb'\n"), "prog.sh:1: echo: backslash in 'a\\nb': dash's echo interprets it, bash's does not");
}

TEST(ScriptParse, NothingRunsWhenAnyLineIsBad) {
    fake_target t;
    t.add_device(0x7F, 0x13, 1, 0x0E34);
    const std::string text =
        "wrmsr 0x10 1\n"
        "setpci -s 7f:13.1 d8.L=5\n"
        "echo started\n"
        "sleep 1\n"
        "wrmsr 0x10 2 zz\n";
    std::ostringstream out, err;
    try {
        std::istringstream in(text);
        const script s = parse_script(in, "prog.sh");
        run_script(s, t, out, err);
        FAIL() << "parsed";
    } catch (const script_error& e) {
        EXPECT_STREQ(e.what(), "prog.sh:5: wrmsr: invalid value 'zz' (a 64-bit C integer: 0x400000, 4194304, 020000000)");
        EXPECT_EQ(e.file(), "prog.sh");
        EXPECT_EQ(e.line(), 5u);
    }
    EXPECT_TRUE(t.log.empty());
    EXPECT_EQ(t.time, 0u);
    EXPECT_EQ(out.str(), "");
}

TEST(ScriptParse, OnlyWritesRejectsReadsAndSleeps) {
    script_options w;
    w.only_writes = true;
    EXPECT_EQ(parse_error("wrmsr 0x10 1\nrdmsr 0x10\n", w),
              "prog.sh:2: 'rdmsr' is not allowed in a --program file (writes, echo and comments only)");
    EXPECT_EQ(parse_error("sleep 1\n", w),
              "prog.sh:1: 'sleep' is not allowed in a --program file (writes, echo and comments only)");
    EXPECT_EQ(parse_error("setpci -s 7f:13.1 d8.L=1 dc.L\n", w),
              "prog.sh:1: setpci: \"dc.L\" reads a register: not allowed in a --program file (writes only)");
    // Without the option the same lines parse.
    EXPECT_EQ(parse_error("rdmsr 0x10\nsleep 1\nsetpci -s 7f:13.1 d8.L=1 dc.L\n"), "(parsed)");

    fake_target t;
    t.add_device(0x7F, 0x13, 1, 0x0E34);
    const result r = run(t,
                         "# program\nset -e\nwrmsr -p 0 0x10 5\necho programmed\n"
                         "setpci -s 7f:13.1 d8.L=1 dc.W=2:3\n",
                         w);
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, "programmed\n");
    EXPECT_EQ(t.log, (std::vector<std::string>{"wrmsr 0 0x10 0x5", "pci_write 0000:7f:13.1 0xd8 4 0x1",
                                               "pci_read 0000:7f:13.1 0xdc 2", "pci_write 0000:7f:13.1 0xdc 2 0x2"}));
}

// --- rdmsr -----------------------------------------------------------------------------

TEST(ScriptRdmsr, EveryOutputFormat) {
    const uint64_t v = 0x1234abcd;
    EXPECT_EQ(rdmsr("", v), "1234abcd\n");
    EXPECT_EQ(rdmsr("-x", v), "1234abcd\n");
    EXPECT_EQ(rdmsr("-X", v), "1234ABCD\n");
    EXPECT_EQ(rdmsr("-c", v), "0x1234abcd\n");
    EXPECT_EQ(rdmsr("-c -X", v), "0x1234ABCD\n");
    EXPECT_EQ(rdmsr("-0", v), "000000001234abcd\n");  // 64 bits: 16 hex digits
    EXPECT_EQ(rdmsr("-0 -x", v), "000000001234abcd\n");
    EXPECT_EQ(rdmsr("-x -0", v), "000000001234abcd\n");
    EXPECT_EQ(rdmsr("-0 -X", v), "000000001234ABCD\n");
    EXPECT_EQ(rdmsr("-0 -c", v), "0x000000001234abcd\n");
    EXPECT_EQ(rdmsr("-d", v), "305441741\n");
    EXPECT_EQ(rdmsr("-u", v), "305441741\n");
    EXPECT_EQ(rdmsr("-u -c", v), "305441741U\n");
    EXPECT_EQ(rdmsr("-d -c", v), "305441741\n");
    EXPECT_EQ(rdmsr("-o", v), "2215125715\n");
    EXPECT_EQ(rdmsr("-o -c", v), "02215125715\n");
    EXPECT_EQ(rdmsr("-o -0", v), "0000000000002215125715\n");    // (64 + 2) / 3 = 22 digits
    EXPECT_EQ(rdmsr("-o -0 -c", v), "00000000000002215125715\n");  // "0" then 22 digits
    EXPECT_EQ(rdmsr("-u -0", v), "00000000000305441741\n");      // 2^64 - 1 has 20 digits
    EXPECT_EQ(rdmsr("-d -0", v), "00000000000305441741\n");      // 19 digits + sign
    EXPECT_EQ(rdmsr("-d -0 -c", v), "305441741\n");              // no padding with -c
    EXPECT_EQ(rdmsr("-u -0 -c", v), "305441741U\n");
    EXPECT_EQ(rdmsr("-r -c", v), "{0xcd,0xab,0x34,0x12,0x00,0x00,0x00,0x00}\n");
    EXPECT_EQ(rdmsr("-r", v), std::string("\xcd\xab\x34\x12\0\0\0\0", 8));
    EXPECT_EQ(rdmsr("-r -0", v), std::string("\xcd\xab\x34\x12\0\0\0\0", 8));
    // The last base option wins; -c and -0 stay.
    EXPECT_EQ(rdmsr("-d -c -X", v), "0x1234ABCD\n");
    EXPECT_EQ(rdmsr("", 0), "0\n");
    EXPECT_EQ(rdmsr("-0", 0), "0000000000000000\n");
    EXPECT_EQ(rdmsr("-c -o", 0), "00\n");
}

TEST(ScriptRdmsr, SignedDecimalIsSignAndMagnitudeLikeMsrTools) {
    EXPECT_EQ(rdmsr("-d", 0x8000000000000001), "-1\n");
    EXPECT_EQ(rdmsr("-d", 0x8000000000000000), "0\n");
    EXPECT_EQ(rdmsr("-d", 0xFFFFFFFFFFFFFFFE), "-9223372036854775806\n");
    EXPECT_EQ(rdmsr("-d", 0xFFFFFFFFFFFFFFFF), "-9223372036854775807\n");
    EXPECT_EQ(rdmsr("-u", 0xFFFFFFFFFFFFFFFF), "18446744073709551615\n");
    EXPECT_EQ(rdmsr("-d -0", 0x8000000000000001), "-0000000000000000001\n");  // width 20 with the sign
    EXPECT_EQ(rdmsr("-d -f 7:0", 0xFF), "-127\n");
    EXPECT_EQ(rdmsr("-d -f 7:0", 0x7F), "127\n");
    EXPECT_EQ(rdmsr("-d -0 -f 3:0", 0xD), "-5\n");  // width decdigits[3] + 1 = 2
    EXPECT_EQ(rdmsr("-d -0 -f 3:0", 0x5), "05\n");
}

TEST(ScriptRdmsr, BitField) {
    const uint64_t v = 0x1234abcd;
    EXPECT_EQ(rdmsr("-f 15:8", v), "ab\n");
    EXPECT_EQ(rdmsr("-X -f 15:8", v), "AB\n");
    EXPECT_EQ(rdmsr("-0 -f 15:8", v), "ab\n");
    EXPECT_EQ(rdmsr("-0 -f 12:8", v), "0b\n");   // 5 bits: 2 hex digits
    EXPECT_EQ(rdmsr("-0 -f 11:8", v), "b\n");
    EXPECT_EQ(rdmsr("-u -f 15:8", v), "171\n");
    EXPECT_EQ(rdmsr("-u -0 -f 3:0", 0x5), "05\n");  // 4 bits: up to 15, 2 digits
    EXPECT_EQ(rdmsr("-o -0 -f 5:0", 0x7), "07\n");
    EXPECT_EQ(rdmsr("-f 0:0", 0x1), "1\n");
    EXPECT_EQ(rdmsr("-f 63:63", 0x8000000000000000), "1\n");
    EXPECT_EQ(rdmsr("-r -c -f 15:8", v), "{0xab,0x00,0x00,0x00,0x00,0x00,0x00,0x00}\n");
    EXPECT_EQ(rdmsr("-f 15:8junk", v), "ab\n");  // sscanf("%u:%u") ignores what follows
    EXPECT_EQ(rdmsr("--bitfield=31:16", v), "1234\n");
}

TEST(ScriptRdmsr, GetoptSpellings) {
    const uint64_t v = 0x1234abcd;
    EXPECT_EQ(rdmsr("-0X", v), "000000001234ABCD\n");
    EXPECT_EQ(rdmsr("--capital-hex", v), "1234ABCD\n");      // an unambiguous prefix
    EXPECT_EQ(rdmsr("--zero --c-lang", v), "0x000000001234abcd\n");  // zero-fill/zero-pad: the same option
    EXPECT_EQ(rdmsr("--unsigned", v), "305441741\n");
    EXPECT_EQ(rdmsr("--octal --c-language", v), "02215125715\n");
    EXPECT_EQ(rdmsr("-f15:8", v), "ab\n");
    EXPECT_EQ(rdmsr("-- ", v), "1234abcd\n");

    fake_target t;
    t.cpus = 2;
    t.msrs[{1, 0x10}] = 7;
    t.msrs[{1, 0x186}] = 0x41;
    EXPECT_EQ(output(t, "rdmsr -p1 16\n"), "7\n");
    EXPECT_EQ(output(t, "rdmsr 0x10 -c -p 1\n"), "0x7\n");  // options after the operand
    EXPECT_EQ(output(t, "rdmsr --cpu=1 0x186\n"), "41\n");
    EXPECT_EQ(output(t, "rdmsr --processor 0x1 0606\n"), "41\n");  // octal 0606 = 0x186
    EXPECT_EQ(output(t, "rdmsr -a -p 1 0x10\n"), "7\n");  // the last of -a/-p wins
}

TEST(ScriptRdmsr, AllCpusPrintOneLineEach) {
    fake_target t;
    t.cpus = 3;
    t.msrs[{0, 0xC00}] = 0x10;
    t.msrs[{1, 0xC00}] = 0x20000;
    t.msrs[{2, 0xC00}] = 0xFFFFFFFFFFFFFFFF;
    EXPECT_EQ(output(t, "rdmsr -a 0xc00\n"), "10\n20000\nffffffffffffffff\n");
    EXPECT_EQ(output(t, "rdmsr -a -0 -c -f 19:16 0xc00\n"), "0x0\n0x2\n0xf\n");
    EXPECT_EQ(output(t, "rdmsr -a -r -c -f 7:0 0xc00\n"),
              "{0x10,0x00,0x00,0x00,0x00,0x00,0x00,0x00}\n{0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00}\n"
              "{0xff,0x00,0x00,0x00,0x00,0x00,0x00,0x00}\n");
    EXPECT_EQ(t.log, (std::vector<std::string>{"rdmsr 0 0xc00", "rdmsr 1 0xc00", "rdmsr 2 0xc00", "rdmsr 0 0xc00",
                                               "rdmsr 1 0xc00", "rdmsr 2 0xc00", "rdmsr 0 0xc00", "rdmsr 1 0xc00",
                                               "rdmsr 2 0xc00"}));
}

TEST(ScriptRdmsr, FailedReadPrintsMsrToolsMessageAndStops) {
    fake_target t;
    t.cpus = 2;
    t.msrs[{0, 0x10}] = 1;
    t.failing_msrs.insert({0, 0xC00});
    const result r = run(t, "rdmsr 0x10\nrdmsr 0xc00\nrdmsr 0x10\nwrmsr 0x10 2\n");
    EXPECT_EQ(r.status, 4);
    EXPECT_EQ(r.out, "1\n");
    EXPECT_EQ(r.err, "rdmsr: CPU 0 cannot read MSR 0x00000c00\n");
    EXPECT_EQ(t.log, (std::vector<std::string>{"rdmsr 0 0x10", "rdmsr 0 0xc00 FAIL"}));

    fake_target u;
    u.cpus = 3;
    u.msrs[{0, 0x391}] = 5;
    u.failing_msrs.insert({1, 0x391});
    const result a = run(u, "rdmsr -a 0x391\necho not reached\n");
    EXPECT_EQ(a.status, 4);
    EXPECT_EQ(a.out, "5\n");
    EXPECT_EQ(a.err, "rdmsr: CPU 1 cannot read MSR 0x00000391\n");
    EXPECT_EQ(u.log, (std::vector<std::string>{"rdmsr 0 0x391", "rdmsr 1 0x391 FAIL"}));
}

TEST(ScriptRdmsr, CpuBeyondTheMachineIsAMissingDeviceNode) {
    fake_target t;
    t.cpus = 2;
    const result r = run(t, "rdmsr -p 2 0x10\necho not reached\n");
    EXPECT_EQ(r.status, 4);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "rdmsr: open: No such file or directory\n");
    EXPECT_TRUE(t.log.empty());
}

// --- wrmsr -----------------------------------------------------------------------------

TEST(ScriptWrmsr, SeveralValuesAreWrittenInTurn) {
    fake_target t;
    t.cpus = 2;
    EXPECT_EQ(output(t, "wrmsr 0xc00 0x20000000 0x1 0\n"), "");
    EXPECT_EQ(t.log, (std::vector<std::string>{"wrmsr 0 0xc00 0x20000000", "wrmsr 0 0xc00 0x1", "wrmsr 0 0xc00 0x0"}));
    EXPECT_EQ(t.msrs[(std::pair<unsigned, uint32_t>{0, 0xC00})], 0u);
    t.log.clear();
    EXPECT_EQ(output(t, "wrmsr -p 1 3072 010 255\n"), "");  // decimal register, octal 010 = 8
    EXPECT_EQ(t.log, (std::vector<std::string>{"wrmsr 1 0xc00 0x8", "wrmsr 1 0xc00 0xff"}));
}

TEST(ScriptWrmsr, AllCpusAndNumberForms) {
    fake_target t;
    t.cpus = 3;
    EXPECT_EQ(output(t, "wrmsr -a 0x391 0x2000000f 0x20000000\n"), "");
    EXPECT_EQ(t.log, (std::vector<std::string>{"wrmsr 0 0x391 0x2000000f", "wrmsr 0 0x391 0x20000000",
                                               "wrmsr 1 0x391 0x2000000f", "wrmsr 1 0x391 0x20000000",
                                               "wrmsr 2 0x391 0x2000000f", "wrmsr 2 0x391 0x20000000"}));
    t.log.clear();
    // After "--" a value may start with '-': strtoull negates it.
    EXPECT_EQ(output(t, "wrmsr -- 0x10 -1 0XFFFFFFFFFFFFFFFF ' 7'\n"), "");
    EXPECT_EQ(t.log, (std::vector<std::string>{"wrmsr 0 0x10 0xffffffffffffffff", "wrmsr 0 0x10 0xffffffffffffffff",
                                               "wrmsr 0 0x10 0x7"}));
}

TEST(ScriptWrmsr, FailedWritePrintsMsrToolsMessageAndStops) {
    fake_target t;
    t.cpus = 2;
    t.failing_msrs.insert({1, 0xC00});
    const result r = run(t, "wrmsr -a 0xc00 5 6\nwrmsr 0x10 1\n");
    EXPECT_EQ(r.status, 4);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "wrmsr: CPU 1 cannot set MSR 0x00000c00 to 0x0000000000000005\n");
    EXPECT_EQ(t.log, (std::vector<std::string>{"wrmsr 0 0xc00 0x5", "wrmsr 0 0xc00 0x6", "wrmsr 1 0xc00 0x5 FAIL"}));

    fake_target u;
    const result m = run(u, "wrmsr -p 1 0x10 1\n");
    EXPECT_EQ(m.status, 4);
    EXPECT_EQ(m.err, "wrmsr: open: No such file or directory\n");
    EXPECT_TRUE(u.log.empty());
}

// --- setpci ----------------------------------------------------------------------------

TEST(ScriptSetpci, ReadWidths) {
    fake_target t = two_sockets();
    EXPECT_EQ(output(t, "setpci -s 7f:13.1 d8.B\n"), "78\n");
    EXPECT_EQ(output(t, "setpci -s 7f:13.1 d8.W\n"), "5678\n");
    EXPECT_EQ(output(t, "setpci -s 7f:13.1 d8.L\n"), "12345678\n");
    EXPECT_EQ(output(t, "setpci -s 7f:13.1 0xda.w 0XDB.b\n"), "1234\n12\n");  // 0x optional, width any case
    EXPECT_EQ(output(t, "setpci -s 7f:13.1 d8+2.W\n"), "1234\n");
    EXPECT_EQ(output(t, "setpci -s 7f:13.1 0.L\n"), "0e348086\n");
    EXPECT_EQ(output(t, "setpci -s 7f:13.1 VENDOR_ID device_id COMMAND HEADER_TYPE\n"), "8086\n0e34\n0006\n80\n");
    EXPECT_EQ(output(t, "setpci -s 7f:13.1 COMMAND.B\n"), "06\n");  // an explicit width wins
    EXPECT_EQ(output(t, "setpci -s 7f:13.1 subsystem_id\n"), "0000\n");
}

TEST(ScriptSetpci, WritesMasksAndSeveralRegisters) {
    fake_target t = two_sockets();
    EXPECT_EQ(output(t, "setpci -s 7f:13.1 d8.L=0xcafe0001 dc.W=beef de.B=7 d8.L dc.L\n"), "cafe0001\n0007beef\n");
    EXPECT_EQ(t.log, (std::vector<std::string>{
                         "pci_write 0000:7f:13.1 0xd8 4 0xcafe0001", "pci_write 0000:7f:13.1 0xdc 2 0xbeef",
                         "pci_write 0000:7f:13.1 0xde 1 0x7", "pci_read 0000:7f:13.1 0xd8 4",
                         "pci_read 0000:7f:13.1 0xdc 4"}));
    t.log.clear();
    // VALUE:MASK reads, keeps the bits outside the mask and writes.
    EXPECT_EQ(output(t, "setpci -s 7f:13.1 d8.L=00000100:00000f00 d8.L\n"), "cafe0101\n");
    EXPECT_EQ(t.log, (std::vector<std::string>{"pci_read 0000:7f:13.1 0xd8 4", "pci_write 0000:7f:13.1 0xd8 4 0xcafe0101",
                                               "pci_read 0000:7f:13.1 0xd8 4"}));
    t.log.clear();
    // The value is cut to the mask; a mask covering the whole width is a plain write.
    EXPECT_EQ(output(t, "setpci -s 7f:13.1 dc.W=1234:00f0 dc.W=5:ffff dc.W\n"), "0005\n");
    EXPECT_EQ(t.log, (std::vector<std::string>{"pci_read 0000:7f:13.1 0xdc 2", "pci_write 0000:7f:13.1 0xdc 2 0xbe3f",
                                               "pci_write 0000:7f:13.1 0xdc 2 0x5", "pci_read 0000:7f:13.1 0xdc 2"}));
    t.log.clear();
    // VALUE,VALUE... writes consecutive registers of the width.
    EXPECT_EQ(output(t, "setpci -s 7f:13.1 e0.L=1,2,0x3:ff e0.L e4.L e8.L\n"), "00000001\n00000002\n00000003\n");
    EXPECT_EQ(t.log, (std::vector<std::string>{"pci_write 0000:7f:13.1 0xe0 4 0x1", "pci_write 0000:7f:13.1 0xe4 4 0x2",
                                               "pci_read 0000:7f:13.1 0xe8 4", "pci_write 0000:7f:13.1 0xe8 4 0x3",
                                               "pci_read 0000:7f:13.1 0xe0 4", "pci_read 0000:7f:13.1 0xe4 4",
                                               "pci_read 0000:7f:13.1 0xe8 4"}));
    // A byte value may be a sign-extended 32-bit number (setpci's range check allows it); the byte is written.
    t.log.clear();
    EXPECT_EQ(output(t, "setpci -s 7f:13.1 f0.B=ffffff80 f0.B\n"), "80\n");
    EXPECT_EQ(t.log.front(), "pci_write 0000:7f:13.1 0xf0 1 0x80");
}

TEST(ScriptSetpci, DeviceIdSelectsEveryMatchInBusOrder) {
    fake_target t = two_sockets();
    EXPECT_EQ(output(t, "setpci -d 8086:0e34 d8.L 0.W\n"), "12345678\n8086\n9abcdef0\n8086\n");
    EXPECT_EQ(output(t, "setpci -d :0e34 d8.B\n"), "78\nf0\n");
    EXPECT_EQ(output(t, "setpci -d 8086: 2.W\n"), "0e32\n0e33\n0e34\n0e32\n0e33\n0e34\n");
    // 'x' wildcards are for the class only (lib/filter.c parse_hex_field without a mask).
    EXPECT_EQ(parse_error("setpci -d 8086:0e3x 2.W\n"),
              "prog.sh:1: setpci: Unable to parse filter -d Invalid device ID (in '8086:0e3x')");
}

TEST(ScriptSetpci, SlotForms) {
    fake_target t = two_sockets();
    EXPECT_EQ(output(t, "setpci -s 7f:13.1 d8.L\n"), "12345678\n");
    EXPECT_EQ(output(t, "setpci -s ff:13.1 d8.L\n"), "9abcdef0\n");
    EXPECT_EQ(output(t, "setpci -s 0000:ff:13.1 d8.L\n"), "9abcdef0\n");
    EXPECT_EQ(output(t, "setpci -s=0:7f:13.1 d8.L\n"), "12345678\n");
    EXPECT_EQ(output(t, "setpci -s0:7f:13.1 d8.L\n"), "12345678\n");
    // DEV.FN without a bus is that function on every bus (an omitted field matches anything).
    EXPECT_EQ(output(t, "setpci -s 13.1 d8.L\n"), "12345678\n9abcdef0\n");
    EXPECT_EQ(output(t, "setpci -s 'ff:*.2' 2.W\n"), "0e32\n0e33\n");
    EXPECT_EQ(output(t, "setpci -s ff: 2.W\n"), "0e32\n0e33\n0e34\n");
    EXPECT_EQ(output(t, "setpci -s .2 2.W\n"), "0e32\n0e33\n0e32\n0e33\n");
    EXPECT_EQ(output(t, "setpci -s 9 2.W\n"), "0e33\n0e33\n");
    // Filters before the first register form one group; both apply.
    EXPECT_EQ(output(t, "setpci -s ff: -d :0e33 2.W\n"), "0e33\n");
    // Two groups in one command, each with its registers, in order.
    EXPECT_EQ(output(t, "setpci -s 7f:13.1 d8.B -s ff:13.1 d8.B d9.B\n"), "78\nf0\nde\n");
    // Class filter (config word 0x0A), with 'x' wildcards.
    EXPECT_EQ(output(t, "setpci -s 7f: -d ::1101 2.W\n"), "0e32\n0e33\n0e34\n");
    EXPECT_EQ(output(t, "setpci -s 7f:8 -d ::11xx:00 2.W\n"), "0e32\n");
}

TEST(ScriptSetpci, NoDevicesSelectedIsAWarning) {
    fake_target t = two_sockets();
    const result r = run(t, "setpci -s 3f:13.1 d8.L=1 -s 7f:13.1 d8.W\necho after\n");
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, "5678\nafter\n");
    EXPECT_EQ(r.err, "setpci: Warning: No devices selected for operation group 1.\n");
    const result f = run(t, "setpci -f -d 1234: d8.L\n");
    EXPECT_EQ(f.status, 0);
    EXPECT_EQ(f.out, "");
    EXPECT_EQ(f.err, "");
}

// The target hears of each group that selected nothing (the model makes it a
// diagnostic), with the group's own filters; not with -f, which asks for quiet.
TEST(ScriptSetpci, NoDevicesSelectedIsToldToTheTarget) {
    fake_target t = two_sockets();
    run(t, "setpci -s 3f:13.1 d8.L=1 -s 7f:13.1 d8.W -s 3f:8.2 -d 8086: d8.L\n");
    std::vector<std::string> told;
    for (const std::string& l : t.log)
        if (l.rfind("no device ", 0) == 0) told.push_back(l);
    EXPECT_EQ(told, (std::vector<std::string>{"no device -s 3f:13.1", "no device -s 3f:8.2 -d 8086:"}));
    t.log.clear();
    run(t, "setpci -f -s 3f:13.1 d8.L\n");
    for (const std::string& l : t.log) EXPECT_NE(l.rfind("no device ", 0), 0u) << l;
}

TEST(ScriptSetpci, VerboseAndDemoMode) {
    fake_target t = two_sockets();
    EXPECT_EQ(output(t, "setpci -v -s 7f:13.1 d8.L dc.W=5,6 e0.B=1:3\n"),
              "0000:7f:13.1 @d8 = 12345678\n"
              "0000:7f:13.1 @dc 0005 0006\n"
              "0000:7f:13.1 @e0 00->(01:03)->01\n");
    t.log.clear();
    EXPECT_EQ(output(t, "setpci -vD -s ff:13.1 d8.L=1 d8.W=2:f\n"),
              "0000:ff:13.1 @d8 00000001\n"
              "0000:ff:13.1 @d8 def0->(0002:000f)->def2\n");
    EXPECT_EQ(t.log, (std::vector<std::string>{"pci_read 0000:ff:13.1 0xd8 2"}));  // -D: nothing written
    EXPECT_EQ(t.cfg(0xFF, 0x13, 1, 0xD8, 4), 0x9ABCDEF0u);
    EXPECT_EQ(output(t, "setpci -r -s ff:13.1 d8.L\n"), "9abcdef0\n");  // -r changes nothing here
}

TEST(ScriptSetpci, RegisterAHeaderTypeDoesNotHave) {
    fake_target t = two_sockets();
    const result r = run(t, "setpci -s 7f:13.1 SUBSYSTEM_VENDOR_ID PRIMARY_BUS\necho not reached\n");
    EXPECT_EQ(r.status, 4);
    EXPECT_EQ(r.out, "0000\n");
    EXPECT_EQ(r.err, "setpci: 0000:7f:13.1: Does not have register PRIMARY_BUS.\n");
}

TEST(ScriptSetpci, RefusedAccessStopsTheScript) {
    fake_target t = two_sockets();
    t.find({0, 0x7F, 0x13, 1})->failing.insert(0xE0);
    const result r = run(t, "setpci -s 7f:13.1 d8.B e0.L\necho not reached\n");
    EXPECT_EQ(r.status, 4);
    EXPECT_EQ(r.out, "78\n");
    EXPECT_EQ(r.err, "pcilib: sysfs_read: read failed: Input/output error\n");
    const result w = run(t, "setpci -s 7f:13.1 e0.L=1\n");
    EXPECT_EQ(w.status, 4);
    EXPECT_EQ(w.err, "pcilib: sysfs_write: write failed: Input/output error\n");
}

// --- sleep, echo, whole scripts ---------------------------------------------------------

TEST(ScriptSleep, AdvancesByExactPicoseconds) {
    fake_target t;
    EXPECT_EQ(output(t, "sleep 0.5\nsleep 1\nsleep .25\nsleep 2.\nsleep 0.000000000001\nsleep 0\n"), "");
    EXPECT_EQ(t.log, (std::vector<std::string>{"advance 500000000000", "advance 1000000000000", "advance 250000000000",
                                               "advance 2000000000000", "advance 1", "advance 0"}));
    t.log.clear();
    EXPECT_EQ(output(t, "sleep 1.5s\nsleep 0.5m\nsleep 1h\nsleep 0.01d\nsleep 0.5 0.25m\n"), "");
    EXPECT_EQ(t.log, (std::vector<std::string>{"advance 1500000000000", "advance 30000000000000",
                                               "advance 3600000000000000", "advance 864000000000000",
                                               "advance 15500000000000"}));
    // Below a picosecond rounds up; trailing zeros do not count as precision.
    fake_target u;
    EXPECT_EQ(output(u, "sleep 0.0000000000001\nsleep 0.0000000000015\nsleep 1.000000000000000000000\n"
                        "sleep 0.0000000000001m\nsleep 0.00000000000000000000000000000000000000000000000000001\n"),
              "");
    EXPECT_EQ(u.log, (std::vector<std::string>{"advance 1", "advance 2", "advance 1000000000000", "advance 6",
                                               "advance 1"}));
    EXPECT_EQ(u.now(), 1000000000010u);
}

TEST(ScriptEcho, PrintsWordsJoinedByOneSpace) {
    fake_target t;
    EXPECT_EQ(output(t, "echo hello   world\n"), "hello world\n");
    EXPECT_EQ(output(t, "echo 'a  # b' \"c  d\"\n"), "a  # b c  d\n");
    EXPECT_EQ(output(t, "echo a # comment\n"), "a\n");
    EXPECT_EQ(output(t, "echo a#b\n"), "a#b\n");
    EXPECT_EQ(output(t, "echo \"x y\"z'w'\n"), "x yzw\n");
    EXPECT_EQ(output(t, "echo\n"), "\n");
    EXPECT_EQ(output(t, "echo -n no newline\n"), "no newline");
    EXPECT_EQ(output(t, "echo '$HOME' \"'\" '\"'\n"), "$HOME ' \"\n");
    EXPECT_EQ(output(t, "echo x -n\n"), "x -n\n");
    EXPECT_TRUE(t.log.empty());
}

TEST(ScriptRun, CommandsRunInOrderAndStopAtTheFirstFailure) {
    fake_target t = two_sockets();
    t.cpus = 2;
    t.failing_msrs.insert({1, 0x700});
    const result r = run(t,
                         "#!/bin/sh\n"
                         "set -e\n"
                         "echo start\n"
                         "wrmsr -p 0 0x700 0x1\n"
                         "setpci -s 7f:13.1 d8.L=0\n"
                         "sleep 0.001\n"
                         "rdmsr -p 0 -c 0x700\n"
                         "setpci -s 7f:13.1 d8.L\n"
                         "wrmsr -a 0x700 0x2\n"
                         "echo not reached\n"
                         "wrmsr 0x701 1\n");
    EXPECT_EQ(r.status, 4);
    EXPECT_EQ(r.out, "start\n0x1\n00000000\n");
    EXPECT_EQ(r.err, "wrmsr: CPU 1 cannot set MSR 0x00000700 to 0x0000000000000002\n");
    EXPECT_EQ(t.log, (std::vector<std::string>{"wrmsr 0 0x700 0x1", "pci_write 0000:7f:13.1 0xd8 4 0x0",
                                               "advance 1000000000", "rdmsr 0 0x700", "pci_read 0000:7f:13.1 0xd8 4",
                                               "wrmsr 0 0x700 0x2", "wrmsr 1 0x700 0x2 FAIL"}));
    EXPECT_EQ(t.now(), 1000000000u);
}

TEST(ScriptRun, EmptyScriptSucceeds) {
    fake_target t;
    EXPECT_EQ(output(t, ""), "");
    EXPECT_EQ(output(t, "# nothing\n\n"), "");
    EXPECT_TRUE(t.log.empty());
}

}  // namespace
}  // namespace pmonsim::driver
