// Trapping cpuid, rdtsc and rdtscp in unmodified programs.
//
// Why: the preload interposer shows profilers (Intel PCM, likwid) a simulated
// Intel Xeon. They identify the CPU with `cpuid` and time with `rdtsc`, which
// never enter the kernel, and this host offers neither CPUID faulting nor
// PR_SET_TSC trapping. So the instructions are rewritten in memory: the first
// two bytes of each become UD2 (0F 0B), and a SIGILL handler answers the trap
// from callbacks and steps over the original instruction.
//
// How sites are found: each loaded object's executable sections (from the
// section headers of its file; PF_X segments when it has none) are decoded with
// capstone in a linear sweep. A byte scan would also hit 0F A2 inside other
// instructions' operands, and patching such a false site breaks the program.
//
// Limits:
//  - Code generated at run time (JIT) and code outside the objects' files is
//    never patched.
//  - Data placed in executable sections can desynchronise the linear sweep;
//    a desynchronised sweep can miss sites (they then run natively) and, in
//    principle, mistake operand bytes for an instruction.
//  - Libraries loaded by dlopen are only patched by patch_new_objects().
//  - The callbacks run inside the signal handler: they must be
//    async-signal-safe and must not execute patched instructions themselves
//    (code in the object holding this module is never patched, unless that
//    object is the main program).
//  - Another thread may execute an instruction natively while its site is
//    being patched; a program's SIGILL handler that asks for SA_ONSTACK runs
//    on the stack our handler got.
#pragma once

#include <csignal>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pmonsim::interpose {

struct trap_answers {
    // Fills eax, ebx, ecx, edx for CPUID leaf/subleaf, as seen by the calling thread.
    void (*cpuid)(uint32_t leaf, uint32_t subleaf, uint32_t out[4]);
    // The time stamp counter for rdtsc/rdtscp; and IA32_TSC_AUX (ECX of rdtscp).
    // tsc_aux may be null (ECX = 0); rdtsc may be null when rdtsc is not patched.
    uint64_t (*rdtsc)();
    uint32_t (*tsc_aux)();
};

enum site_kind : uint8_t { cpuid_site = 0, rdtsc_site = 1, rdtscp_site = 2 };

// Installs the SIGILL handler and patches every object loaded now, except the
// dynamic loader, libc, libm, libpthread, libdl, librt, libgcc_s, libstdc++,
// libcapstone, the vdso, and the shared object holding this module (the
// interposer, whose callbacks may run the real instructions). A main program
// that links this module statically is patched like any other object.
// patch_rdtsc=false leaves rdtsc/rdtscp alone (wall-clock mode).
// Returns false and sets *error (if given) when capstone, sigaction or
// mprotect fails, the answers are incomplete, or traps are already installed.
// After an mprotect failure the other sites are still patched and answered.
bool install_traps(const trap_answers& a, bool patch_rdtsc, std::string* error);

// Patches objects loaded since the last call (call after a successful dlopen),
// and forgets the sites of objects unloaded since. Does nothing before
// install_traps. Returns false and sets *error if patching failed.
bool patch_new_objects(std::string* error = nullptr);

bool traps_installed();

// The sites patched in the objects loaded now, for logs and tests.
struct patched_site {
    std::string object;    // file path (main program: /proc/self/exe resolved)
    uint64_t file_offset;  // of the instruction in that file
    uint64_t address;      // where it is mapped
    uint8_t kind;          // site_kind
};
std::vector<patched_site> patched_sites();

struct patch_counts {
    size_t cpuid = 0;
    size_t rdtsc = 0;
    size_t rdtscp = 0;
};
patch_counts patched_counts();

// sigaction(SIGILL, act, old) for the interposer's sigaction()/signal()
// wrappers. Once traps are installed, the program's handler is only recorded:
// ours stays installed in front of it and forwards traps that are not patched
// sites to it (or, with SIG_DFL/SIG_IGN, restores the default action so the
// process dies as it would have). *old receives the program's previous action,
// never ours. Before install_traps it is the real sigaction. Returns 0 or -1.
int hold_sigill_action(const struct sigaction* act, struct sigaction* old);

}  // namespace pmonsim::interpose
