// setpci of the register-access script language (script.h): device
// selectors, registers and values, and running them on a target.
//
// Modelled on pciutils' setpci.c (parse_options, parse_filter, parse_op,
// parse_register, parse_x32, select_devices, execute, exec_op) and
// lib/filter.c (pci_filter_parse_slot, pci_filter_parse_id, parse_hex_field,
// pci_filter_match). The differences from the real tool are listed at the top
// of script.cpp.
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "driver/script/script_detail.h"

namespace pmonsim::driver::script_detail {

namespace {

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

}  // namespace

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
            setpci_group& g = c.groups.back();
            g.selection += (g.selection.empty() ? "-" : " -") + std::string(1, kind) + " " + d;
            pci_filter& f = g.filter;
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

// --- Running -------------------------------------------------------------------------------

namespace {

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

}  // namespace

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
        if (selected.empty() && !c.force) {
            err << "setpci: Warning: No devices selected for operation group " << group_number << ".\n";
            t.no_device_selected(g.selection);
        }
        for (const pci_device_info* d : selected)
            for (const setpci_op& op : g.ops)
                if (!run_setpci_op(c, op, *d, t, out, err)) return false;
    }
    return true;
}

}  // namespace pmonsim::driver::script_detail
