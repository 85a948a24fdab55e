// The platform register file: what a served machine has outside the uncore
// PMON model, so that real tools (pcm, likwid) get past their start-up on the
// way to the boxes the model counts. Each MSR is a register of its own per CPU
// that reads back what was written, from a documented reset value (no
// counting: a core PMU counter reads what was last written to it) (the PCI
// functions pcm and likwid find each socket's bus by, the memory-controller
// channels and R3QPI link 0, are the model's own boxes); on Nehalem-EP/Westmere-EP the Generic
// Non-core Registers function (00.0) holds the read-only uncore clock ratio
// (decisions.md N12). docs/validating-profilers.md lists them.
//
// Choices (where no tool or manual forces one):
// - an MSR outside these ranges and outside the model is one the machine
//   does not have: the access fails (EIO, the msr driver's #GP);
// - read-only MSRs (platform info, RAPL units, capabilities) refuse writes
//   with EIO, as the hardware's #GP does;
// - IA32_TIME_STAMP_COUNTER (0x10) reads the simulated TSC; writes fail.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "desc/cpu.h"

namespace pmonsim::serve {

struct platform_msr {
    uint32_t first, last;  // inclusive range, each MSR its own register
    uint64_t reset;
    bool writable;
    const char* what;
};

// The MSR ranges of the platform file for a machine of `cpu`.
std::vector<platform_msr> platform_msrs(cpu_model cpu);

// A register of a platform function: its reset value; a read-only one
// ignores writes (the rest of the configuration space reads back what was
// written).
struct platform_dword {
    uint32_t offset;
    uint32_t value;
    bool read_only;
};

// A PCI function presented outside the model, on every socket's uncore bus.
struct platform_function {
    unsigned dev, fn;
    uint16_t device_id;
    uint32_t class_code;  // 24-bit class, subclass, programming interface
    const char* what;
    std::vector<platform_dword> dwords;
};
// The platform functions of a machine of `cpu` whose uncore clock ratio
// register, if it has one, reads `uclk_ratio` (uncore_config::uclk_ratio()).
std::vector<platform_function> platform_functions(cpu_model cpu, uint32_t uclk_ratio);

// The MSR register file of every CPU.
class platform_msr_file {
public:
    platform_msr_file(cpu_model cpu, unsigned cpus, unsigned cores_per_socket, uint64_t tsc_hz);

    enum class result { ok, no_such_msr, read_only };
    // `first` is set when this CPU's MSR is accessed for the first time (the
    // log notes each such access as outside the model).
    result read(unsigned cpu, uint32_t msr, uint64_t now_ps, uint64_t& value, bool& first);
    result write(unsigned cpu, uint32_t msr, uint64_t value, bool& first);
    bool has(uint32_t msr) const { return find(msr) != nullptr; }
    uint64_t tsc(uint64_t now_ps) const;

private:
    const platform_msr* find(uint32_t msr) const;
    std::vector<platform_msr> ranges_;
    unsigned cpus_;
    uint64_t tsc_hz_;
    std::map<uint64_t, uint64_t> values_;  // cpu << 32 | msr -> value, once accessed
};

}  // namespace pmonsim::serve
