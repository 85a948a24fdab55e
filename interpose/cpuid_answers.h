// CPUID as the served machine answers it, for the logical CPU a thread is on:
// built from the server's machine description (serve/protocol.h), so a CPU
// added to the model is answered without new code here. Leaves: 0 (vendor,
// highest leaf 0xD), 1 (signature, APIC ID, features), 4 (caches), 6
// (thermal/power), 7 (extended features), 0xA (architectural PMU: version 3,
// 4 general counters of 48 bits with Hyper-Threading (8 without), 3 fixed),
// 0xB (x2APIC topology), 0x80000000-0x80000008 (brand, invariant TSC,
// address sizes); any other leaf reads zeros. Async-signal-safe.
#pragma once
#include <cstdint>

#include "serve/protocol.h"

namespace pmonsim::interpose {

void answer_cpuid(const wire::machine& m, unsigned cpu, uint32_t leaf, uint32_t subleaf, uint32_t out[4]);

// The x2APIC ID of a logical CPU of the machine (what leaf 0xB reports in EDX).
uint32_t apic_id_of(const wire::machine& m, unsigned cpu);

}  // namespace pmonsim::interpose
