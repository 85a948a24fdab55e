// The register-access script language (see script.h).
//
// This file: reading the lines, splitting them into words the way sh does,
// and handing each command to its parser and runner (script_detail.h). The
// commands are in script_msr.cpp (rdmsr, wrmsr), script_setpci.cpp (setpci)
// and script_sleep_echo.cpp (sleep, echo); each names the places of the real
// tool's source it follows.
//
// Where the behaviour comes from (the real tools' sources, read, not copied;
// the outputs and messages in tests/unit/test_script.cpp were also compared
// with Debian's msr-tools 1.3-5 and pciutils 3.9.0 binaries):
//   - rdmsr, wrmsr: intel/msr-tools master (rdmsr.c, wrmsr.c: main,
//     rdmsr_on_cpu, rdmsr_on_all_cpus, wrmsr_on_cpu). Options are parsed the
//     way glibc's getopt_long does (permuting, clustered short options, long
//     options abbreviated to any unambiguous prefix). Master differs from the
//     1.3 release that distributions ship in two places: rdmsr -a prefixes
//     each line with "CPU n: " (1.3 prints the values alone), and -p allows
//     CPUs up to 5119 (1.3: 255). We follow 1.3's output (what Debian ships,
//     so a script prints the same on the model and on a Debian machine) and
//     master's wider CPU range.
//   - setpci: pciutils setpci.c (parse_options, parse_filter, parse_op,
//     parse_register, parse_x32, select_devices, execute, exec_op) and
//     lib/filter.c (pci_filter_parse_slot, pci_filter_parse_id,
//     parse_hex_field, pci_filter_match).
//   - sleep: GNU coreutils sleep (operands summed, suffixes s/m/h/d).
//
// Deliberate differences from the real tools (all of them make a script fail
// on the model where the real tool would do something surprising or have no
// equivalent; none changes the output of a command that works):
//   - Every failing command makes run_script return 4 (script_failure_status)
//     and stop. The real tools exit with 4 for rdmsr's "cannot read MSR" and
//     wrmsr's "cannot set MSR", but with 127 when /dev/cpu/N/msr does not
//     exist (perror "rdmsr: open") and setpci exits 1 on its fatal errors.
//   - A CPU number >= target::cpu_count() behaves like a CPU whose
//     /dev/cpu/N/msr does not exist (the node is absent on a machine without
//     that CPU): msr-tools calls perror("rdmsr: open"), printing
//     "rdmsr: open: No such file or directory". ("rdmsr: No CPU N" is what it
//     prints when the node exists but open() fails with ENXIO.)
//   - rdmsr -a reads CPUs 0, 1, ... in order. msr-tools walks the entries of
//     /dev/cpu as scandir returns them, unsorted, from the last to the first.
//   - wrmsr: values that strtoull would not consume entirely (wrmsr writes 0
//     for "junk" and 12 for "12junk") and register numbers above 32 bits
//     (truncated by the tools) are parse errors; an empty register number
//     (which the tools read as 0) too.
//   - setpci: a configuration access that the target refuses stops the
//     script; libpci would print "pcilib: sysfs_read: read failed: ..." (or
//     sysfs_write), read all ones and carry on. Devices are selected from
//     target::pci_devices() in (domain, bus, dev, fn) order; setpci walks
//     libpci's device list, which is the reverse of the order in which sysfs
//     listed the devices (not sorted). -r is accepted and changes nothing.
//     Capability-relative registers (CAP_*, ECAP_*, CAPnn, ECAPnnn) and the
//     PCI access options (-A, -O, -G, -H) are rejected.
//   - sleep accepts plain decimal numbers only (no exponent, hex or "inf");
//     the time is exact, rounded up to a whole picosecond.
#include "driver/script/script.h"

#include <cstring>
#include <istream>
#include <ostream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "desc/printable.h"
#include "driver/script/script_detail.h"

