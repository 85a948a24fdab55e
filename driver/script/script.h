// The register-access script language of the pmonsim tool.
//
// A script is a small subset of sh that runs msr-tools' rdmsr/wrmsr,
// pciutils' setpci, sleep and echo, one command per line. The same file runs
// under `sh -e` on a real machine with msr-tools, pciutils and coreutils
// installed, so every command takes the options of the real tool and prints
// exactly what the real tool prints (see run_script for the known
// differences). Plain C++: it talks to a driver::target only.
//
// Syntax (what sh would do with the line, restricted to what is portable):
//   - Words are separated by spaces and tabs. '#' at the start of a word
//     starts a comment that runs to the end of the line; inside a word or
//     inside quotes it is an ordinary character. Blank lines are ignored.
//   - '...' quotes literally; "..." quotes literally but may not contain $, `
//     or a backslash (sh would expand them). A word may mix quoted and
//     unquoted parts ('a'b is ab).
//   - Rejected, because sh would give them a meaning this runner does not
//     have: unquoted | & ; < > ( ) { } $ ` * ? [ , a backslash anywhere, ~ at
//     the start of a word, a carriage return (DOS line ending).
//   - Commands: rdmsr, wrmsr, setpci, sleep, echo, and `set -e` (accepted and
//     ignored: a run always stops at the first failing command, like sh -e).
//
// Commands:
//   wrmsr [-p CPU] [-a] REG VALUE...   (GNU getopt: options may follow operands)
//   rdmsr [-p CPU] [-a] [-x|-X|-d|-u|-o|-r] [-c] [-0] [-f HI:LO] REG
//   setpci [-v] [-f] [-D] [-r] (-s SLOT | -d ID)... REG[+OFF][.B|.W|.L][@N][=VAL[:MASK][,VAL...]]...
//   sleep NUMBER[s|m|h|d]...           (decimal, fraction allowed; summed like coreutils)
//   echo [-n] WORD...                  (words joined by one space)
// Numbers of rdmsr/wrmsr are C integers (strtoul base 0); setpci numbers are
// hexadecimal with or without 0x. See script.cpp for the details of each.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "driver/target.h"

namespace pmonsim::driver {

// A bad script: what() is "FILE:LINE: MESSAGE", the message naming the bad token.
// The longest line a script may have.
constexpr std::size_t max_script_line = 65536;

class script_error : public std::runtime_error {
public:
    script_error(const std::string& file, unsigned line, const std::string& message);
    const std::string& file() const { return file_; }
    unsigned line() const { return line_; }
    const std::string& message() const { return message_; }

private:
    std::string file_;
    unsigned line_;
    std::string message_;
};

struct script_options {
    // For --program files: only writes (wrmsr, setpci writes), echo and `set -e`;
    // rdmsr, setpci reads and sleep are errors.
    bool only_writes = false;
};

// rdmsr's output mode, msr-tools' encoding: a base in the low bits, plus flags.
namespace rdmsr_mode {
constexpr int hex = 0x01, dec = 0x02, oct = 0x03, raw = 0x04, uns = 0x05, chx = 0x06;
constexpr int base_mask = 0x0f, fill = 0x40, c_language = 0x80;
}  // namespace rdmsr_mode

struct rdmsr_command {
    bool all_cpus = false;
    unsigned cpu = 0;
    uint32_t reg = 0;
    int mode = rdmsr_mode::hex;
    unsigned highbit = 63, lowbit = 0;
};

struct wrmsr_command {
    bool all_cpus = false;
    unsigned cpu = 0;
    uint32_t reg = 0;
    std::vector<uint64_t> values;  // written in turn
};

// libpci's device filter; -1 (or an all-zero mask) means "any".
struct pci_filter {
    int64_t domain = -1, bus = -1, slot = -1, func = -1;
    int64_t vendor = -1, device = -1;
    int64_t device_class = -1;  // class and subclass (config word 0x0A)
    uint32_t device_class_mask = ~0u;
    int64_t prog_if = -1;       // config byte 0x09
};

struct setpci_value {
    uint32_t value = 0;
    uint32_t mask = ~0u;  // all ones: plain write; otherwise read-modify-write
};

struct setpci_op {
    std::string name;            // the symbolic register name, if one was used
    unsigned hdr_type_mask = 0;  // symbolic names valid for header types (bit n = type n)
    uint32_t addr = 0;
    unsigned width = 0;          // 1, 2 or 4
    std::vector<setpci_value> values;  // empty: a read; else consecutive registers written
};

struct setpci_group {
    pci_filter filter;
    std::vector<setpci_op> ops;
    std::string selection;  // the group's -s/-d options as written ("-s ff:08.2")
};

struct setpci_command {
    int verbose = 0;
    bool force = false, demo = false, raw = false;
    std::vector<setpci_group> groups;
};

struct sleep_command {
    uint64_t ps = 0;
};

struct echo_command {
    std::string text;
    bool newline = true;
};

struct script_command {
    unsigned line = 0;
    std::string source;  // the line as written
    std::variant<rdmsr_command, wrmsr_command, setpci_command, sleep_command, echo_command> cmd;
};

struct script {
    std::string filename;
    std::vector<script_command> commands;
};

// Parses the whole script before anything runs; the first bad line throws script_error.
script parse_script(std::istream& in, const std::string& filename, const script_options& options = {});

// The status run_script returns when a command fails (like sh -e after rdmsr's
// "cannot read MSR", which exits 4); also used where the real tool exits with
// another status (see script.cpp).
constexpr int script_failure_status = 4;

// Runs the commands in order. Output goes to `out`, the real tools' error
// messages to `err`. Returns 0, or script_failure_status at the first failing
// command (nothing after it runs).
int run_script(const script& s, target& t, std::ostream& out, std::ostream& err);

}  // namespace pmonsim::driver
