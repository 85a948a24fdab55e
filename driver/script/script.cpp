// The register-access script language (see script.h).
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

#include <algorithm>
#include <cstddef>
#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <istream>
#include <ostream>
#include <tuple>
#include <utility>

namespace pmonsim::driver {

script_error::script_error(const std::string& file, unsigned line, const std::string& message)
    : std::runtime_error(file + ":" + std::to_string(line) + ": " + message),
      file_(file),
      line_(line),
      message_(message) {}

namespace {

// A bad line; parse_script adds the file name and line number.
struct bad_line {
    std::string message;
};

[[noreturn]] void fail(const std::string& message) { throw bad_line{message}; }

std::string quoted(const std::string& s) { return "'" + s + "'"; }

__attribute__((format(printf, 1, 2))) std::string format(const char* fmt, ...) {
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    const int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return std::string(buf, n < 0 ? 0 : std::min<size_t>(static_cast<size_t>(n), sizeof buf - 1));
}

// --- C number parsing --------------------------------------------------------------

// What glibc's strtoul(s, &end, base) returns for base 0, 10 or 16 (unsigned
// long is 64 bits): leading white space, an optional sign (a minus negates the
// result), 0x/0X for bases 0 and 16, a leading 0 meaning octal for base 0.
// `end` is the index of the first character not used (0 when no digits were).
struct c_number {
    uint64_t value = 0;
    size_t end = 0;
    bool overflow = false;  // ERANGE: value is ULONG_MAX
};

int digit_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'z') return c - 'a' + 10;
    if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
    return 99;
}

c_number c_strtoul(const std::string& s, int base) {
    const size_t n = s.size();
    size_t i = 0;
    while (i < n && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    bool negative = false;
    if (i < n && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
    if ((base == 0 || base == 16) && i + 2 < n && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X') &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
        i += 2;
        base = 16;
    } else if (base == 0) {
        base = (i < n && s[i] == '0') ? 8 : 10;
    }
    const size_t first = i;
    c_number r;
    const uint64_t b = static_cast<uint64_t>(base);
    for (; i < n; ++i) {
        const int d = digit_value(s[i]);
        if (d >= base) break;
        if (r.value > (~uint64_t{0} - static_cast<uint64_t>(d)) / b) r.overflow = true;
        else r.value = r.value * b + static_cast<uint64_t>(d);
    }
    if (i == first) return c_number{};  // no conversion: end is the start of the string
    r.end = i;
    if (r.overflow) r.value = ~uint64_t{0};
    else if (negative) r.value = ~r.value + 1;
    return r;
}

// A register number or value of rdmsr/wrmsr: strtoul base 0, the whole word.
bool whole_c_number(const std::string& s, uint64_t& value) {
    const c_number r = c_strtoul(s, 0);
    if (s.empty() || r.end != s.size() || r.overflow) return false;
    value = r.value;
    return true;
}

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

// --- glibc getopt_long ---------------------------------------------------------------

struct long_option {
    const char* name;
    bool has_arg;
    char val;
};

struct option_found {
    char val;
    std::string arg;
    std::string spelled;  // as written: "-x" or "--hex"
};

struct getopt_result {
    std::vector<option_found> options;
    std::vector<std::string> operands;
};

// getopt_long with GNU permutation: options and operands may be mixed; "--"
// ends the options; "-" is an operand.
getopt_result gnu_getopt(const std::string& prog, const std::vector<std::string>& args, const std::string& shortopts,
                         const std::vector<long_option>& longopts) {
    getopt_result r;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--") {
            r.operands.insert(r.operands.end(), std::next(args.begin(), static_cast<std::ptrdiff_t>(i) + 1), args.end());
            break;
        }
        if (a.size() < 2 || a[0] != '-') {
            r.operands.push_back(a);
            continue;
        }
        if (a[1] == '-') {
            const size_t eq = a.find('=');
            const std::string name = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
            const long_option* found = nullptr;
            std::vector<const long_option*> candidates;
            for (const auto& o : longopts) {
                if (name == o.name) {
                    found = &o;
                    candidates.clear();
                    break;
                }
                if (std::strncmp(o.name, name.c_str(), name.size()) == 0) candidates.push_back(&o);
            }
            if (!found && !candidates.empty()) {
                found = candidates.front();
                for (const long_option* o : candidates)
                    if (o->has_arg != found->has_arg || o->val != found->val) {
                        std::string list;
                        for (const long_option* p : candidates) list += std::string(" '--") + p->name + "'";
                        fail(prog + ": option '--" + name + "' is ambiguous; possibilities:" + list);
                    }
            }
            if (!found) fail(prog + ": unrecognized option " + quoted(a));
            option_found f{found->val, "", "--" + std::string(found->name)};
            if (found->has_arg) {
                if (eq != std::string::npos) f.arg = a.substr(eq + 1);
                else if (i + 1 < args.size()) f.arg = args[++i];
                else fail(prog + ": option '--" + found->name + "' requires an argument");
            } else if (eq != std::string::npos) {
                fail(prog + ": option '--" + found->name + "' doesn't allow an argument");
            }
            r.options.push_back(std::move(f));
            continue;
        }
        for (size_t k = 1; k < a.size(); ++k) {
            const char c = a[k];
            const size_t pos = c == ':' ? std::string::npos : shortopts.find(c);
            if (pos == std::string::npos) fail(prog + ": invalid option -- " + quoted(std::string(1, c)));
            option_found f{c, "", std::string("-") + c};
            if (pos + 1 < shortopts.size() && shortopts[pos + 1] == ':') {
                if (k + 1 < a.size()) f.arg = a.substr(k + 1);
                else if (i + 1 < args.size()) f.arg = args[++i];
                else fail(prog + ": option requires an argument -- " + quoted(std::string(1, c)));
                r.options.push_back(std::move(f));
                break;
            }
            r.options.push_back(std::move(f));
        }
    }
    return r;
}

