// The status line of a long replay (issue 15, item 5): on standard error,
// redrawn in place at most ten times a second, and cleared at the end and
// before anything else is written to the terminal:
//
//   pmonsim: 27% of 45.6 MiB read, 1.23M packets (2.05M/s), simulated 1.234 ms, about 12 s left
//
// Shown by default only when standard error is a terminal (not TERM=dumb,
// not with CI set in the environment) and the replay has gone on for a
// second (PMONSIM_PROGRESS_DELAY=SECONDS changes that; never under 20 ms);
// --progress shows it wherever standard error goes, --no-progress never.
//
// Cost: the replayer calls poll() once per feed (once per microsecond of
// simulated time or register access, not per record); poll() reads a coarse
// clock and returns unless a redraw is due. The bytes read are counted per
// block of the input files (64 KiB), on the reading thread.
#pragma once
#include <cstdint>
#include <ctime>
#include <memory>
#include <streambuf>
#include <string>

#include <boost/program_options/options_description.hpp>

namespace pmonsim {

class replayer;

enum class progress_mode { automatic, on, off };

// Registers --progress and --no-progress. The choice is kept for
// start_progress(); giving both is an error (boost's po::error).
void add_progress_options(boost::program_options::options_description& opts);
progress_mode progress_option();

class progress_meter {
public:
    // `tool` starts the line ("pmonsim"); `delay_s`: no line before then.
    progress_meter(replayer& rep, std::string tool, double delay_s);
    ~progress_meter();
    progress_meter(const progress_meter&) = delete;
    progress_meter& operator=(const progress_meter&) = delete;

    // From the replayer after each feed: redraws when due, else returns at once.
    void poll() {
        if (coarse_ns() >= due_ns_) redraw();
    }
    // Clears the line for good, gives standard output and error their own
    // buffers back and detaches from the replayer (the destructor does too).
    void finish();

    // Clears the line if it is drawn (before other output; the next redraw
    // draws it again).
    void clear_line();
    // How many times the line was drawn (for tests).
    uint64_t redraws() const { return redraws_; }

    // A monotonic clock at the resolution of the kernel tick (no system call).
    static uint64_t coarse_ns() {
        timespec ts;
        clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
        return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
    }

private:
    class guard_buf;
    void redraw();
    void draw(const std::string& line);
    std::string compose(double elapsed_s);
    void guard_streams();
    bool mid_line() const;

    replayer* rep_;
    std::string tool_;
    bool tty_;                 // standard error is a terminal: cut the line to its width
    uint64_t start_ns_, due_ns_;
    uint64_t bytes0_ = 0, packets0_ = 0;  // at the start, for the rates
    std::size_t shown_ = 0;    // the length of the line drawn, 0: none
    uint64_t redraws_ = 0;
    bool finished_ = false;
    std::unique_ptr<guard_buf> err_guard_, out_guard_;
};

// The meter of a run on `rep` as the options and the terminal ask (null:
// none), attached to the replayer until it is destroyed.
std::unique_ptr<progress_meter> start_progress(replayer& rep, const char* tool);

}  // namespace pmonsim