namespace pmonsim::driver {

using namespace script_detail;

script_error::script_error(const std::string& file, unsigned line, const std::string& message)
    : std::runtime_error(printable(file + ":" + std::to_string(line) + ": " + message)),
      file_(file),
      line_(line),
      message_(message) {}

namespace {

// --- Words of a line ---------------------------------------------------------------

std::string char_name(char c) { return quoted(std::string(1, c)); }

// Splits a line into words the way sh would, refusing what sh would expand.
std::vector<std::string> split_words(const std::string& line) {
    std::vector<std::string> words;
    const size_t n = line.size();
    size_t i = 0;
    for (;;) {
        while (i < n && (line[i] == ' ' || line[i] == '\t')) ++i;
        if (i >= n || line[i] == '#') break;
        std::string w;
        bool quoted_part = false;
        while (i < n && line[i] != ' ' && line[i] != '\t') {
            const char c = line[i];
            if (c == '\'') {
                const size_t j = line.find('\'', i + 1);
                if (j == std::string::npos) fail("unterminated single quote");
                w.append(line, i + 1, j - i - 1);
                i = j + 1;
                quoted_part = true;
            } else if (c == '"') {
                size_t j = i + 1;
                for (; j < n && line[j] != '"'; ++j)
                    if (line[j] == '$' || line[j] == '`' || line[j] == '\\')
                        fail(char_name(line[j]) + " inside double quotes: sh would expand it; not supported");
                if (j >= n) fail("unterminated double quote");
                w.append(line, i + 1, j - i - 1);
                i = j + 1;
                quoted_part = true;
            } else if (c == '\r') {
                fail("carriage return (DOS line ending): convert the file to Unix line endings");
            } else if (std::strchr("|&;<>(){}$`\\", c)) {
                fail(char_name(c) + " has a meaning to sh; not supported (quote it with '...')");
            } else if (std::strchr("*?[", c)) {
                fail(char_name(c) + " is a sh wildcard; quote it with '...'");
            } else if (c == '~' && w.empty() && !quoted_part) {
                fail("'~' at the start of a word is expanded by sh; quote it with '...'");
            } else {
                w += c;
                ++i;
            }
        }
        words.push_back(std::move(w));
    }
    return words;
}

std::string trim(const std::string& s) {
    const size_t b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

template <class... F>
struct overloaded : F... {
    using F::operator()...;
};
template <class... F>
overloaded(F...) -> overloaded<F...>;

}  // namespace

// One line into `line`, without its newline; false at the end of the input.
// Lines are bounded: a file without newlines (/dev/zero) must not be read
// whole into memory.
static bool read_line(std::istream& in, std::string& line, const std::string& filename, unsigned number) {
    line.clear();
    std::streambuf* sb = in.rdbuf();
    for (int c = sb->sbumpc(); c != std::char_traits<char>::eof(); c = sb->sbumpc()) {
        if (c == '\n') return true;
        if (line.size() == max_script_line)
            throw script_error(filename, number,
                               "the line is longer than " + std::to_string(max_script_line) + " bytes");
        line += static_cast<char>(c);
    }
    return !line.empty();
}

script parse_script(std::istream& in, const std::string& filename, const script_options& options) {
    script s;
    s.filename = filename;
    std::string line;
    unsigned number = 0;
    while (read_line(in, line, filename, number + 1)) {
        ++number;
        try {
            const std::vector<std::string> words = split_words(line);
            if (words.empty()) continue;
            const std::string& name = words[0];
            const std::vector<std::string> args(words.begin() + 1, words.end());
            const bool reads = name == "rdmsr" || name == "sleep";
            if (options.only_writes && reads)
                fail(quoted(name) + " is not allowed in a --program file (writes, echo and comments only)");
            script_command c;
            c.line = number;
            c.source = trim(line);
            if (name == "rdmsr") c.cmd = parse_rdmsr(args);
            else if (name == "wrmsr") c.cmd = parse_wrmsr(args);
            else if (name == "setpci") c.cmd = parse_setpci(args, options.only_writes);
            else if (name == "sleep") c.cmd = parse_sleep(args);
            else if (name == "echo") c.cmd = parse_echo(args);
            else if (name == "set") {
                if (args.size() == 1 && args[0] == "-e") continue;  // runs always stop at the first failure
                fail("only 'set -e' is supported, not " + quoted(trim(line)));
            } else {
                fail("unknown command " + quoted(name) + " (rdmsr, wrmsr, setpci, sleep, echo, set -e)");
            }
            s.commands.push_back(std::move(c));
        } catch (const bad_line& e) {
            throw script_error(filename, number, e.message);
        }
    }
    return s;
}

int run_script(const script& s, target& t, std::ostream& out, std::ostream& err) {
    for (const script_command& c : s.commands) {
        const bool ok = std::visit(
            overloaded{
                [&](const rdmsr_command& r) { return run_rdmsr(r, t, out, err); },
                [&](const wrmsr_command& w) { return run_wrmsr(w, t, err); },
                [&](const setpci_command& p) { return run_setpci(p, t, out, err); },
                [&](const sleep_command& z) {
                    t.advance(z.ps);
                    return true;
                },
                [&](const echo_command& e) {
                    out << e.text << (e.newline ? "\n" : "");
                    return true;
                },
            },
            c.cmd);
        if (!ok) {
            out.flush();
            return script_failure_status;
        }
    }
    out.flush();
    return 0;
}

}  // namespace pmonsim::driver
