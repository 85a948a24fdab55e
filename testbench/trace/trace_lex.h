// The lexical pieces of the text trace formats (trace_reader.h): trimming,
// ASCII case folding, unsigned integers and ns times. All inline: the text
// decoder calls them several times per row, and a row costs tens of ns.
//
// Case folding is ASCII only. That is what std::tolower does in the "C"
// locale, which pmonsim never leaves, and it cannot make a non-ASCII byte
// equal to one of the (ASCII) names the formats know.
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>

#include "desc/clock.h"

namespace pmonsim::trace::lex {

inline char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }
inline char upper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c; }
inline bool is_digit(char c) { return static_cast<unsigned char>(c - '0') < 10; }
inline bool is_blank(char c) { return c == ' ' || c == '\t'; }

inline bool ieq(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (lower(a[i]) != lower(b[i])) return false;
    return true;
}

inline bool istarts(std::string_view s, std::string_view prefix) {
    return s.size() >= prefix.size() && ieq(s.substr(0, prefix.size()), prefix);
}

// Spaces and tabs off both ends.
inline std::string_view trim(std::string_view s) {
    const char* a = s.data();
    const char* b = a + s.size();
    while (a < b && is_blank(*a)) ++a;
    while (b > a && is_blank(b[-1])) --b;
    return std::string_view(a, static_cast<std::size_t>(b - a));
}

// A word of up to 7 characters, upper-cased, and its length as one number:
// named values are told apart by one switch instead of a string compare per
// name. 0 for an empty word or a longer one (no name of the formats is).
constexpr uint64_t word_key(std::string_view s) {
    if (s.empty() || s.size() > 7) return 0;
    uint64_t k = s.size();
    for (char c : s)
        k = (k << 8) | static_cast<unsigned char>((c >= 'a' && c <= 'z') ? c - 32 : c);
    return k;
}

// Decimal or 0x hex, no sign, no overflow.
inline bool parse_uint(std::string_view s, uint64_t& v) {
    constexpr uint64_t max = std::numeric_limits<uint64_t>::max();
    const std::size_t n = s.size();
    v = 0;
    if (n == 0) return false;
    if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        for (std::size_t i = 2; i < n; ++i) {
            const char c = lower(s[i]);
            unsigned d;
            if (is_digit(c)) d = unsigned(c - '0');
            else if (c >= 'a' && c <= 'f') d = unsigned(c - 'a' + 10);
            else return false;
            if (v > (max >> 4)) return false;
            v = (v << 4) | d;
        }
        return true;
    }
    // Up to 19 digits cannot overflow: no check per digit.
    if (n <= 19) {
        uint64_t x = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const unsigned d = static_cast<unsigned char>(s[i] - '0');
            if (d > 9) return false;
            x = x * 10 + d;
        }
        v = x;
        return true;
    }
    for (char c : s) {
        if (!is_digit(c)) return false;
        const unsigned d = unsigned(c - '0');
        if (v > (max - d) / 10) return false;
        v = v * 10 + d;
    }
    return true;
}

enum class num_result { ok, bad, too_large };

// "D+" or "D+.D+" ns to ps; digits past the third fractional one round half up.
inline num_result parse_ns(std::string_view s, time_ps& out) {
    constexpr uint64_t max = std::numeric_limits<uint64_t>::max();
    const std::size_t n = s.size();
    std::size_t i = 0;
    // The integer part: up to 19 digits fit in 64 bits; more are counted, not kept.
    uint64_t ip = 0;
    while (i < n && i < 19 && is_digit(s[i])) ip = ip * 10 + unsigned(s[i++] - '0');
    if (i == 0) return num_result::bad;
    bool big = false;
    if (i < n && is_digit(s[i])) {
        unsigned __int128 wide = ip;
        while (i < n && is_digit(s[i])) {
            if (!big) {
                wide = wide * 10 + unsigned(s[i] - '0');
                if (wide > max) big = true;
            }
            ++i;
        }
        ip = static_cast<uint64_t>(wide);
    }
    uint64_t frac = 0;
    unsigned round = 0;
    if (i < n && s[i] == '.') {
        ++i;
        const std::size_t first = i;
        while (i < n && is_digit(s[i])) {
            const std::size_t k = i - first;
            const unsigned d = unsigned(s[i] - '0');
            if (k < 3) frac = frac * 10 + d;
            else if (k == 3) round = d;
            ++i;
        }
        const std::size_t digits = i - first;
        if (digits == 0) return num_result::bad;
        for (std::size_t k = digits; k < 3; ++k) frac *= 10;
    }
    if (i != n) return num_result::bad;
    if (big) return num_result::too_large;
    const unsigned __int128 ps =
        static_cast<unsigned __int128>(ip) * 1000 + frac + (round >= 5 ? 1 : 0);
    if (ps > max) return num_result::too_large;
    out = static_cast<time_ps>(ps);
    return num_result::ok;
}

}  // namespace pmonsim::trace::lex
