// Waveforms of the uncore PMON for GTKWave: a value change dump (VCD) of every
// box's counters, controls and freeze state, and of the QPI ports' flit
// traffic, sampled at the cycle starts of each box's own clock.
//
// The writer is our own (not sc_trace): it samples only inside the window
// [start, end), only the signals whose full dotted name matches one of the
// globs, and writes a line only when a value changes. Names use [A-Za-z0-9_]
// with dots for the hierarchy ($scope per level), e.g. socket0.qpi0.ctr0.value.
//
// Signals (their timing: see the comment on vcd_recorder below):
//   socketS.global_freeze (1)     the global freeze as it reaches the boxes
//   socketS.pmi (32)              cores receiving a PMI (bit n = core n)
//   socketS.BOX.frozen (1)        the box counts nothing: BOX_CTL freeze, global
//                                 freeze, or its own stop after an ov_en message
//   socketS.BOX.box_ctl (32)      BOX_CTL, where the box has one
//   socketS.BOX.status (32)       BOX_STATUS, where the box has one
//   socketS.BOX.ctrI.value (W)    the counter (W = 44 or 48 bits)
//   socketS.BOX.ctrI.inc (8)      this cycle's raw increment (before
//                                 threshold/invert/edge; saturates at 255)
//   socketS.BOX.ctrI.compare (1)  the edge detector's state: the threshold
//                                 compare result of the last counted cycle
//                                 (0 without a threshold)
//   socketS.BOX.ctrI.en (1)       CTL.en
//   socketS.BOX.ctrI.counting (1) enabled, valid event and not frozen
//   socketS.BOX.ctrI.overflow (1) one-cycle pulse after each carry out of W bits
//   socketS.qpiP.rx|tx.CLASS (8)  flits per cycle of CLASS (idle, data, non_data,
//                                 snp, hom_req, hom_nonreq, drs_data,
//                                 drs_nondata, ndr_ad, ndr_ak, ncb_data,
//                                 ncb_nondata, ncs) where the personality has
//                                 the sub-event
//   socketS.qpiP.rx.filter_match (8) received headers matching the port's
//                                 packet filter in this cycle (CTO_COUNT's input)
// BOX is ubox, ubox_fixed, r2pcie, qpi0, qpi1, qpi2.
#pragma once
#include <cstdint>
#include <fstream>
#include <memory>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <systemc>
#include <vector>

#include "desc/clock.h"
#include "output_file.h"
#include "sc/uncore_system.h"

namespace pmonsim {

struct vcd_options {
    std::string file;                     // the dump; its .gtkw goes next to it
    std::vector<std::string> globs;       // empty: {"*"}
    time_ps start = 0;                    // window [start, end), picoseconds
    time_ps end = std::numeric_limits<time_ps>::max();  // max: open-ended
    // Called once, during the run, when the dump passes `large_bytes` (to
    // tell the user how large it gets); none when empty.
    std::function<void(uint64_t bytes)> on_large;
    uint64_t large_bytes = 1'000'000'000;
    // Globs that match no signal: an error (vcd_no_signal, thrown before any
    // file is made), or else an empty but valid dump.
    bool no_match_is_error = false;
};

// The constructor's error when the globs match no signal and
// vcd_options::no_match_is_error is set.
struct vcd_no_signal : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

// Whether `file` asks for FST (its name ends in .fst, in any case): the dump
// is then written as VCD under a temporary name and converted by GTKWave's
// vcd2fst when it is closed.
bool vcd_file_is_fst(const std::string& file);

// Glob match on a full dotted name: `*` matches any run of characters (dots
// included), `?` any one character; everything else matches itself.
bool vcd_glob_match(const std::string& glob, const std::string& name);

// The GTKWave save file that goes with a dump: "x.vcd" -> "x.gtkw" (any other
// name gets ".gtkw" appended).
std::string gtkw_path_for(const std::string& vcd_file);

// Records `sys` into opt.file (and FILE.gtkw, see gtkw_path_for): VCD, or
// FST when the name ends in .fst (vcd_file_is_fst).
//
// Timing: one SC_METHOD samples at `start` (the initial values, in $dumpvars)
// and then at every cycle start of each clock inside the window: UCLK for the
// socket signals, the UBox and R2PCIe, QCLK for the QPI ports. At each such
// instant it first lets every other process of that instant run (register
// accesses and freeze signals at a cycle start govern that cycle), calls
// box_module::sync() on the boxes it samples, and then reads them. So at the
// start of cycle k:
//   - value, status, compare and overflow are registered views: the state
//     after cycles 0..k-1 (value at the start of cycle k+1 = value at the start
//     of cycle k + what cycle k adds);
//   - inc, counting, frozen, en, box_ctl and the flit classes describe cycle k.
// A register write between two cycle starts shows at the next one.
//
// Outside the window no process runs. With the default open-ended window the
// recorder stops when nothing else in the simulation is scheduled (so it never
// keeps alive a simulation that would have ended by running out of events);
// with a finite `end` it samples up to `end`.
//
// close() ends the dump with a last timestamp (the window's end, the time the
// recorder stopped, or now, whichever is first) and writes the .gtkw; it runs
// at the end of simulation (sc_stop) and in the destructor. Both files are
// complete or absent (output_file.h): the dump is written under a temporary
// name until then, and close() throws output_error when a write failed (a
// later call again; the end of simulation and the destructor keep quiet).
//
// One recorder per simulation (a second one throws std::logic_error): it
// waits for every other process at each instant, and a second recorder would
// be such a process for ever.
class vcd_recorder : public sc_core::sc_module {
public:
    // Throws std::invalid_argument for an empty window or file name,
    // vcd_no_signal (see no_match_is_error), std::runtime_error when
    // the dump cannot be written or FST is asked for and vcd2fst is not
    // installed, std::logic_error when another recorder exists. Nothing is
    // left on disk when it throws.
    vcd_recorder(sc_core::sc_module_name name, uncore_system& sys, const vcd_options& opt);
    ~vcd_recorder() override;

