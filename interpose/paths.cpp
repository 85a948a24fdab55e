#include "interpose/paths.h"

#include <cstring>

namespace pmonsim::interpose {

namespace {

// A prefix matches itself and what lies below it ("/dev/cpu" is not
// "/dev/cpuset"); an open-ended one also matches any continuation of its last
// component ("/sys/devices/pci" covers every "pci0000:BB"); an exact one only
// itself: a directory whose listing is the machine's while the host's
// entries below it that the machine does not replace stay the host's.
enum class match { tree, open_ended, exact };
struct served_prefix {
    const char* path;
    match how;
};
constexpr served_prefix kServed[] = {
    {"/proc/cpuinfo", match::tree},
    {"/proc/bus/pci", match::tree},
    {"/proc/sys/kernel/nmi_watchdog", match::tree},
    {"/proc/sys/kernel/perf_event_paranoid", match::tree},
    // /sys/devices lists the machine's PCI roots and system/ (a tool that
    // finds the host's pci0000:00 there could not open it), its system/ the
    // machine's cpu and node.
    {"/sys/devices", match::exact},
    {"/sys/devices/system", match::exact},
    {"/sys/devices/system/cpu", match::tree},
    {"/sys/devices/system/node", match::tree},
    {"/sys/bus/pci/devices", match::tree},
    {"/sys/bus/event_source", match::tree},  // the kernel's perf PMUs: the machine's (likwid writes there)
    {"/sys/devices/pci", match::open_ended},
    {"/sys/devices/uncore_", match::open_ended},  // the uncore PMUs (perf_event_open's types)
    {"/sys/devices/cpu", match::tree},            // the core PMU (the host's is not the machine's)
    {"/sys/firmware/acpi/tables/MCFG", match::open_ended},
    {"/sys/module/msr", match::tree},
    {"/dev/cpu", match::tree},
    {"/dev/msr", match::open_ended},  // the BSD names pcm tries: absent, as on Linux
};

bool parse_hex(const char*& p, unsigned digits, unsigned& v) {
    v = 0;
    for (unsigned i = 0; i < digits; ++i, ++p) {
        const char c = *p;
        unsigned d;
        if (c >= '0' && c <= '9') d = static_cast<unsigned>(c - '0');
        else if (c >= 'a' && c <= 'f') d = static_cast<unsigned>(c - 'a' + 10);
        else return false;
        v = v * 16 + d;
    }
    return true;
}

bool eat(const char*& p, const char* s) {
    const size_t n = std::strlen(s);
    if (std::strncmp(p, s, n) != 0) return false;
    p += n;
    return true;
}

// "BB:DD.F" (sysfs) or "BB/DD.F" (procfs) with separator `sep`.
bool parse_slot(const char*& p, char sep, uint32_t& bdf) {
    unsigned bus, dev, fn;
    if (!parse_hex(p, 2, bus) || *p++ != sep || !parse_hex(p, 2, dev) || *p++ != '.' || !parse_hex(p, 1, fn) ||
        dev > 31 || fn > 7)
        return false;
    bdf = bus << 8 | dev << 3 | fn;
    return true;
}

}  // namespace

bool normalize_path(const char* path, char* out, size_t cap) {
    if (!path || path[0] != '/' || cap < 2) return false;
    size_t n = 0;
    const char* p = path;
    while (*p) {
        while (*p == '/') ++p;
        if (!*p) break;
        const char* e = p;
        while (*e && *e != '/') ++e;
        const size_t len = static_cast<size_t>(e - p);
        if (len == 1 && p[0] == '.') {
        } else if (len == 2 && p[0] == '.' && p[1] == '.') {
            while (n > 0 && out[n - 1] != '/') --n;
            if (n > 0) --n;  // the '/' before the removed component
        } else {
            if (n + 1 + len + 1 > cap) return false;
            out[n++] = '/';
            std::memcpy(out + n, p, len);
            n += len;
        }
        p = e;
    }
    if (n == 0) out[n++] = '/';
    out[n] = 0;
    return true;
}

bool is_served(const char* p, const char* hidden) {
    for (const served_prefix& s : kServed) {
        const size_t n = std::strlen(s.path);
        if (std::strncmp(p, s.path, n) != 0) continue;
        if (p[n] == 0 || (s.how == match::tree && p[n] == '/') || s.how == match::open_ended) return true;
    }
    for (const char* h = hidden; *h;) {
        const char* e = std::strchr(h, '\n');
        if (!e) return false;  // (an unended entry: the list is cut; the server never sends one)
        const size_t n = static_cast<size_t>(e - h);
        if (n > 1 && std::strncmp(p, h, n) == 0 && (p[n] == 0 || p[n] == '/')) return true;
        h = e + 1;
    }
    return false;
}

live_file classify(const char* p) {
    live_file f;
    if (eat(p, "dev/cpu/")) {
        unsigned cpu = 0;
        const char* start = p;
        while (*p >= '0' && *p <= '9' && p - start < 6) cpu = cpu * 10 + static_cast<unsigned>(*p++ - '0');
        if (p == start || std::strcmp(p, "/msr") != 0) return f;
        f.kind = live_file::msr;
        f.id = cpu;
        return f;
    }
    uint32_t bdf = 0;
    if (eat(p, "sys/devices/pci0000:")) {
        unsigned bus;
        if (!parse_hex(p, 2, bus) || !eat(p, "/0000:") || !parse_slot(p, ':', bdf) || (bdf >> 8) != bus ||
            std::strcmp(p, "/config") != 0)
            return f;
    } else if (eat(p, "proc/bus/pci/")) {
        if (!parse_slot(p, '/', bdf) || *p) return f;
    } else {
        return f;
    }
    f.kind = live_file::pci_config;
    f.id = bdf;
    return f;
}

}  // namespace pmonsim::interpose