// --- rdmsr, wrmsr ---------------------------------------------------------------------

// -p: strtoul base 0, the whole argument, at most 5119 (msr-tools master; the
// 1.3 release allowed 255). -1 stands for -a.
unsigned parse_cpu_option(const std::string& prog, const option_found& o) {
    const c_number r = c_strtoul(o.arg, 0);
    if (r.end != o.arg.size() || r.value > 5119)
        fail(prog + ": invalid CPU number " + quoted(o.arg) + " for " + o.spelled + " (0 to 5119)");
    return static_cast<unsigned>(r.value);
}

uint32_t parse_msr_number(const std::string& prog, const std::string& s) {
    uint64_t v = 0;
    if (!whole_c_number(s, v)) fail(prog + ": invalid register number " + quoted(s) + " (a C integer: 0x1A0, 416, 0640)");
    if (v > 0xFFFFFFFFu) fail(prog + ": register number " + quoted(s) + " does not fit in 32 bits");
    return static_cast<uint32_t>(v);
}

void reject_help(const std::string& prog, const option_found& o) {
    fail(prog + ": option " + o.spelled + " only prints " + (o.val == 'h' ? "help" : "the version") +
         " and exits; not allowed in a script");
}

// sscanf's %u: white space, an optional sign, decimal digits; the value cut to unsigned int.
bool scan_unsigned(const std::string& s, size_t& i, unsigned& out) {
    const std::string rest = s.substr(i);
    const c_number r = c_strtoul(rest, 10);
    if (r.end == 0) return false;
    out = static_cast<unsigned>(r.value);
    i += r.end;
    return true;
}

rdmsr_command parse_rdmsr(const std::vector<std::string>& args) {
    static const std::vector<long_option> longopts = {
        {"help", false, 'h'},          {"version", false, 'V'},          {"hexadecimal", false, 'x'},
        {"capital-hexadecimal", false, 'X'}, {"decimal", false, 'd'},    {"signed-decimal", false, 'd'},
        {"unsigned-decimal", false, 'u'}, {"octal", false, 'o'},         {"c-language", false, 'c'},
        {"zero-fill", false, '0'},     {"zero-pad", false, '0'},         {"raw", false, 'r'},
        {"all", false, 'a'},           {"processor", true, 'p'},         {"cpu", true, 'p'},
        {"bitfield", true, 'f'},
    };
    using namespace rdmsr_mode;
    const getopt_result g = gnu_getopt("rdmsr", args, "hVxXdoruc0ap:f:", longopts);
    rdmsr_command c;
    for (const option_found& o : g.options) {
        switch (o.val) {
        case 'h':
        case 'V': reject_help("rdmsr", o); break;
        case 'x': c.mode = (c.mode & ~base_mask) | hex; break;
        case 'X': c.mode = (c.mode & ~base_mask) | chx; break;
        case 'o': c.mode = (c.mode & ~base_mask) | oct; break;
        case 'd': c.mode = (c.mode & ~base_mask) | dec; break;
        case 'r': c.mode = (c.mode & ~base_mask) | raw; break;
        case 'u': c.mode = (c.mode & ~base_mask) | uns; break;
        case 'c': c.mode |= c_language; break;
        case '0': c.mode |= fill; break;
        case 'a': c.all_cpus = true; break;
        case 'p':
            c.cpu = parse_cpu_option("rdmsr", o);
            c.all_cpus = false;
            break;
        case 'f': {
            size_t i = 0;
            unsigned hi = 0, lo = 0;
            const bool ok = scan_unsigned(o.arg, i, hi) && i < o.arg.size() && o.arg[i++] == ':' &&
                            scan_unsigned(o.arg, i, lo);
            if (!ok || hi > 63 || lo > hi)
                fail("rdmsr: invalid bit field " + quoted(o.arg) + " for " + o.spelled + " (HIGH:LOW, 63 >= HIGH >= LOW)");
            c.highbit = hi;
            c.lowbit = lo;
            break;
        }
        }
    }
    if (g.operands.size() != 1)
        fail("rdmsr: exactly one register number expected, " + std::to_string(g.operands.size()) + " given");
    c.reg = parse_msr_number("rdmsr", g.operands[0]);
    return c;
}

