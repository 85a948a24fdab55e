// A PMON session: the profiler logic written once against the target
// interface, so it runs unchanged on the model and on a real SNB-EP/IVB-EP
// machine. It follows the manuals' setup sequence (327043-001 and 329468-002
// §2.1: freeze, reset, program, unfreeze), reads without torn values (a PCI
// box is frozen while its two counter dwords are read; MSRs are read whole),
// and turns raw values into deltas that survive wraparound at the box's width.
//
// Overflow: counting sessions do not set ov_en (on IVB-EP that would freeze
// every box at the first carry). Instead each read computes
// (new - old) mod 2^width, exact as long as reads come faster than one wrap
// (2^44 UCLK cycles is hours). On IVB-EP every read also looks at the
// boxes' overflow status bits and reports a counter whose bit another agent's
// ov_en set (reading.overflowed), clearing it.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "driver/event_spec.h"
#include "driver/scheduler.h"
#include "driver/target.h"
#include "driver/topology.h"
#include "tables/register_table.h"

namespace pmonsim::driver {

class session_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class pmon_session {
public:
    pmon_session(target& t, topology topo);

    // Adds an event (catalog name or Linux perf syntax); throws event_error.
    std::size_t add(const std::string& text);
    const std::vector<event_spec>& events() const { return events_; }
    const topology& topo() const { return topo_; }

    // Schedules (throws schedule_error) and programs every box, frozen and reset.
    void program();
    // Unfreezes: counting starts.
    void start();
    // Freezes and takes a last reading.
    void stop();

    struct reading {
        std::size_t event;   // index into events()
        unsigned socket;
        std::string box;     // "qpi0", ...
        unsigned counter;
        uint64_t delta;      // since the previous read
        uint64_t total;      // since start()
        bool overflowed;     // the box's overflow status bit was set (IVB-EP)
    };
    // Reads every counter (each PCI box frozen during its read) and returns
    // the deltas since the previous read.
    std::vector<reading> read();

    // GT/s of a QPI port from QPI_RATE_STATUS (0 if it cannot be read).
    double qpi_rate_gts(unsigned socket, unsigned port);

private:
    struct placed {
        assignment a;
        unsigned width;
        uint64_t last = 0, total = 0;
    };
    void program_boxes();
    void start_boxes();
    void require_function(const pci_address& a);
    void unwind();
    // Runs a step of the setup recording what it writes, and unwinds
    // everything recorded when it fails.
    void recorded(const std::function<void()>& step);
    void box_freeze(unsigned socket, box_kind kind, unsigned unit, bool frozen, bool reset = false);
    uint64_t read_counter(const placed& p);
    uint32_t read_status(unsigned socket, box_kind kind, unsigned unit);
    void clear_status(unsigned socket, box_kind kind, unsigned unit, uint32_t bits);
    pci_address pci_of(unsigned socket, box_kind kind, unsigned unit) const;
    unsigned cpu_of(unsigned socket) const;
    void msr_write(unsigned socket, uint32_t msr, uint64_t v);
    uint64_t msr_read(unsigned socket, uint32_t msr);
    void pci_write(const pci_address& a, uint32_t off, uint32_t v);
    uint32_t pci_read(const pci_address& a, uint32_t off);

    target& t_;
    topology topo_;
    std::vector<event_spec> events_;
    std::vector<placed> placed_;
    bool programmed_ = false, running_ = false;
    // What program() and start() wrote, with the values before, until they
    // succeed: undone in reverse when they fail.
    struct undo_entry {
        bool msr;
        unsigned socket;
        pci_address pci;
        uint32_t reg;
        uint64_t old;
    };
    std::vector<undo_entry> undo_;
    register_table msr_table_;  // the CPU's PMON MSRs: the only ones written
    bool recording_ = false;
};

}  // namespace pmonsim::driver
