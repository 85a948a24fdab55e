// Internals of the register-access script language (script.h) shared by its
// source files: the error of one bad line and the message helpers, glibc's
// strtoul (defined in script_number.cpp), and the parse and run functions of
// each command, which script.cpp dispatches to:
//   - script_msr.cpp: msr-tools' rdmsr and wrmsr;
//   - script_setpci.cpp: pciutils' setpci;
//   - script_sleep_echo.cpp: coreutils' sleep and sh's echo (run_script runs
//     them itself).
#pragma once
#include <algorithm>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <iosfwd>
#include <string>
#include <vector>

#include "driver/script/script.h"
#include "driver/target.h"

namespace pmonsim::driver::script_detail {

// A bad line; parse_script adds the file name and line number.
struct bad_line {
    std::string message;
};

[[noreturn]] inline void fail(const std::string& message) { throw bad_line{message}; }

inline std::string quoted(const std::string& s) { return "'" + s + "'"; }

__attribute__((format(printf, 1, 2))) inline std::string format(const char* fmt, ...) {
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

int digit_value(char c);

c_number c_strtoul(const std::string& s, int base);

// --- The commands ----------------------------------------------------------------------

// script_msr.cpp
rdmsr_command parse_rdmsr(const std::vector<std::string>& args);
wrmsr_command parse_wrmsr(const std::vector<std::string>& args);
bool run_rdmsr(const rdmsr_command& c, target& t, std::ostream& out, std::ostream& err);
bool run_wrmsr(const wrmsr_command& c, target& t, std::ostream& err);

// script_setpci.cpp
setpci_command parse_setpci(const std::vector<std::string>& a, bool only_writes);
bool run_setpci(const setpci_command& c, target& t, std::ostream& out, std::ostream& err);

// script_sleep_echo.cpp
sleep_command parse_sleep(const std::vector<std::string>& args);
echo_command parse_echo(const std::vector<std::string>& args);

}  // namespace pmonsim::driver::script_detail