wrmsr_command parse_wrmsr(const std::vector<std::string>& args) {
    static const std::vector<long_option> longopts = {
        {"help", false, 'h'}, {"version", false, 'V'}, {"all", false, 'a'},
        {"processor", true, 'p'}, {"cpu", true, 'p'},
    };
    const getopt_result g = gnu_getopt("wrmsr", args, "hVap:", longopts);
    wrmsr_command c;
    for (const option_found& o : g.options) {
        switch (o.val) {
        case 'h':
        case 'V': reject_help("wrmsr", o); break;
        case 'a': c.all_cpus = true; break;
        case 'p':
            c.cpu = parse_cpu_option("wrmsr", o);
            c.all_cpus = false;
            break;
        }
    }
    if (g.operands.size() < 2) fail("wrmsr: a register number and at least one value expected");
    c.reg = parse_msr_number("wrmsr", g.operands[0]);
    for (size_t i = 1; i < g.operands.size(); ++i) {
        uint64_t v = 0;
        if (!whole_c_number(g.operands[i], v))
            fail("wrmsr: invalid value " + quoted(g.operands[i]) + " (a 64-bit C integer: 0x400000, 4194304, 020000000)");
        c.values.push_back(v);
    }
    return c;
}

// --- setpci ---------------------------------------------------------------------------

// setpci's parse_x32: hexadecimal (strtoul base 16) into 32 bits. -1 when
// invalid, 1 when the whole string was used, 0 when characters are left
// (their index in `stop`).
int parse_x32(const std::string& s, uint32_t& out, size_t* stop = nullptr) {
    if (s.empty()) return -1;
    const c_number r = c_strtoul(s, 16);
    if (r.overflow || r.value > 0xFFFFFFFFu) return -1;
    out = static_cast<uint32_t>(r.value);
    if (r.end < s.size()) {
        if (stop) *stop = r.end;
        return 0;
    }
    return 1;
}

// Splits at `sep` into at most `max` fields; false if there are more.
bool split_fields(const std::string& s, char sep, size_t max, std::vector<std::string>& fields) {
    fields.clear();
    size_t start = 0;
    for (;;) {
        if (fields.size() >= max) return false;
        const size_t p = s.find(sep, start);
        fields.push_back(s.substr(start, p == std::string::npos ? std::string::npos : p - start));
        if (p == std::string::npos) return true;
        start = p + 1;
    }
}

bool field_defined(const std::vector<std::string>& f, size_t i) { return i < f.size() && !f[i].empty() && f[i] != "*"; }

// lib/filter.c parse_hex_field: hex digits (and 'x' wildcards where a mask is
// wanted); an undefined field keeps the default.
bool parse_hex_field(const std::vector<std::string>& f, size_t i, int64_t& out, uint32_t* mask, uint32_t max) {
    if (!field_defined(f, i)) return true;
    uint32_t value = 0, m = ~0u, bound = 0;
    for (const char c : f[i]) {
        if ((c == 'x' || c == 'X') && mask) {
            value <<= 4;
            bound = (bound << 4) | 1;
            m <<= 4;
        } else {
            const int d = digit_value(c);
            if (d > 15) return false;
            value = (value << 4) | static_cast<uint32_t>(d);
            bound = (bound << 4) | static_cast<uint32_t>(d);
            m = (m << 4) | 0xF;
        }
        if (bound > max) return false;
    }
    out = value;
    if (mask) *mask = m;
    return true;
}

// pci_filter_parse_slot: [[[domain]:][bus]:][slot][.[func]]; an omitted or
// "*" component matches any value (so "10.1" is device 10 function 1 on
// every bus). Returns libpci's error text, or nullptr.
const char* parse_slot_filter(pci_filter& f, const std::string& s) {
    if (s.size() >= 64) return "Expression too long";
    std::vector<std::string> fields;
    if (!split_fields(s, ':', 3, fields)) return "Too many fields";
    size_t i = 0;
    if (fields.size() > 2) {
        if (!parse_hex_field(fields, 0, f.domain, nullptr, 0x7FFFFFFF)) return "Invalid domain number";
        ++i;
    }
    if (fields.size() > i + 1) {
        if (!parse_hex_field(fields, i, f.bus, nullptr, 0xFF)) return "Invalid bus number";
        ++i;
    }
    if (field_defined(fields, i)) {
        std::vector<std::string> sf;
        if (!split_fields(fields[i], '.', 2, sf)) return "Invalid slot/function number";
        if (!parse_hex_field(sf, 0, f.slot, nullptr, 0x1F)) return "Invalid slot number";
        if (!parse_hex_field(sf, 1, f.func, nullptr, 7)) return "Invalid function number";
    }
    return nullptr;
}

