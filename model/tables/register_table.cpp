#include "tables/register_table.h"

#include <cstdio>
#include <stdexcept>

#include "desc/bits.h"

namespace pmonsim {

const char* to_string(attr a) {
    switch (a) {
        case attr::rw: return "RW";
        case attr::rw_v: return "RW-V";
        case attr::wo: return "WO";
        case attr::rw1c: return "RW1C";
        case attr::rv: return "RV";
        case attr::rv_w1: return "RV (write 1)";
        case attr::ro: return "RO";
        case attr::ro_v: return "RO-V";
    }
    return "?";
}

uint64_t register_def::mask_of(attr a) const {
    uint64_t m = 0;
    for (const auto& f : fields)
        if (f.a == a) m |= bit_mask(f.hi, f.lo);
    return m;
}

uint64_t register_def::stored_mask() const {
    return mask_of(attr::rw) | mask_of(attr::rw_v) | mask_of(attr::rw1c) |
           mask_of(attr::rv_w1) | mask_of(attr::ro) | mask_of(attr::ro_v);
}

uint64_t merge_write(const register_def& r, uint64_t old, uint64_t value, uint64_t mask) {
    const uint64_t takes = (r.mask_of(attr::rw) | r.mask_of(attr::rw_v) | r.mask_of(attr::rv_w1)) & mask;
    return (old & ~takes) | (value & takes);
}

uint64_t clears_of(const register_def& r, uint64_t value, uint64_t mask) {
    return value & mask & r.mask_of(attr::rw1c);
}

uint64_t pulses_of(const register_def& r, uint64_t value, uint64_t mask) {
    return value & mask & r.mask_of(attr::wo);
}

static std::string hex(uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
    return b;
}

std::vector<std::string> write_problems(const register_def& r, uint64_t value, uint64_t mask) {
    std::vector<std::string> out;
    if (uint64_t bad = value & mask & r.mask_of(attr::rv))
        out.push_back("reserved bit(s) " + hex(bad) + " set; ignored");
    if (uint64_t w1 = r.mask_of(attr::rv_w1) & mask; w1 && (value & w1) != w1)
        out.push_back("bits " + hex(w1) + " must be written as 1");
    return out;
}

// BOX_CTL of the MSR boxes with registers of their own (caching agents, PCU).
std::vector<field_def> msr_box_ctl_fields(box_ctl_style style) {
    namespace b = box_ctl_bits;
    std::vector<field_def> f = {{"rsv", 63, 32, attr::rv, "reserved"}};
    switch (style) {
        case box_ctl_style::frz_en:
            f.push_back({"rsv", 31, 18, attr::rv, "reserved"});
            f.push_back({"rsv", 17, 17, attr::rv, "reserved"});
            f.push_back(fd(b::frz_en, attr::rw, "the box obeys frz only when set"));
            f.push_back({"rsv", 15, 9, attr::rv, "reserved"});
            f.push_back(fd(b::frz, attr::rw, "freeze the box's counters (with frz_en)"));
            break;
        case box_ctl_style::write1_16_17:
            f.push_back({"ig", 31, 18, attr::rv, "ignored"});
            f.push_back(fd(b::write1, attr::rv_w1, "software must write 1; stored, no effect"));
            f.push_back({"ig", 15, 9, attr::rv, "ignored"});
            f.push_back(fd(b::frz, attr::rw, "freeze the box's counters"));
            break;
        case box_ctl_style::none:
        case box_ctl_style::frz_en_no_resets: throw std::logic_error("an MSR box's BOX_CTL of another style");
    }
    f.push_back({"rsv", 7, 2, attr::rv, "reserved"});
    f.push_back(fd(b::rst_ctrs, attr::wo, "writing 1 clears the box's counters"));
    f.push_back(fd(b::rst_ctrl, attr::wo, "writing 1 clears the box's counter controls"));
    return f;
}

register_def msr_counter(const std::string& name, uint32_t msr, unsigned width, reg_role role, uint8_t index) {
    const uint8_t w = static_cast<uint8_t>(width);
    return {name, msr, 8, 0, role, index,
            {{"rsv", 63, w, attr::rv, "reserved"},
             {"event_count", static_cast<uint8_t>(w - 1), 0, attr::rw_v,
              "counter value, wraps at 2^" + std::to_string(width)}}};
}

const register_def* register_table::find(uint32_t offset) const {
    for (const auto& r : regs)
        if (msr_space ? offset == r.offset : offset >= r.offset && offset < r.offset + r.size)
            return &r;
    return nullptr;
}

const register_def* register_table::find(const std::string& name) const {
    for (const auto& r : regs)
        if (r.name == name) return &r;
    return nullptr;
}

}  // namespace pmonsim
