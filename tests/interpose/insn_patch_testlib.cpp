// A library the insn_patch test loads with dlopen after installing the traps:
// its cpuid must be answered only once patch_new_objects() has run.
#include <cstdint>

extern "C" __attribute__((visibility("default"), noinline)) void
pmonsim_testlib_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t out[4]) {
    asm volatile("cpuid" : "=a"(out[0]), "=b"(out[1]), "=c"(out[2]), "=d"(out[3]) : "a"(leaf), "c"(subleaf));
}
