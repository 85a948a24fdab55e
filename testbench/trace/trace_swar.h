// Word-at-a-time pieces of the text decoder's fast path: the commas of a
// line, a short decimal number, a short name folded to lower case. Byte loops
// over fields of varying length mispredict their exits about once per field;
// these do the same work with a fixed sequence of instructions.
//
// All are forced inline: each is a few instructions, called several times per
// row. Every function reads whole words from its pointer: the caller guarantees
// that the bytes up to 64 past the end of the text are readable (line_reader
// and source_buf pad their buffers for this). Bytes past the text's length
// are read but never matter.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace pmonsim::trace::swar {

constexpr uint64_t ones = 0x0101010101010101ull;
constexpr uint64_t highs = 0x8080808080808080ull;

__attribute__((always_inline)) inline uint64_t load8(const char* p) {
    uint64_t w;
    std::memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);  // the first byte in the lowest bits, as below
#endif
    return w;
}

// The low n bytes of a word (n <= 8).
__attribute__((always_inline)) inline uint64_t low_bytes(unsigned n) { return n >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * n)) - 1; }

// High bit of each byte set where the byte is 0 (exact: no borrow between bytes).
__attribute__((always_inline)) inline uint64_t zero_bytes(uint64_t w) {
    const uint64_t t = (w & ~highs) + ~highs;  // high bit set where the low 7 bits are not 0
    return ~(t | w | ~highs);
}

// Bit i set where p[i] is a comma, for i < n (n <= 64): a word at a time
// (comma_mask() where there is no SSE2; tested everywhere).
inline uint64_t comma_mask_words(const char* p, std::size_t n) {
    uint64_t m = 0;
    for (unsigned k = 0; k < 8; ++k) {
        const uint64_t z = zero_bytes(load8(p + 8 * k) ^ (ones * ',')) >> 7;  // bit 8j: byte j
        const uint64_t bits = (z * 0x0102040810204080ull) >> 56;  // bit j: byte j
        m |= bits << (8 * k);
    }
    return n >= 64 ? m : m & ((uint64_t{1} << n) - 1);
}

// The same, 16 bytes at a time where SSE2 is there (every x86-64).
__attribute__((always_inline)) inline uint64_t comma_mask(const char* p, std::size_t n) {
#if defined(__SSE2__)
    uint64_t m = 0;
    const __m128i comma = _mm_set1_epi8(',');
    const unsigned blocks = n >= 64 ? 4u : static_cast<unsigned>(n + 15) / 16;  // (a row is usually 1 or 2)
    for (unsigned k = 0; k < blocks; ++k) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
        const auto bits = static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, comma)));
        m |= uint64_t{bits} << (16 * k);
    }
    return n >= 64 ? m : m & ((uint64_t{1} << n) - 1);
#else
    return comma_mask_words(p, n);
#endif
}

// The value of p[0..len) if it is 1-8 decimal digits.
__attribute__((always_inline)) inline bool digits8(const char* p, unsigned len, uint64_t& v) {
    const uint64_t keep = low_bytes(len);
    const uint64_t d = (load8(p) ^ (ones * '0')) & keep;  // digits become 0-9
    // A byte above 9 (or with its high bit set) is not a digit.
    if (((((d & ~highs) + ones * (0x80 - 10)) | d) & highs & keep) != 0) return false;
    // Right-align the digits (leading zero bytes are leading zeros), then
    // combine pairs, quads, octets.
    uint64_t x = d << (8 * (8 - len));
    x = (x * 10 + (x >> 8)) & 0x00FF00FF00FF00FFull;
    x = (x * 100 + (x >> 16)) & 0x0000FFFF0000FFFFull;
    x = (x * 10000 + (x >> 32)) & 0x00000000FFFFFFFFull;
    v = x;
    return true;
}

// p[0..len) (1-7 bytes) with ASCII letters in lower case, and its length, as
// one number; name_key() of the same word in any case is equal.
__attribute__((always_inline)) inline uint64_t key7(const char* p, unsigned len) {
    const uint64_t w = load8(p) & low_bytes(len);
    const uint64_t low7 = w & ~highs;
    const uint64_t ge_a = low7 + ones * (0x80 - 'A');      // high bit: byte >= 'A'
    const uint64_t gt_z = low7 + ones * (0x80 - 'Z' - 1);  // high bit: byte > 'Z'
    const uint64_t upper = ge_a & ~gt_z & ~w & highs;
    return (w | (upper >> 2)) | (uint64_t{len} << 56);
}

// key7() of a name written in lower case (1-7 characters).
constexpr uint64_t name_key(const char* s) {
    uint64_t k = 0;
    unsigned n = 0;
    for (; s[n]; ++n) k |= uint64_t(static_cast<unsigned char>(s[n])) << (8 * n);
    return k | (uint64_t{n} << 56);
}

// Names (key7() keys) and their values, found with one multiplication: a
// multiplier chosen at compile time (make_name_table) sends each name to a
// slot of its own among 2^Bits, so a key is looked up by comparing the one
// slot it lands in, with no loop over the names and no branch.
template <unsigned Bits>
struct name_table {
    static constexpr unsigned slots = 1u << Bits;
    static constexpr uint64_t empty = ~uint64_t{0};  // no key7() (its length byte is at most 7)
    uint64_t mul = 0;
    uint64_t keys[slots] = {};
    uint8_t values[slots] = {};

    constexpr unsigned slot(uint64_t k) const { return static_cast<unsigned>((k * mul) >> (64 - Bits)); }
    // The value of the name with key k, or ~0u (k == 0, no name, included).
    __attribute__((always_inline)) unsigned find(uint64_t k) const {
        const unsigned s = slot(k);
        return keys[s] == k ? values[s] : ~0u;
    }
};

// The table of keys[i] -> values[i] (distinct keys; a repeated key never
// fits, and compiling stops at the constexpr evaluation's limit).
template <unsigned Bits, class Keys, class Values>
constexpr name_table<Bits> make_name_table(const Keys& keys, const Values& values) {
    name_table<Bits> t;
    for (uint64_t m = 0x9E3779B97F4A7C15ull;; m += 0xD1B54A32D192ED03ull) {  // odd multipliers, well spread
        t.mul = m | 1;
        for (uint64_t& k : t.keys) k = t.empty;
        bool fits = true;
        for (std::size_t i = 0; fits && i < std::size(keys); ++i) {
            const unsigned s = t.slot(keys[i]);
            fits = t.keys[s] == t.empty;
            t.keys[s] = keys[i];
            t.values[s] = static_cast<uint8_t>(values[i]);
        }
        if (fits) return t;
    }
}

}  // namespace pmonsim::trace::swar
