// C integers as glibc's strtoul reads them (script_detail.h), for rdmsr's and
// wrmsr's numbers (base 0) and setpci's (base 16).
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>

#include "driver/script/script_detail.h"

namespace pmonsim::driver::script_detail {

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

}  // namespace pmonsim::driver::script_detail
