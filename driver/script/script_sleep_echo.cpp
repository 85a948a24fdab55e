// sleep and echo of the register-access script language (script.h): parsing
// their operands. run_script runs them (sleep advances the target's time,
// echo prints its text).
//
// sleep follows GNU coreutils sleep (operands summed, suffixes s/m/h/d); echo
// takes only what dash's and bash's builtin echo treat alike. The differences
// from the real tools are listed at the top of script.cpp.
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "driver/script/script_detail.h"

namespace pmonsim::driver::script_detail {

namespace {

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

}  // namespace

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

}  // namespace pmonsim::driver::script_detail
