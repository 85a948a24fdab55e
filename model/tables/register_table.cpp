#include "tables/register_table.h"

#include "core/bits.h"

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

const register_def* register_table::find(uint32_t offset) const {
    for (const auto& r : regs)
        if (offset >= r.offset && offset < r.offset + r.size) return &r;
    return nullptr;
}

const register_def* register_table::find(const std::string& name) const {
    for (const auto& r : regs)
        if (r.name == name) return &r;
    return nullptr;
}

}  // namespace pmonsim