    // Every signal the system offers, and the ones recorded (header order).
    const std::vector<std::string>& available_signals() const { return available_; }
    std::vector<std::string> recorded_signals() const;
    const std::string& vcd_file() const { return opt_.file; }
    const std::string& gtkw_file() const { return gtkw_; }

    // Pushes what was sampled so far to the file (the dump stays open).
    void flush();
    // The VCD bytes written so far (for FST: of the VCD before conversion).
    uint64_t vcd_bytes() const { return vcd_bytes_ ? vcd_bytes_ : file_ ? file_->bytes() : 0; }
    // Ends the dump and writes the .gtkw; later calls do nothing.
    void close();

private:
    struct signal {
        std::string name;        // full dotted name
        std::string group;       // GTKWave group: "socket0" or "socket0.qpi0"
        unsigned width;
        std::function<uint64_t()> read;
        size_t domain;           // index into domains_
        bool count;              // a number of things (decimal in GTKWave), not a register
        std::string id;          // VCD identifier
        uint64_t last = 0;
    };
    struct domain {
        clock_domain clock;
        std::vector<box_module*> boxes;  // to sync before sampling
        bool used = false;               // has a recorded signal
        cycle_t next = 0;                // next cycle to sample
    };

    size_t domain_of(uint64_t hz);
    void add(std::string name, std::string group, unsigned width, size_t dom, box_module* box,
             std::function<uint64_t()> read, bool count = false);
    void add_box(const std::string& prefix, const std::string& group, box_module& b, size_t dom);
    void write_header();
    void write_gtkw(std::ostream& g, time_ps final_time);
    void convert_to_fst();
    void run();
    void sample(bool initial, time_ps now);
    void finish();
    void end_of_simulation() override;

    vcd_options opt_;
    std::string gtkw_;
    std::vector<std::string> available_;
    std::vector<signal> signals_;
    std::vector<domain> domains_;
    std::unique_ptr<staged_output> file_;  // the dump, under a temporary name until close()
    bool fst_ = false;                     // convert the dump to FST at close()
    std::string vcd2fst_;                  // the converter's path
    uint64_t vcd_bytes_ = 0;               // the dump's size once closed
    bool told_large_ = false;
    std::ostream& out() { return file_->stream(); }
    std::string error_;  // why close() failed
    bool started_ = false, finished_ = false, closed_ = false;
    bool wrote_time_ = false;
    time_ps last_time_ = 0;
    time_ps stopped_at_ = std::numeric_limits<time_ps>::max();  // ran out of events here
    unsigned settle_ = 0;
};

}  // namespace pmonsim