// pci_filter_parse_id: [vendor]:[device][:class[:progif]].
const char* parse_id_filter(pci_filter& f, const std::string& s) {
    if (s.size() >= 64) return "Expression too long";
    std::vector<std::string> fields;
    if (!split_fields(s, ':', 4, fields)) return "Too many fields";
    if (fields.size() < 2) return "At least two fields must be given";
    if (!parse_hex_field(fields, 0, f.vendor, nullptr, 0xFFFF)) return "Invalid vendor ID";
    if (!parse_hex_field(fields, 1, f.device, nullptr, 0xFFFF)) return "Invalid device ID";
    if (!parse_hex_field(fields, 2, f.device_class, &f.device_class_mask, 0xFFFF)) return "Invalid class code";
    if (!parse_hex_field(fields, 3, f.prog_if, nullptr, 0xFF)) return "Invalid programming interface code";
    return nullptr;
}

// The registers of the standard configuration header that setpci knows by
// name (PCI Local Bus 3.0 §6.1, PCI-to-PCI Bridge 1.2 §3.2, PC Card 8.0 for
// CardBus bridges): offset, width, and the header types (bit n = type n) that have it.
struct named_register {
    const char* name;
    uint32_t offset;
    unsigned width;
    unsigned hdr_types;
};

const named_register kNamedRegisters[] = {
    {"VENDOR_ID", 0x00, 2, 0},          {"DEVICE_ID", 0x02, 2, 0},
    {"COMMAND", 0x04, 2, 0},            {"STATUS", 0x06, 2, 0},
    {"REVISION", 0x08, 1, 0},           {"CLASS_PROG", 0x09, 1, 0},
    {"CLASS_DEVICE", 0x0A, 2, 0},       {"CACHE_LINE_SIZE", 0x0C, 1, 0},
    {"LATENCY_TIMER", 0x0D, 1, 0},      {"HEADER_TYPE", 0x0E, 1, 0},
    {"BIST", 0x0F, 1, 0},
    // Type 0 (and the first two BARs of type 1).
    {"BASE_ADDRESS_0", 0x10, 4, 3},     {"BASE_ADDRESS_1", 0x14, 4, 3},
    {"BASE_ADDRESS_2", 0x18, 4, 1},     {"BASE_ADDRESS_3", 0x1C, 4, 1},
    {"BASE_ADDRESS_4", 0x20, 4, 1},     {"BASE_ADDRESS_5", 0x24, 4, 1},
    {"CARDBUS_CIS", 0x28, 4, 1},        {"SUBSYSTEM_VENDOR_ID", 0x2C, 2, 1},
    {"SUBSYSTEM_ID", 0x2E, 2, 1},       {"ROM_ADDRESS", 0x30, 4, 1},
    {"CAPABILITIES", 0x34, 1, 3},       {"INTERRUPT_LINE", 0x3C, 1, 3},
    {"INTERRUPT_PIN", 0x3D, 1, 3},      {"MIN_GNT", 0x3E, 1, 1},
    {"MAX_LAT", 0x3F, 1, 1},
    // Type 1: PCI-to-PCI bridges.
    {"PRIMARY_BUS", 0x18, 1, 2},        {"SECONDARY_BUS", 0x19, 1, 2},
    {"SUBORDINATE_BUS", 0x1A, 1, 2},    {"SEC_LATENCY_TIMER", 0x1B, 1, 2},
    {"IO_BASE", 0x1C, 1, 2},            {"IO_LIMIT", 0x1D, 1, 2},
    {"SEC_STATUS", 0x1E, 2, 2},         {"MEMORY_BASE", 0x20, 2, 2},
    {"MEMORY_LIMIT", 0x22, 2, 2},       {"PREF_MEMORY_BASE", 0x24, 2, 2},
    {"PREF_MEMORY_LIMIT", 0x26, 2, 2},  {"PREF_BASE_UPPER32", 0x28, 4, 2},
    {"PREF_LIMIT_UPPER32", 0x2C, 4, 2}, {"IO_BASE_UPPER16", 0x30, 2, 2},
    {"IO_LIMIT_UPPER16", 0x32, 2, 2},   {"BRIDGE_ROM_ADDRESS", 0x38, 4, 2},
    {"BRIDGE_CONTROL", 0x3E, 2, 2},
    // Type 2: CardBus bridges.
    {"CB_CARDBUS_BASE", 0x10, 4, 4},    {"CB_CAPABILITIES", 0x14, 2, 4},
    {"CB_SEC_STATUS", 0x16, 2, 4},      {"CB_BUS_NUMBER", 0x18, 1, 4},
    {"CB_CARDBUS_NUMBER", 0x19, 1, 4},  {"CB_SUBORDINATE_BUS", 0x1A, 1, 4},
    {"CB_CARDBUS_LATENCY", 0x1B, 1, 4}, {"CB_MEMORY_BASE_0", 0x1C, 4, 4},
    {"CB_MEMORY_LIMIT_0", 0x20, 4, 4},  {"CB_MEMORY_BASE_1", 0x24, 4, 4},
    {"CB_MEMORY_LIMIT_1", 0x28, 4, 4},  {"CB_IO_BASE_0", 0x2C, 2, 4},
    {"CB_IO_BASE_0_HI", 0x2E, 2, 4},    {"CB_IO_LIMIT_0", 0x30, 2, 4},
    {"CB_IO_LIMIT_0_HI", 0x32, 2, 4},   {"CB_IO_BASE_1", 0x34, 2, 4},
    {"CB_IO_BASE_1_HI", 0x36, 2, 4},    {"CB_IO_LIMIT_1", 0x38, 2, 4},
    {"CB_IO_LIMIT_1_HI", 0x3A, 2, 4},   {"CB_SUBSYSTEM_VENDOR_ID", 0x40, 2, 4},
    {"CB_SUBSYSTEM_ID", 0x42, 2, 4},    {"CB_LEGACY_MODE_BASE", 0x44, 4, 4},
};

