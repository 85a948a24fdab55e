// The conventional way to write this model, kept as the benchmark's comparison
// (issue "Fast replay"): one sc_clock per clock domain (UCLK, QCLK) and one
// SC_METHOD per PMON box, sensitive to its clock's rising edge, that every
// cycle works out that cycle's per-input increments and counts them.
//
// Nothing here uses box_core or qpi_link. The baseline has its own
//   - register decoding: the same writes-only script pmonsim takes (--program),
//     run through the driver's script interpreter against a driver::target that
//     stores the registers into tests/reference/reference_box objects, using
//     only the register tables (addresses, byte lanes, roles);
//   - packet serialization: per link direction a FIFO, two flit slots per QCLK,
//     a packet starts in the first free slot at or after its header cycle, its
//     non-data flits first, one flit at a time (the slot rules of
//     docs/decisions.md "QPI link layer", written per cycle);
//   - event-trace runs: per box the list of active (input, count) runs;
//   - counting, either with reference_box::tick (counter::reference: decodes
//     the control registers every cycle, adds one unit at a time; obviously
//     right and slow) or with a conventional per-cycle counter that decodes the
//     controls once (counter::own, the default: what a clocked model would do).
//
// The trace is read once (trace::trace_merger), records handed to the boxes as
// simulated time reaches them. The run length is given in UCLK cycles, as with
// `pmonsim --cycles`, so both count exactly the same cycles.
//
// Limits: register writes happen at time 0 only (no --script, no sleeps); no
// overflow messages (ov_en) and so no freeze latency; clock periods must be a
// whole number of picoseconds (sc_clock cannot hold 1111.1 ps).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sc/uncore_config.h"

namespace pmonsim::bench {

enum class counter_impl { own, reference };

struct baseline_options {
    uncore_config cfg;
    std::vector<std::string> traces;  // packet and event traces (text, binary or gzip)
    std::string program;              // writes-only script run at time 0 (may be empty)
    uint64_t uclk_cycles = 0;         // run length: the first N UCLK cycles (> 0)
    counter_impl counter = counter_impl::own;
};

struct baseline_count {
    unsigned socket;
    std::string box;  // "ubox", "ubox_fixed", "r2pcie", "qpi0", ...
    unsigned counter;
    uint64_t value;
    uint64_t overflows;  // wraps of the counter
};

struct baseline_result {
    std::vector<baseline_count> counts;
    uint64_t records = 0;      // trace records handed to the boxes
    uint64_t activations = 0;  // SC_METHOD activations of the boxes (one per box per cycle)
    uint64_t uclk_cycles = 0, qclk_cycles = 0;
    double sim_seconds = 0;    // wall time of sc_start alone
};

// Elaborates the clocked platform and runs it. Call once per process, from
// sc_main (SystemC allows one elaboration). Throws std::runtime_error (or the
// trace reader's trace_error, the script's script_error) on bad input.
baseline_result run_clocked_baseline(const baseline_options& o);

// The counter rows of a `pmonsim --report csv` report (not its diagnostic rows).
std::vector<baseline_count> read_pmonsim_csv(const std::string& file);

// Compares two sets of counts (keyed by socket, box, counter). Returns the
// mismatches as lines ("socket 0 qpi1 counter 2: pmonsim 12 baseline 13"),
// empty when every counter is identical and both name the same counters.
std::vector<std::string> compare_counts(const std::vector<baseline_count>& pmonsim,
                                        const std::vector<baseline_count>& baseline);

}  // namespace pmonsim::bench
