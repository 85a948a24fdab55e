// rdmsr and wrmsr of the register-access script language (script.h): their
// options, the output formats of rdmsr, and running them on a target.
//
// Modelled on intel/msr-tools master (rdmsr.c, wrmsr.c: main, rdmsr_on_cpu,
// rdmsr_on_all_cpus, wrmsr_on_cpu), with the output of the 1.3 release that
// Debian ships; options are parsed the way glibc's getopt_long does. The
// differences from the real tools are listed at the top of script.cpp.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <ostream>
#include <string>
#include <vector>

#include "driver/script/script_detail.h"

namespace pmonsim::driver::script_detail {

namespace {

// --- C integers ------------------------------------------------------------------------

// A register number or value of rdmsr/wrmsr: strtoul base 0, the whole word.
bool whole_c_number(const std::string& s, uint64_t& value) {
    const c_number r = c_strtoul(s, 0);
    if (s.empty() || r.end != s.size() || r.overflow) return false;
    value = r.value;
    return true;
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

}  // namespace

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

// --- Running -------------------------------------------------------------------------------

namespace {

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

}  // namespace

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

}  // namespace pmonsim::driver::script_detail