bool iequal_prefix(const std::string& s, const char* prefix) {
    const size_t n = std::strlen(prefix);
    if (s.size() < n) return false;
    for (size_t i = 0; i < n; ++i)
        if (std::toupper(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
    return true;
}

bool iequal(const std::string& s, const char* name) { return s.size() == std::strlen(name) && iequal_prefix(s, name); }

// setpci's parse_register, without the capability-relative forms.
void parse_setpci_register(setpci_op& op, const std::string& base) {
    if (parse_x32(base, op.addr) > 0) return;
    for (const named_register& r : kNamedRegisters)
        if (iequal(base, r.name)) {
            op.addr = r.offset;
            op.hdr_type_mask = r.hdr_types;
            op.name = r.name;
            if (!op.width) op.width = r.width;
            return;
        }
    uint32_t cap = 0;
    if (iequal_prefix(base, "CAP_") || iequal_prefix(base, "ECAP_") ||
        (iequal_prefix(base, "CAP") && parse_x32(base.substr(3), cap) > 0 && cap < 0x100) ||
        (iequal_prefix(base, "ECAP") && parse_x32(base.substr(4), cap) > 0 && cap < 0x1000))
        fail("setpci: capability-relative register \"" + base + "\" is not supported (give the offset in hex)");
    fail("setpci: Unknown register \"" + base + "\"");
}

const unsigned kMaxValue[] = {0, 0xFF, 0xFFFF, 0, 0xFFFFFFFF};

// setpci's parse_op: REG[+OFF][.WIDTH][@N][=VALUE[:MASK][,VALUE...]].
setpci_op parse_setpci_op(const std::string& arg, bool only_writes) {
    std::string base = arg, value, number, width, offset;
    bool has_value = false, has_number = false, has_width = false, has_offset = false;
    auto cut = [&base](char c, std::string& tail, bool& has) {
        const size_t p = base.find(c);
        if (p == std::string::npos) return;
        tail = base.substr(p + 1);
        base.erase(p);
        has = true;
    };
    cut('=', value, has_value);
    cut('@', number, has_number);
    cut('.', width, has_width);
    cut('+', offset, has_offset);

    setpci_op op;
    size_t n = 0;
    if (has_value) {
        if (value.empty()) fail("setpci: Missing value in \"" + arg + "\"");
        n = 1 + static_cast<size_t>(std::count(value.begin(), value.end(), ','));
    } else if (only_writes) {
        fail("setpci: \"" + arg + "\" reads a register: not allowed in a --program file (writes only)");
    }
    if (has_width) {
        if (width.size() != 1) fail("setpci: Invalid width \"" + width + "\"");
        switch (width[0] & 0xDF) {
        case 'B': op.width = 1; break;
        case 'W': op.width = 2; break;
        case 'L': op.width = 4; break;
        default: fail("setpci: Invalid width \"" + width + "\"");
        }
    }
    if (has_number) {
        uint32_t num = 0;
        if (parse_x32(number, num) <= 0 || static_cast<int32_t>(num) < 0)
            fail("setpci: Invalid number \"" + number + "\"");
    }
    parse_setpci_register(op, base);
    if (!op.width) fail("setpci: Missing width in \"" + arg + "\" (add .B, .W or .L)");
    if (has_offset) {
        uint32_t off = 0;
        if (parse_x32(offset, off) <= 0 || off >= 0x1000) fail("setpci: Invalid offset \"" + offset + "\"");
        op.addr += off;
    }
    if (op.addr >= 0x1000 || op.addr + op.width * (n ? n : 1) > 0x1000)
        fail("setpci: Register number " + format("%02x", op.addr) + " out of range in \"" + arg + "\"");
    if (op.addr & (op.width - 1))
        fail("setpci: Unaligned register address " + format("%02x", op.addr) + " in \"" + arg + "\"");

    const unsigned lim = kMaxValue[op.width];
    std::vector<std::string> pieces;
    split_fields(value, ',', n ? n : 1, pieces);
    for (size_t j = 0; j < n; ++j) {
        const std::string& v = pieces[j];
        setpci_value sv;
        size_t stop = std::string::npos;
        uint32_t ll = 0;
        const int r = parse_x32(v, ll, &stop);
        if (r < 0 || (r == 0 && v[stop] != ':')) fail("setpci: Invalid value \"" + v + "\"");
        if (ll > lim && ll < ~0u - lim) fail("setpci: Value \"" + v + "\" is out of range");
        sv.value = ll;
        if (r == 0) {
            const std::string m = v.substr(stop + 1);
            if (parse_x32(m, ll) <= 0) fail("setpci: Invalid mask \"" + m + "\"");
            if (ll > lim && ll < ~0u - lim) fail("setpci: Mask \"" + m + "\" is out of range");
            sv.mask = ll;
            sv.value &= ll;
        }
        op.values.push_back(sv);
    }
    return op;
}

setpci_command parse_setpci(const std::vector<std::string>& a, bool only_writes) {
    setpci_command c;
    if (a.size() == 1 && (a[0] == "--help" || a[0] == "--version" || a[0] == "--dumpregs"))
        fail("setpci: " + a[0] + " accesses no register; not allowed in a script");
    // parse_options: the general options, before the first filter.
    size_t i = 0;
    bool ops_start = false;
    while (!ops_start && i < a.size() && !a[i].empty() && a[i][0] == '-') {
        const std::string& s = a[i++];
        for (size_t k = 1; k < s.size(); ++k) {
            const char ch = s[k];
            if (ch == 'v') ++c.verbose;
            else if (ch == 'f') c.force = true;
            else if (ch == 'D') c.demo = true;
            else if (ch == 'r') c.raw = true;
            else if (std::strchr("AGOH", ch))
                fail(std::string("setpci: option -") + ch + " selects how libpci reaches the hardware; not supported");
            else if (k != 1) fail(std::string("setpci: Invalid or misplaced option -") + ch + " in " + quoted(s));
            else {
                --i;
                ops_start = true;
                break;
            }
        }
    }
    // parse_ops: groups of filters followed by operations.
    while (i < a.size()) {
        const std::string& s = a[i++];
        if (!s.empty() && s[0] == '-') {
            if (c.groups.empty() || !c.groups.back().ops.empty()) c.groups.emplace_back();
            const char kind = s.size() > 1 ? s[1] : '\0';
            if (kind != 's' && kind != 'd') fail("setpci: Invalid option " + quoted(s));
            std::string d;
            if (s.size() > 2) d = s.substr(s[2] == '=' ? 3 : 2);
            else if (i < a.size()) d = a[i++];
            else fail(std::string("setpci: Option -") + kind + " requires an argument");
            pci_filter& f = c.groups.back().filter;
            if (const char* e = kind == 's' ? parse_slot_filter(f, d) : parse_id_filter(f, d))
                fail(std::string("setpci: Unable to parse filter -") + kind + " " + e + " (in " + quoted(d) + ")");
        } else {
            if (c.groups.empty()) fail("setpci: Filter specification expected before \"" + s + "\" (-s or -d)");
            c.groups.back().ops.push_back(parse_setpci_op(s, only_writes));
        }
    }
    if (c.groups.empty()) fail("setpci: No operation specified");
    return c;
}

// --- sleep, echo ------------------------------------------------------------------------

__extension__ typedef unsigned __int128 u128;

// One operand of sleep: DIGITS[.DIGITS][s|m|h|d], as picoseconds rounded up.
bool parse_duration(const std::string& s, uint64_t& ps) {
    size_t i = 0;
    std::string int_digits, frac_digits;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) int_digits += s[i++];
    if (i < s.size() && s[i] == '.') {
        ++i;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) frac_digits += s[i++];
    }
    if (int_digits.empty() && frac_digits.empty()) return false;
    uint64_t multiplier = 1;
    if (i < s.size()) {
        switch (s[i++]) {
        case 's': multiplier = 1; break;
        case 'm': multiplier = 60; break;
        case 'h': multiplier = 3600; break;
        case 'd': multiplier = 86400; break;
        default: return false;
        }
    }
    if (i != s.size()) return false;
    while (!frac_digits.empty() && frac_digits.back() == '0') frac_digits.pop_back();
    const std::string digits = int_digits + frac_digits;
    const size_t first = std::min(digits.find_first_not_of('0'), digits.size());
    if (digits.size() - first > 24) return false;  // more digits than any uint64 of ps needs
    u128 n = 0;
    for (size_t k = first; k < digits.size(); ++k) n = n * 10 + static_cast<unsigned>(digits[k] - '0');
    n *= multiplier;
    const u128 max = ~uint64_t{0};
    u128 result;
    if (frac_digits.size() <= 12) {
        if (n > max) return false;
        u128 scale = 1;
        for (size_t k = frac_digits.size(); k < 12; ++k) scale *= 10;
        result = n * scale;
    } else if (frac_digits.size() - 12 > 30) {
        result = n != 0;  // n < 10^30 (24 digits times at most 86400): less than a picosecond
    } else {
        u128 scale = 1;
        for (size_t k = 12; k < frac_digits.size(); ++k) scale *= 10;
        result = (n + scale - 1) / scale;
    }
    if (result > max) return false;
    ps = static_cast<uint64_t>(result);
    return true;
}

