// The wording of the trace readers' messages (trace_detail.h).
#include "trace/trace_detail.h"

#include <cstdio>

#include "desc/qpi_packet.h"

namespace pmonsim::trace::detail {

std::string fmt_ns(time_ps t) {
    std::string s = std::to_string(t / 1000);
    const unsigned frac = unsigned(t % 1000);
    if (frac) {
        char buf[8];
        std::snprintf(buf, sizeof buf, ".%03u", frac);
        std::string f = buf;
        while (f.back() == '0') f.pop_back();
        s += f;
    }
    return s + " ns";
}

std::string time_range_text(time_ps t) {
    return fmt_ns(t) + ", about " + std::to_string(t / 86'400'000'000'000'000ull) + " days";
}

std::string hex2(unsigned v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%02x", v);
    return buf;
}

std::string range_text(unsigned n, const char* one, const char* many) {
    if (n == 0) return std::string("no ") + many;
    std::string s = std::to_string(n) + ' ' + (n == 1 ? one : many) + ": 0";
    if (n > 1) s += '-' + std::to_string(n - 1);
    return s;
}

const char* mc_text(unsigned mc) {
    switch (mc) {
        case qpi_mc::hom0: return "HOM0";
        case qpi_mc::hom1: return "HOM1";
        case qpi_mc::snp: return "SNP";
        case qpi_mc::ndr: return "NDR";
        case qpi_mc::ncs: return "NCS";
        case qpi_mc::ncb: return "NCB";
        case qpi_mc::drs: return "DRS";
        default: return nullptr;
    }
}

std::string mc_name(unsigned mc) {
    const char* t = mc_text(mc);
    return t ? std::string(t) : "MC " + std::to_string(mc);
}

std::string sub_list(const event_def& ev) {
    const uint8_t valid = ev.valid_umask();
    std::string s;
    if (ev.enumerated) {
        for (size_t k = 0; k < ev.encodings().size(); ++k)
            s += (s.empty() ? "" : ", ") + ev.sub_name(static_cast<int>(k));
        return s;
    }
    for (int b = 0; b < 8; ++b) {
        if (!(valid & (1u << b))) continue;
        std::string n = "bit" + std::to_string(b);
        for (const auto& u : ev.umasks)
            if (u.value == (1u << b)) n = u.name;
        s += (s.empty() ? "" : ", ") + n;
    }
    return s;
}

std::string quoted(std::string_view v) {
    constexpr std::size_t cut = 48;
    std::string s = "'";
    if (v.size() > cut) {
        s.append(v.substr(0, cut));
        s += "...";
    } else {
        s.append(v);
    }
    return s + "'";
}

}  // namespace pmonsim::trace::detail
