// The per-counter conditioning pipeline shared by every box (327043-001 §2.1
// and the box CTL tables; DECISIONS.md "Counter control"): threshold, invert,
// edge detect. Written once as the per-cycle rule and once in closed form over
// a run of cycles with a constant increment; the differential tests hold the
// two against each other.
#pragma once
#include <cstdint>

namespace pmonsim {

struct conditioning {
    uint32_t thresh = 0;
    bool invert = false;
    bool edge = false;
};

// One cycle: the amount added to the counter. `prev` is the previous compare
// result, used by edge detection.
inline uint64_t condition_cycle(const conditioning& c, uint32_t inc, bool& prev) {
    if (c.thresh == 0) return inc;  // invert and edge are ignored without a threshold
    const bool hit = c.invert ? inc < c.thresh : inc >= c.thresh;
    const uint64_t add = c.edge ? (hit && !prev) : hit;
    prev = hit;
    return add;
}

// n >= 1 cycles of constant increment: what the first cycle adds and what
// each later cycle adds.
struct run_adds {
    uint64_t first;
    uint64_t rest;
};

// (In masks, not branches: a replay asks for counters of every kind in turn,
// and the answers to "threshold? edge?" then follow no pattern.)
inline run_adds condition_run(const conditioning& c, uint32_t inc, bool prev) {
    const uint64_t raw = 0 - static_cast<uint64_t>(c.thresh == 0);  // no threshold: the increment
    const uint64_t edge = 0 - static_cast<uint64_t>(c.edge);
    const uint64_t hit = static_cast<uint64_t>((inc >= c.thresh) != c.invert);
    const uint64_t first = hit & (static_cast<uint64_t>(!prev) | ~edge);  // with edge: a rising compare
    const uint64_t rest = hit & ~edge;
    return {(inc & raw) | (first & ~raw), (inc & raw) | (rest & ~raw)};
}

// The compare result after a run (edge state to carry forward).
inline bool condition_after_run(const conditioning& c, uint32_t inc, bool prev) {
    const bool hit = (inc >= c.thresh) != c.invert;
    return prev != ((prev != hit) & (c.thresh != 0));  // no threshold: kept
}

}  // namespace pmonsim