sleep_command parse_sleep(const std::vector<std::string>& args) {
    if (args.empty()) fail("sleep: missing operand");
    sleep_command c;
    for (const std::string& a : args) {
        uint64_t ps = 0;
        if (!parse_duration(a, ps) || ps > ~uint64_t{0} - c.ps)
            fail("sleep: invalid time interval " + quoted(a) +
                 " (a decimal number of seconds, with an optional s, m, h or d suffix)");
        c.ps += ps;
    }
    return c;
}

echo_command parse_echo(const std::vector<std::string>& args) {
    echo_command c;
    size_t first = 0;
    if (!args.empty() && args[0] == "-n") {
        c.newline = false;
        first = 1;
    } else if (!args.empty() && args[0].size() > 1 && args[0][0] == '-' &&
               args[0].find_first_not_of("neE", 1) == std::string::npos) {
        fail("echo: option " + quoted(args[0]) + " differs between shells; only -n is supported");
    }
    for (size_t i = first; i < args.size(); ++i) {
        if (args[i].find('\\') != std::string::npos)
            fail("echo: backslash in " + quoted(args[i]) + ": dash's echo interprets it, bash's does not");
        if (i > first) c.text += ' ';
        c.text += args[i];
    }
    return c;
}

std::string trim(const std::string& s) {
    const size_t b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// --- Running ------------------------------------------------------------------------------

// Decimal digits of the largest n-bit number (msr-tools' decdigits[n]).
int decimal_digits(unsigned n) {
    uint64_t v = n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
    int d = 1;
    while (v >= 10) {
        v /= 10;
        ++d;
    }
    return d;
}

// What rdmsr_on_cpu prints for one value (without the "CPU n: " of -a).
std::string format_msr_value(uint64_t data, const rdmsr_command& c) {
    using namespace rdmsr_mode;
    const unsigned bits = c.highbit - c.lowbit + 1;
    if (bits < 64) {
        data >>= c.lowbit;
        data &= (uint64_t{1} << bits) - 1;
    }
    const int base = c.mode & base_mask;
    const bool zero_fill = c.mode & fill, c_lang = c.mode & c_language;
    if (base == raw) {
        std::string s;
        for (unsigned i = 0; i < 8; ++i) {
            const unsigned byte = static_cast<unsigned>(data >> (8 * i)) & 0xFF;
            if (c_lang) s += format("%s0x%02x", i ? "," : "{", byte);
            else s += static_cast<char>(byte);
        }
        return c_lang ? s + "}\n" : s;
    }
    if (base == dec) {
        // msr-tools' sign handling: the top bit of the field is a sign and the
        // rest a magnitude (so all ones is -(2^(bits-1) - 1), not -1).
        if (data & (uint64_t{1} << (bits - 1))) {
            data &= ~(uint64_t{1} << (bits - 1));
            data = ~data + 1;
        }
        const long long v = static_cast<long long>(data);
        if (zero_fill && !c_lang) return format("%0*lld\n", decimal_digits(bits - 1) + 1, v);
        return format("%*lld\n", 1, v);
    }
    const unsigned long long v = data;
    if (base == uns) {
        if (c_lang) return format("%*lluU\n", 1, v);
        if (zero_fill) return format("%0*llu\n", decimal_digits(bits), v);
        return format("%*llu\n", 1, v);
    }
    const bool octal = base == oct;
    const int width = zero_fill ? static_cast<int>(octal ? (bits + 2) / 3 : (bits + 3) / 4) : 1;
    const char* prefix = c_lang ? (octal ? "0" : "0x") : "";
    const char* conv = octal ? "llo" : base == chx ? "llX" : "llx";
    const std::string pattern = std::string("%s%") + (zero_fill ? "0" : "") + "*" + conv + "\n";
    return format(pattern.c_str(), prefix, width, v);
}

bool run_rdmsr(const rdmsr_command& c, target& t, std::ostream& out, std::ostream& err) {
    const unsigned n = t.cpu_count();
    if (!c.all_cpus && c.cpu >= n) {
        err << "rdmsr: open: No such file or directory\n";
        return false;
    }
    const unsigned first = c.all_cpus ? 0 : c.cpu, last = c.all_cpus ? n : c.cpu + 1;
    for (unsigned cpu = first; cpu < last; ++cpu) {
        uint64_t v = 0;
        if (!t.msr_read(cpu, c.reg, v)) {
            err << format("rdmsr: CPU %u cannot read MSR 0x%08x\n", cpu, c.reg);
            return false;
        }
        // -a prefixes the CPU (msr-tools master; the 1.3 release printed values only),
        // except for raw output.
        out << format_msr_value(v, c);
    }
    return true;
}

bool run_wrmsr(const wrmsr_command& c, target& t, std::ostream& err) {
    const unsigned n = t.cpu_count();
    if (!c.all_cpus && c.cpu >= n) {
        err << "wrmsr: open: No such file or directory\n";
        return false;
    }
    const unsigned first = c.all_cpus ? 0 : c.cpu, last = c.all_cpus ? n : c.cpu + 1;
    for (unsigned cpu = first; cpu < last; ++cpu)
        for (const uint64_t v : c.values)
            if (!t.msr_write(cpu, c.reg, v)) {
                err << format("wrmsr: CPU %u cannot set MSR 0x%08x to 0x%016llx\n", cpu, c.reg,
                              static_cast<unsigned long long>(v));
                return false;
            }
    return true;
}

uint64_t read_or_ones(target& t, const pci_address& a, uint32_t offset, unsigned size) {
    uint64_t v = 0;
    return t.pci_read(a, offset, size, v) ? v : (uint64_t{1} << (8 * size)) - 1;
}

// pci_filter_match; class and programming interface come from configuration space.
bool filter_matches(const pci_filter& f, const pci_device_info& d, target& t) {
    if ((f.domain >= 0 && f.domain != d.addr.domain) || (f.bus >= 0 && f.bus != d.addr.bus) ||
        (f.slot >= 0 && f.slot != d.addr.dev) || (f.func >= 0 && f.func != d.addr.fn))
        return false;
    if ((f.device >= 0 && f.device != d.device) || (f.vendor >= 0 && f.vendor != d.vendor)) return false;
    if (f.device_class >= 0 &&
        ((static_cast<uint32_t>(f.device_class) ^ read_or_ones(t, d.addr, 0x0A, 2)) & f.device_class_mask))
        return false;
    if (f.prog_if >= 0 && static_cast<uint64_t>(f.prog_if) != read_or_ones(t, d.addr, 0x09, 1)) return false;
    return true;
}

const char* const kPciFailedRead = "pcilib: sysfs_read: read failed: Input/output error\n";
const char* const kPciFailedWrite = "pcilib: sysfs_write: write failed: Input/output error\n";

// setpci's exec_op on one device.
bool run_setpci_op(const setpci_command& c, const setpci_op& op, const pci_device_info& d, target& t,
                   std::ostream& out, std::ostream& err) {
    static const char* const formats[] = {nullptr, " %02x", " %04x", nullptr, " %08x"};
    static const char* const mask_formats[] = {nullptr, " %02x->(%02x:%02x)->%02x", " %04x->(%04x:%04x)->%04x",
                                               nullptr, " %08x->(%08x:%08x)->%08x"};
    const pci_address& a = d.addr;
    const std::string slot = format("%04x:%02x:%02x.%x", a.domain, a.bus, a.dev, a.fn);
    uint32_t addr = op.addr;
    const unsigned w = op.width;
    if (c.verbose) out << slot << " " << format("@%02x", addr);
    if (op.hdr_type_mask) {
        uint64_t h = 0;
        if (!t.pci_read(a, 0x0E, 1, h)) {
            err << kPciFailedRead;
            return false;
        }
        const unsigned type = static_cast<unsigned>(h) & 0x7F;
        if (type > 2 || !((1u << type) & op.hdr_type_mask)) {
            err << "setpci: " << slot << ": Does not have register " << op.name << ".\n";
            return false;
        }
    }
    if (op.values.empty()) {
        if (c.verbose) out << " = ";
        uint64_t x = 0;
        if (!t.pci_read(a, addr, w, x)) {
            err << kPciFailedRead;
            return false;
        }
        out << format(formats[w] + 1, static_cast<unsigned>(x)) << "\n";
        return true;
    }
    for (const setpci_value& v : op.values) {
        uint32_t x = v.value;
        if ((v.mask & kMaxValue[w]) == kMaxValue[w]) {
            if (c.verbose) out << format(formats[w], v.value);
        } else {
            uint64_t y = 0;
            if (!t.pci_read(a, addr, w, y)) {
                err << kPciFailedRead;
                return false;
            }
            x = (static_cast<uint32_t>(y) & ~v.mask) | v.value;
            if (c.verbose) out << format(mask_formats[w], static_cast<unsigned>(y), v.value, v.mask, x);
        }
        if (!c.demo && !t.pci_write(a, addr, w, x & kMaxValue[w])) {
            err << kPciFailedWrite;
            return false;
        }
        addr += w;
    }
    if (c.verbose) out << "\n";
    return true;
}

bool run_setpci(const setpci_command& c, target& t, std::ostream& out, std::ostream& err) {
    std::vector<pci_device_info> devices = t.pci_devices();
    std::stable_sort(devices.begin(), devices.end(), [](const pci_device_info& x, const pci_device_info& y) {
        return std::tie(x.addr.domain, x.addr.bus, x.addr.dev, x.addr.fn) <
               std::tie(y.addr.domain, y.addr.bus, y.addr.dev, y.addr.fn);
    });
    unsigned group_number = 0;
    for (const setpci_group& g : c.groups) {
        ++group_number;
        std::vector<const pci_device_info*> selected;
        for (const pci_device_info& d : devices)
            if (filter_matches(g.filter, d, t)) selected.push_back(&d);
        if (selected.empty() && !c.force)
            err << "setpci: Warning: No devices selected for operation group " << group_number << ".\n";
        for (const pci_device_info* d : selected)
            for (const setpci_op& op : g.ops)
                if (!run_setpci_op(c, op, *d, t, out, err)) return false;
    }
    return true;
}

template <class... F>
struct overloaded : F... {
    using F::operator()...;
};
template <class... F>
overloaded(F...) -> overloaded<F...>;

}  // namespace

script parse_script(std::istream& in, const std::string& filename, const script_options& options) {
    script s;
    s.filename = filename;
    std::string line;
    unsigned number = 0;
    while (std::getline(in, line)) {
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
