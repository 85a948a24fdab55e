// The status line of a long replay (progress.h).
#include "progress.h"

#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "replay.h"
#include "sc/time_util.h"

namespace po = boost::program_options;

namespace pmonsim {

namespace {

progress_mode g_mode = progress_mode::automatic;

constexpr uint64_t kRedrawNs = 100'000'000;  // at most ten lines a second
constexpr double kMinDelay = 0.02;           // (so that the first line has rates to show)

// PMONSIM_PROGRESS_DELAY, in seconds (default 1).
double delay_from_environment() {
    const char* v = std::getenv("PMONSIM_PROGRESS_DELAY");
    if (!v || !*v) return 1.0;
    char* end = nullptr;
    const double d = std::strtod(v, &end);
    if (*end || !(d >= 0) || d > 1e6) return 1.0;
    return d;
}

// 1234567 -> "1.23M"
std::string count_text(double v) {
    static const char* const kSuffix[] = {"", "k", "M", "G", "T"};
    int i = 0;
    while (v >= 999.5 && i < 4) {
        v /= 1000;
        ++i;
    }
    char b[32];
    if (i == 0) std::snprintf(b, sizeof b, "%.0f", v);
    else std::snprintf(b, sizeof b, v < 9.995 ? "%.2f%s" : v < 99.95 ? "%.1f%s" : "%.0f%s", v, kSuffix[i]);
    return b;
}

std::string bytes_text(uint64_t n) {
    static const char* const kUnit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(n);
    int i = 0;
    while (v >= 1023.95 && i < 4) {
        v /= 1024;
        ++i;
    }
    char b[32];
    std::snprintf(b, sizeof b, i == 0 ? "%.0f %s" : "%.1f %s", v, kUnit[i]);
    return b;
}

// Simulated time: "1.234 ms".
std::string sim_time_text(time_ps t) {
    const double ps = static_cast<double>(t);
    char b[32];
    if (ps < 1e3) std::snprintf(b, sizeof b, "%.0f ps", ps);
    else if (ps < 1e6) std::snprintf(b, sizeof b, "%.3f ns", ps / 1e3);
    else if (ps < 1e9) std::snprintf(b, sizeof b, "%.3f us", ps / 1e6);
    else if (ps < 1e12) std::snprintf(b, sizeof b, "%.3f ms", ps / 1e9);
    else std::snprintf(b, sizeof b, "%.3f s", ps / 1e12);
    return b;
}

// Wall time left: "12 s", "3 min 20 s", "2 h 5 min".
std::string left_text(double s) {
    const long long n = std::llround(s);
    char b[48];
    if (n < 60) std::snprintf(b, sizeof b, "%lld s", n < 1 ? 1 : n);
    else if (n < 3600) std::snprintf(b, sizeof b, "%lld min %lld s", n / 60, n % 60);
    else std::snprintf(b, sizeof b, "%lld h %lld min", n / 3600, n / 60 % 60);
    return b;
}

void write_all(int fd, const std::string& s) {
    for (std::size_t done = 0; done < s.size();) {
        const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;  // (a status line is not worth an error)
        done += static_cast<std::size_t>(n);
    }
}

// Whether two descriptors are the same open file (2>&1 into one file).
bool same_file(int a, int b) {
    struct stat x, y;
    return ::fstat(a, &x) == 0 && ::fstat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

}  // namespace

void add_progress_options(po::options_description& opts) {
    // (Either one, once: the notifiers see them in this order whatever the
    // command line's, so both given is refused rather than resolved.)
    auto set = [](progress_mode m) {
        return [m](bool given) {
            if (!given) return;
            if (g_mode != progress_mode::automatic && g_mode != m)
                throw po::error("--progress and --no-progress exclude each other");
            g_mode = m;
        };
    };
    opts.add_options()
        ("progress", po::bool_switch()->notifier(set(progress_mode::on)),
         "show a status line on stderr during the replay even when stderr is not a terminal")
        ("no-progress", po::bool_switch()->notifier(set(progress_mode::off)),
         "never show the status line (default: shown on a terminal after a second)");
}

progress_mode progress_option() { return g_mode; }

// Standard output or error while the line is shown: clears the line before
// anything written to it, and notes whether a line of it is left open (no
// redraw then: the line would land in the middle of it).
class progress_meter::guard_buf : public std::streambuf {
public:
    guard_buf(progress_meter& m, std::ostream& os) : m_(m), os_(os), inner_(os.rdbuf()) { os.rdbuf(this); }
    ~guard_buf() override { os_.rdbuf(inner_); }
    bool mid_line() const { return mid_line_; }
    void flush() { inner_->pubsync(); }

protected:
    int_type overflow(int_type c) override {
        if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
        m_.clear_line();
        mid_line_ = traits_type::to_char_type(c) != '\n';
        return inner_->sputc(traits_type::to_char_type(c));
    }
    std::streamsize xsputn(const char* s, std::streamsize n) override {
        if (n <= 0) return 0;
        m_.clear_line();
        mid_line_ = s[n - 1] != '\n';
        return inner_->sputn(s, n);
    }
    int sync() override { return inner_->pubsync(); }

private:
    progress_meter& m_;
    std::ostream& os_;
    std::streambuf* inner_;
    bool mid_line_ = false;
};

progress_meter::progress_meter(replayer& rep, std::string tool, double delay_s)
    : rep_(&rep), tool_(std::move(tool)), tty_(::isatty(STDERR_FILENO) == 1) {
    start_ns_ = coarse_ns();
    due_ns_ = start_ns_ + static_cast<uint64_t>(std::max(delay_s, kMinDelay) * 1e9);
    const replayer::input_progress p = rep.progress();
    bytes0_ = p.bytes_read;
    packets0_ = p.packets;
    rep.set_progress(this);
}

progress_meter::~progress_meter() { finish(); }

void progress_meter::finish() {
    if (finished_) return;
    finished_ = true;
    clear_line();
    out_guard_.reset();
    err_guard_.reset();
    if (rep_) rep_->set_progress(nullptr);
    rep_ = nullptr;
}

void progress_meter::clear_line() {
    if (!shown_) return;
    write_all(STDERR_FILENO, "\r" + std::string(shown_, ' ') + "\r");
    shown_ = 0;
}

bool progress_meter::mid_line() const {
    return (err_guard_ && err_guard_->mid_line()) || (out_guard_ && out_guard_->mid_line());
}

void progress_meter::guard_streams() {
    if (err_guard_) return;
    err_guard_ = std::make_unique<guard_buf>(*this, std::cerr);
    // Standard output too when it shows on the same screen or in the same file.
    if (::isatty(STDOUT_FILENO) == 1 || same_file(STDOUT_FILENO, STDERR_FILENO))
        out_guard_ = std::make_unique<guard_buf>(*this, std::cout);
}

void progress_meter::redraw() {
    if (finished_) return;
    const uint64_t now = coarse_ns();
    due_ns_ = now + kRedrawNs;
    guard_streams();
    if (out_guard_) out_guard_->flush();  // (what the program wrote comes first)
    if (mid_line()) return;               // (after the rest of that line)
    draw(compose(static_cast<double>(now - start_ns_) / 1e9));
}

std::string progress_meter::compose(double elapsed_s) {
    const replayer::input_progress p = rep_->progress();
    std::string line = tool_ + ": ";
    const bool sized = p.bytes_total > 0;
    if (sized) {
        const double f = std::min(1.0, static_cast<double>(p.bytes_read) / static_cast<double>(p.bytes_total));
        char pct[16];
        std::snprintf(pct, sizeof pct, "%.0f%%", std::floor(f * 100));
        line += std::string(pct) + " of " + bytes_text(p.bytes_total) + " read";
    } else {
        line += bytes_text(p.bytes_read) + " read";
    }
    const double rate = elapsed_s > 0 ? static_cast<double>(p.packets - packets0_) / elapsed_s : 0;
    line += ", " + count_text(static_cast<double>(p.packets)) + " packets (" + count_text(rate) + "/s)";
    if (p.events) line += ", " + count_text(static_cast<double>(p.events)) + " event rows";
    line += ", simulated " + sim_time_text(now_ps());
    // The time left, from the rate the input has been read at so far.
    if (sized && p.bytes_read < p.bytes_total && p.bytes_read > bytes0_ && elapsed_s > 0) {
        const double per_byte = elapsed_s / static_cast<double>(p.bytes_read - bytes0_);
        line += ", about " + left_text(per_byte * static_cast<double>(p.bytes_total - p.bytes_read)) + " left";
    }
    return line;
}

void progress_meter::draw(const std::string& text) {
    std::string line = text;
    if (tty_) {  // one screen line: a wrapped one cannot be redrawn with \r
        winsize ws{};
        if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 && line.size() >= ws.ws_col)
            line.resize(ws.ws_col - 1u);
    }
    std::string out = "\r" + line;
    if (line.size() < shown_) out += std::string(shown_ - line.size(), ' ');  // the rest of a longer line before
    write_all(STDERR_FILENO, out);
    shown_ = line.size();
    ++redraws_;
}

std::unique_ptr<progress_meter> start_progress(replayer& rep, const char* tool) {
    const progress_mode m = progress_option();
    if (m == progress_mode::off) return nullptr;
    if (m == progress_mode::automatic) {
        const char* term = std::getenv("TERM");
        const char* ci = std::getenv("CI");
        if (::isatty(STDERR_FILENO) != 1 || (term && std::strcmp(term, "dumb") == 0) || (ci && *ci)) return nullptr;
    }
    return std::make_unique<progress_meter>(rep, tool, delay_from_environment());
}

}  // namespace pmonsim
