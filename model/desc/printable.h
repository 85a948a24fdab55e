// Text from an input as a message may show it: a NUL or another control byte
// would cut a message short (what() is a C string) or garble the terminal, so
// each is written as \xNN. (Here, in the lowest library, because the trace
// readers and the script dialect both quote their input in errors.)
#pragma once
#include <string>
#include <string_view>

namespace pmonsim {

inline std::string printable(std::string_view s) {
    static const char hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(s.size());
    for (const char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (u >= 0x20 || c == '\t') out += c;
        else out += {'\\', 'x', hex[u >> 4], hex[u & 15]};
    }
    return out;
}

}  // namespace pmonsim
