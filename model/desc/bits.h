// Bit-field helpers shared by the register tables and the counter logic.
#pragma once
#include <cstdint>

namespace pmonsim {

constexpr uint64_t bit_mask(unsigned hi, unsigned lo) {
    return (hi - lo + 1 >= 64 ? ~0ull : ((1ull << (hi - lo + 1)) - 1)) << lo;
}
constexpr uint64_t get_bits(uint64_t v, unsigned hi, unsigned lo) {
    return (v & bit_mask(hi, lo)) >> lo;
}
constexpr bool get_bit(uint64_t v, unsigned b) { return (v >> b) & 1u; }
constexpr uint64_t width_mask(unsigned width) {
    return width >= 64 ? ~0ull : (1ull << width) - 1;
}

}  // namespace pmonsim
