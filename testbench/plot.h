// Plots of interval measurements (issue 15, item 6): `pmon-stat -I T --plot
// FILE` draws each event's rate per interval, and each metric's value, against
// time, one series per event (or metric) and socket, with Debian's gnuplot
// (package gnuplot-nox) run as a child process on a generated script and data
// file. SVG or PNG by FILE's extension. Events share a panel in events/s;
// metrics get one panel per unit (MB/s, %), so that a replay's QPI bandwidth
// and link utilization per direction show in one picture:
//
//   pmon-stat --trace t.csv -M qpi_rx_data_bw -M qpi_tx_data_bw -M qpi_rx_util -M qpi_tx_util
//             -I 0.001 --plot links.svg
//
// The file is written completely or not at all (output_file.h); errors name
// the path and the system's reason.
#pragma once
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <boost/program_options/options_description.hpp>

#include "desc/cpu.h"

namespace pmonsim {

// gnuplot missing, or failing: exit status 1.
class plot_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The series of a plot, by panel (unit) and name, with their points (time in
// seconds, value).
class rate_plot {
public:
    enum class format { svg, png };
    // The format FILE's extension asks for (case-insensitive .svg, .png);
    // false for any other.
    static bool format_of(const std::string& file, format& f);

    // A point of the series `name` in the panel of `unit`; series keep the
    // order of their first point, panels that of their first series.
    void add(const std::string& unit, const std::string& name, double t_s, double value);
    bool empty() const { return series_.empty(); }

    struct labels {
        std::string title;        // may hold a newline
        std::string time_axis;    // "simulated time" or "time"
    };
    // Draws the plot into `file` with gnuplot (plot_error; output_error for
    // the file itself).
    void write(const std::string& file, const labels& l) const;

private:
    // Where the plots end on the right (a fraction of the width): room for the
    // longest legend entry.
    double right_margin(int width) const;
    struct series {
        std::string unit, name;
        std::vector<std::pair<double, double>> points;
    };
    std::vector<series> series_;
};

// Where gnuplot is (searched in PATH); empty when it is not installed.
std::string find_gnuplot();

// ---- pmon-stat --plot -------------------------------------------------------

// Registers --plot FILE.
void add_plot_options(boost::program_options::options_description& opts);
// Whether --plot was given.
bool plot_wanted();
// After the options are parsed: --plot needs -I, a .svg or .png file
// (driver::event_error: bad input), gnuplot (plot_error) and a writable
// FILE (output_error), all checked before anything is measured.
void check_plot_options(bool interval_given);
// One interval, as the block `pmon-stat --json` prints for it: each event
// row becomes a rate (count / length_s), each metric row a value. The events
// that only a metric of `metrics` (-M) brought in are left out, those of
// `events` (-e, as given) kept. `end_s`: the interval's end since the start.
void plot_add_interval(const std::string& json_block, double end_s, double length_s,
                       const std::vector<std::string>& events, const std::vector<std::string>& metrics);
// At the end of the measurement: draws the picture, titled with the traces
// (or the machine) and the CPU. A last interval shorter than a tenth of -I
// (the run ended just after a whole one) is not drawn.
void plot_write(const std::vector<std::string>& traces, cpu_model cpu, bool simulated, double interval_ms);

}  // namespace pmonsim
