#include "vcd/vcd_recorder.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "sc/time_util.h"

namespace pmonsim {

namespace {

// Deltas to wait at one instant for the rest of the platform to settle; a
// bound only against a platform that never settles (or a second recorder).
constexpr unsigned kMaxSettle = 1000;
constexpr time_ps kOpenEnd = std::numeric_limits<time_ps>::max();

// GTKWave window layout of the save file (pixels): the signal search tree,
// the signal names, and the waves in the rest (less scroll bars and borders).
constexpr unsigned kWinW = 1600, kSstW = 220, kSignalsW = 330, kWaveW = kWinW - kSstW - kSignalsW - 50;

std::string vcd_id(size_t n) {  // printable ASCII 33..126, shortest first
    std::string id;
    do {
        id += static_cast<char>('!' + n % 94);
        n /= 94;
    } while (n--);
    return id;
}

std::string vcd_value(uint64_t v, unsigned width, const std::string& id) {
    if (width == 1) return (v ? "1" : "0") + id;
    std::string bits;
    do {
        bits += static_cast<char>('0' + (v & 1));
        v >>= 1;
    } while (v);
    std::reverse(bits.begin(), bits.end());
    return "b" + bits + " " + id;
}

uint64_t sat8(uint64_t v) { return std::min<uint64_t>(v, 255); }

// The program `name` in PATH ("" when none is executable).
std::string find_program(const std::string& name) {
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
    for (size_t from = 0;;) {
        const size_t colon = dirs.find(':', from);
        std::string dir = dirs.substr(from, colon - from);
        if (dir.empty()) dir = ".";
        const std::string candidate = dir + "/" + name;
        if (::access(candidate.c_str(), X_OK) == 0) return candidate;
        if (colon == std::string::npos) return "";
        from = colon + 1;
    }
}

// Runs `argv` with its output (both streams) into `log`; its exit status, or
// -1 when it could not run or was killed.
int run_program(const std::vector<std::string>& argv, std::string& log) {
    int pipe_fd[2];
    if (::pipe2(pipe_fd, O_CLOEXEC) != 0) return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, pipe_fd[1], 1);
    posix_spawn_file_actions_adddup2(&fa, pipe_fd[1], 2);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = -1;
    const int err = ::posix_spawn(&pid, args[0], &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    ::close(pipe_fd[1]);
    if (err != 0) {
        ::close(pipe_fd[0]);
        log = std::strerror(err);
        return -1;
    }
    char buf[4096];
    for (ssize_t n; (n = ::read(pipe_fd[0], buf, sizeof buf)) != 0;) {
        if (n < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (log.size() < 65536) log.append(buf, static_cast<size_t>(n));
    }
    ::close(pipe_fd[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The recorder of this simulation. A second one would see the first one's
// notifications as pending activity at every instant (and each would keep the
// other's simulation alive), so there is one, with as many globs as needed.
const vcd_recorder* g_recorder = nullptr;

}  // namespace

bool vcd_glob_match(const std::string& glob, const std::string& name) {
    // Iterative matcher with one backtrack point for the last `*`.
    size_t g = 0, n = 0, star = std::string::npos, mark = 0;
    while (n < name.size()) {
        if (g < glob.size() && (glob[g] == '?' || glob[g] == name[n])) {
            ++g;
            ++n;
        } else if (g < glob.size() && glob[g] == '*') {
            star = g++;
            mark = n;
        } else if (star != std::string::npos) {
            g = star + 1;
            n = ++mark;
        } else {
            return false;
        }
    }
    while (g < glob.size() && glob[g] == '*') ++g;
    return g == glob.size();
}

bool vcd_file_is_fst(const std::string& file) {
    if (file.size() < 4) return false;
    std::string ext = file.substr(file.size() - 4);
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return ext == ".fst";
}

// The tool's contract: --vcd FILE also writes FILE.gtkw (run.vcd -> run.vcd.gtkw).
std::string gtkw_path_for(const std::string& vcd_file) { return vcd_file + ".gtkw"; }

vcd_recorder::vcd_recorder(sc_core::sc_module_name name, uncore_system& sys, const vcd_options& opt)
    : sc_module(name), opt_(opt) {
    if (g_recorder)
        throw std::logic_error(std::string("vcd: ") + g_recorder->name() +
                               " already records this simulation; use one recorder with several globs");
    if (opt_.file.empty()) throw std::invalid_argument("vcd: no file name");
    if (opt_.start >= opt_.end)
        throw std::invalid_argument("vcd: the window start (" + std::to_string(opt_.start) +
                                    " ps) must lie before its end (" + std::to_string(opt_.end) + " ps)");
    if (opt_.globs.empty()) opt_.globs = {"*"};
    gtkw_ = gtkw_path_for(opt_.file);

    for (unsigned s = 0; s < sys.sockets(); ++s) {
        uncore_socket& sock = sys.socket(s);
        const std::string sp = "socket" + std::to_string(s);
        const size_t u = domain_of(sock.config().uclk_hz());
        box_module* any_box = sock.boxes().front();  // every box sees the socket's freeze signal
        global_pmon* g = &sock.global();
        add(sp + ".global_freeze", sp, 1, u, nullptr, [any_box] { return uint64_t{any_box->global_freeze.read()}; });
        add(sp + ".pmi", sp, 32, u, nullptr, [g] { return uint64_t{g->pmi.read()}; });
        for (box_module* b : sock.boxes()) {
            const std::string bp = sp + "." + b->core().spec().name;
            add_box(bp, bp, *b, domain_of(b->core().clock().hz()));
        }
    }

    // Everything that can be refused is refused before a file is made.
    if (signals_.empty() && opt_.no_match_is_error) throw vcd_no_signal("the globs match no signal");
    fst_ = vcd_file_is_fst(opt_.file);
    if (fst_) {
        vcd2fst_ = find_program("vcd2fst");
        if (vcd2fst_.empty())
            throw std::runtime_error(opt_.file + ": writing FST needs GTKWave's vcd2fst, which is not installed "
                                     "(Debian package gtkwave: apt-get install gtkwave); or name the file .vcd");
    }
    // FST: the VCD goes to a temporary file next to it, converted at close().
    file_ = std::make_unique<staged_output>(fst_ ? opt_.file + ".vcd" : opt_.file);  // (throws output_error)
    write_header();

    SC_HAS_PROCESS(vcd_recorder);
    SC_METHOD(run);  // runs once at time 0 to wait for the window's start
    g_recorder = this;
}

vcd_recorder::~vcd_recorder() {
    if (g_recorder == this) g_recorder = nullptr;
    try {
        close();
    } catch (...) {
    }
}

size_t vcd_recorder::domain_of(uint64_t hz) {
    for (size_t d = 0; d < domains_.size(); ++d)
        if (domains_[d].clock.hz() == hz) return d;
    domains_.push_back({clock_domain(hz), {}, false, 0});
    return domains_.size() - 1;
}

void vcd_recorder::add(std::string name, std::string group, unsigned width, size_t dom,
                       box_module* box, std::function<uint64_t()> read, bool count) {
    available_.push_back(name);
    if (!std::any_of(opt_.globs.begin(), opt_.globs.end(),
                     [&](const std::string& g) { return vcd_glob_match(g, name); }))
        return;
    domain& d = domains_[dom];
    d.used = true;
    if (box && std::find(d.boxes.begin(), d.boxes.end(), box) == d.boxes.end()) d.boxes.push_back(box);
    signal s;
    s.name = std::move(name);
    s.group = std::move(group);
    s.width = width;
    s.read = std::move(read);
    s.domain = dom;
    s.count = count;
    s.id = vcd_id(signals_.size());
    signals_.push_back(std::move(s));
}

void vcd_recorder::add_box(const std::string& p, const std::string& group, box_module& b, size_t dom) {
    const box_core* c = &b.core();
    const box_spec& spec = c->spec();
    // (`count`: a number of things, shown in decimal; else a register or a bit.)
    auto put = [&](const std::string& n, unsigned w, std::function<uint64_t()> r, bool count = false) {
        add(p + "." + n, group, w, dom, &b, std::move(r), count);
    };
    put("frozen", 1, [c] { return uint64_t{c->frozen()}; });
    if (spec.has_box_ctl) put("box_ctl", 32, [c] { return uint64_t{c->box_ctl()}; });
    if (spec.has_box_status) put("status", 32, [c] { return uint64_t{c->box_status()}; });
    for (unsigned i = 0; i < spec.counters; ++i) {
        const std::string q = "ctr" + std::to_string(i) + ".";
        put(q + "value", spec.width, [c, i] { return c->counter_value(i); }, true);
        put(q + "inc", 8, [c, i] { return sat8(c->counter_increment(i)); }, true);
        put(q + "compare", 1, [c, i] { return uint64_t{c->counter_compare(i)}; });
        put(q + "en", 1, [c, i] { return uint64_t{c->spec().en.test(c->counter_ctl(i)) && ((c->counter_gate() >> i) & 1u)}; });
        put(q + "counting", 1, [c, i] { return uint64_t{c->counter_counts(i)}; });
        // A pulse in the cycle after a carry, when `value` shows the wrapped count.
        put(q + "overflow", 1, [c, i, first = true, last = uint64_t{0}]() mutable {
            const uint64_t w = c->counter_wraps(i);
            const bool pulse = !first && w != last;
            first = false;
            last = w;
            return uint64_t{pulse};
        });
    }
    if (spec.kind != box_kind::qpi || !spec.catalog) return;
    const event_catalog& cat = *spec.catalog;
    static const struct { const char* signal; const char* group; const char* sub; } classes[] = {
        {"idle", "G0", "IDLE"},          {"data", "G0", "DATA"},
        {"non_data", "G0", "NON_DATA"},  {"snp", "G1", "SNP"},
        {"hom_req", "G1", "HOM_REQ"},    {"hom_nonreq", "G1", "HOM_NONREQ"},
        {"drs_data", "G1", "DRS_DATA"},  {"drs_nondata", "G1", "DRS_NONDATA"},
        {"ndr_ad", "G2", "NDR_AD"},      {"ndr_ak", "G2", "NDR_AK"},
        {"ncb_data", "G2", "NCB_DATA"},  {"ncb_nondata", "G2", "NCB_NONDATA"},
        {"ncs", "G2", "NCS"},
    };
    for (const char* dir : {"rx", "tx"}) {
        const std::string ev = std::string(dir[0] == 'r' ? "RxL" : "TxL") + "_FLITS_";
        for (const auto& k : classes)
            if (auto in = cat.find_input(ev + k.group, k.sub))
                put(std::string(dir) + "." + k.signal, 8, [c, n = *in] { return sat8(c->input_now(n)); }, true);
        if (dir[0] == 'r')
            if (auto e = cat.find("CTO_COUNT"))
                if (auto in = cat.input_of(*e, -1))
                    put("rx.filter_match", 8, [c, n = *in] { return sat8(c->input_now(n)); }, true);
    }
}

std::vector<std::string> vcd_recorder::recorded_signals() const {
    std::vector<std::string> out;
    for (const signal& s : signals_) out.push_back(s.name);
    return out;
}

void vcd_recorder::write_header() {
    out() << "$version pmonsim vcd_recorder $end\n$timescale 1ps $end\n";
    std::vector<std::string> open;  // current scope path
    for (const signal& s : signals_) {
        std::vector<std::string> path;
        size_t from = 0;
        for (size_t dot; (dot = s.name.find('.', from)) != std::string::npos; from = dot + 1)
            path.push_back(s.name.substr(from, dot - from));
        size_t common = 0;
        while (common < open.size() && common < path.size() && open[common] == path[common]) ++common;
        for (size_t k = open.size(); k > common; --k) out() << "$upscope $end\n";
        for (size_t k = common; k < path.size(); ++k) out() << "$scope module " << path[k] << " $end\n";
        open = path;
        out() << "$var wire " << s.width << " " << s.id << " " << s.name.substr(from) << " $end\n";
    }
    for (size_t k = open.size(); k > 0; --k) out() << "$upscope $end\n";
    out() << "$enddefinitions $end\n";
    out().flush();
}

void vcd_recorder::run() {
    if (finished_ || closed_) return;
    if (signals_.empty()) {
        finished_ = true;
        return;
    }
    const time_ps now = now_ps();
    if (!started_ && now < opt_.start) {
        next_trigger(from_ps(opt_.start - now));
        return;
    }
    // Let the rest of the platform finish this instant first: an access or a
    // freeze signal at a cycle start governs that cycle.
    for (domain& d : domains_) {
        if (!d.used || (started_ && d.clock.cycle_start(d.next) != now)) continue;
        for (box_module* b : d.boxes) {
            b->sync();
            b->core().settle();  // this cycle's inputs in place: cheap input_now()
        }
    }
    if (sc_core::sc_pending_activity_at_current_time() && settle_ < kMaxSettle) {
        ++settle_;
        next_trigger(sc_core::SC_ZERO_TIME);
        return;
    }
    settle_ = 0;
    sample(!started_, now);
    started_ = true;

    time_ps next = kOpenEnd;
    for (const domain& d : domains_)
        if (d.used) next = std::min(next, d.clock.cycle_start(d.next));
    if (next >= opt_.end) return finish();
    // Open-ended: stop where the simulation would have run out of events.
    if (opt_.end == kOpenEnd && !sc_core::sc_pending_activity_at_future_time()) {
        stopped_at_ = now;
        return finish();
    }
    next_trigger(from_ps(next - now));
}

void vcd_recorder::sample(bool initial, time_ps now) {
    std::vector<bool> due(domains_.size());
    for (size_t d = 0; d < domains_.size(); ++d)
        due[d] = domains_[d].used && (initial || domains_[d].clock.cycle_start(domains_[d].next) == now);
    if (initial) {
        out() << "#" << now << "\n$dumpvars\n";
        for (signal& s : signals_) {
            s.last = s.read();
            out() << vcd_value(s.last, s.width, s.id) << "\n";
        }
        out() << "$end\n";
        wrote_time_ = true;
        last_time_ = now;
    } else {
        bool stamped = false;
        for (signal& s : signals_) {
            if (!due[s.domain]) continue;
            const uint64_t v = s.read();
            if (v == s.last) continue;
            s.last = v;
            if (!stamped) {
                out() << "#" << now << "\n";
                stamped = true;
                last_time_ = now;
            }
            out() << vcd_value(v, s.width, s.id) << "\n";
        }
    }
    for (size_t d = 0; d < domains_.size(); ++d)
        if (due[d]) domains_[d].next = domains_[d].clock.cycles_before(now + 1);
    if (!told_large_ && opt_.on_large && file_->bytes() >= opt_.large_bytes) {
        told_large_ = true;
        opt_.on_large(file_->bytes());
    }
}

void vcd_recorder::finish() {
    finished_ = true;
    flush();
}

void vcd_recorder::flush() {
    if (file_ && !closed_) out().flush();
}

// (SystemC's end of simulation: the owner's close() afterwards says what failed.)
void vcd_recorder::end_of_simulation() {
    try {
        close();
    } catch (const output_error&) {
    }
}

void vcd_recorder::close() {
    if (closed_) {
        if (!error_.empty()) throw output_error(error_);
        return;
    }
    closed_ = true;
    finished_ = true;
    time_ps final_time = opt_.start;
    if (wrote_time_) {
        final_time = std::min({opt_.end, now_ps(), stopped_at_});
        if (final_time > last_time_) out() << "#" << final_time << "\n";
    }
    try {  // the dump, then its save file: each complete or absent
        vcd_bytes_ = file_->bytes();
        if (fst_) convert_to_fst();
        else file_->commit();
        write_output(gtkw_, [&](std::ostream& g) { write_gtkw(g, final_time); });
    } catch (const output_error& e) {
        error_ = e.what();
        throw;
    }
}

// The VCD, complete under its temporary name, to opt_.file as FST: vcd2fst
// writes a temporary file of its own that is renamed into place; the VCD is
// removed whatever happens.
void vcd_recorder::convert_to_fst() {
    file_->close_file();
    staged_output fst(opt_.file);  // (a temporary name, removed unless committed)
    fst.close_file();
    std::string log;
    const int rc = run_program({vcd2fst_, "--vcdname=" + file_->staging_path(), "--fstname=" + fst.staging_path()},
                               log);
    file_.reset();  // (removes the VCD)
    if (rc != 0) {
        while (!log.empty() && (log.back() == '\n' || log.back() == '\r')) log.pop_back();
        throw output_error(opt_.file + ": cannot write: vcd2fst failed (" +
                           (rc < 0 ? std::string("did not run") : "exit status " + std::to_string(rc)) + ")" +
                           (log.empty() ? "" : ": " + log));
    }
    fst.commit();
}

void vcd_recorder::write_gtkw(std::ostream& g, time_ps final_time) {
    namespace fs = std::filesystem;
    // Absolute paths; GTKWave also finds the dump next to a moved save file
    // through [savefile].
    // High enough for every row (a group takes two: its start and its end).
    std::vector<std::string> groups;
    for (const signal& s : signals_)
        if (groups.empty() || groups.back() != s.group) groups.push_back(s.group);
    const size_t rows = signals_.size() + 2 * groups.size();
    const unsigned win_h = static_cast<unsigned>(std::clamp<size_t>(200 + 20 * rows, 480, 1000));
    g << "[*] pmonsim vcd_recorder: one group per box\n"
      << "[dumpfile] \"" << fs::absolute(opt_.file).lexically_normal().string() << "\"\n"
      << "[savefile] \"" << fs::absolute(gtkw_).lexically_normal().string() << "\"\n"
      << "[timestart] " << opt_.start << "\n"
      << "[size] " << kWinW << " " << win_h << "\n"
      << "[pos] 0 0\n";
    // Zoom so that the window shows the whole dump: GTKWave draws 2^-zoom
    // time units per pixel.
    const double span = static_cast<double>(final_time > opt_.start ? final_time - opt_.start : 1);
    const double zoom = -std::log2(span / kWaveW);
    char z[64];
    std::snprintf(z, sizeof z, "*%.6f -1", zoom);
    g << z;
    for (int i = 0; i < 26; ++i) g << " -1";
    g << "\n[sst_width] " << kSstW << "\n[signals_width] " << kSignalsW << "\n[sst_expanded] 1\n"
      << "[sst_vpaned_height] 300\n";
    std::string group;
    int last_flag = -1;
    for (const signal& s : signals_) {
        if (s.group != group) {
            if (!group.empty()) g << "@1000200\n-" << group << "\n";
            group = s.group;
            g << "@800200\n-" << group << "\n";
            last_flag = -1;
        }
        // GTKWave's trace flags (its TR_* bits): right-justified (0x20) and
        // binary (0x08) for a bit, decimal (0x04) for a count, hexadecimal
        // (0x02) for a register.
        const int flag = s.width == 1 ? 0x28 : s.count ? 0x24 : 0x22;
        if (flag != last_flag) g << "@" << std::hex << flag << std::dec << "\n";
        last_flag = flag;
        g << s.name;
        if (s.width > 1) g << "[" << s.width - 1 << ":0]";
        g << "\n";
    }
    if (!group.empty()) g << "@1000200\n-" << group << "\n";
    g << "[pattern_trace] 1\n[pattern_trace] 0\n";
    if (!g) throw std::runtime_error("vcd: cannot write " + gtkw_);
}

}  // namespace pmonsim
