// Byte-lane access to a register table: a 1/2/4/8-byte PCI configuration
// access (or a whole MSR) becomes whole-register reads and writes with a mask
// of the bits the access covers, so a dword write to a 64-bit counter changes
// only its own half and WO/RW1C bits outside the written bytes never act.
#pragma once
#include <cstdint>
#include <algorithm>
#include <functional>

#include "tables/register_table.h"

namespace pmonsim {

struct register_handlers {
    std::function<uint64_t(const register_def&, uint64_t mask)> read;
    std::function<void(const register_def&, uint64_t value, uint64_t mask)> write;
    // A byte inside the function that no register covers.
    std::function<void(uint32_t offset, unsigned size, bool is_write, uint64_t value)> unmodelled;
};

// Calls fn(register, first byte in the register, bytes, first byte of the
// access) for each register the access touches; true if a byte had none.
template <typename Fn>
bool for_each_register(const register_table& t, uint32_t offset, unsigned size, Fn fn) {
    bool hole = false;
    for (unsigned b = 0; b < size;) {
        const register_def* r = t.find(offset + b);
        if (!r) { hole = true; ++b; continue; }
        const unsigned first = offset + b - r->offset;
        const unsigned n = std::min<unsigned>(r->size - first, size - b);
        fn(*r, first, n, b);
        b += n;
    }
    return hole;
}

inline uint64_t lanes(unsigned bytes) { return bytes >= 8 ? ~0ull : (1ull << (8 * bytes)) - 1; }

inline uint64_t access_read(const register_table& t, uint32_t offset, unsigned size,
                            const register_handlers& h) {
    uint64_t out = 0;
    const bool hole = for_each_register(t, offset, size, [&](const register_def& r, unsigned first,
                                                             unsigned n, unsigned b) {
        const uint64_t mask = lanes(n) << (8 * first);
        out |= ((h.read(r, mask) & mask) >> (8 * first)) << (8 * b);
    });
    if (hole && h.unmodelled) h.unmodelled(offset, size, false, 0);
    return out;
}

inline void access_write(const register_table& t, uint32_t offset, unsigned size, uint64_t value,
                         const register_handlers& h) {
    const bool hole = for_each_register(t, offset, size, [&](const register_def& r, unsigned first,
                                                             unsigned n, unsigned b) {
        h.write(r, ((value >> (8 * b)) & lanes(n)) << (8 * first), lanes(n) << (8 * first));
    });
    if (hole && h.unmodelled) h.unmodelled(offset, size, true, value);
}

}  // namespace pmonsim
