#include "serve/server.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>

#include "sc/time_util.h"
#include "serve/thread_watch.h"

namespace pmonsim::serve {

namespace {

// Signals reach the loop through a pipe (poll() sees them).
int signal_pipe[2] = {-1, -1};

void on_signal(int sig) {
    const int e = errno;
    const unsigned char b = static_cast<unsigned char>(sig);
    (void)!::write(signal_pipe[1], &b, 1);
    errno = e;
}

int64_t clock_ns(clockid_t id) {
    timespec t{};
    clock_gettime(id, &t);
    return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

// The virtual clock with several threads. A sleep's reply waits until
// simulated time reaches the sleep's end, and time jumps to the earliest
// pending end only when no thread can ask for anything first: no request
// waits, and every thread of the clients' processes and of their descendants
// (a child between fork and its first request, or inside exec) is blocked.
// That is looked at once every connected thread sleeps here, or after
// kCheckMs without requests. (Ending each sleep at once let one thread's long
// periodic sleep, such as a counter-width watchdog's 10 s, carry every other
// thread's time far past a short measured interval.) So that a thread that
// neither sleeps nor blocks cannot hang the program (it computes, or polls a
// register for another thread's sleep to end), the earliest sleep also ends
// when the threads have used --busy-limit of CPU time (10 s by default) since
// one last ended. CPU time, not wall time: on a busy machine a thread that is
// runnable but gets no CPU (a daemon starting) would otherwise be taken for
// one that computes, and time would jump before it asks for anything. The
// limit is long because a tool may compute for a while with a periodic sleeper
// beside it (pcm walks every PCI slot while its watchdogs sleep 10 s).
constexpr int kAsleep = -1;       // sleep()'s result when the reply waits
constexpr int kCheckMs = 1;
constexpr int64_t kMeterNs = 10'000'000;  // how often the CPU time used is read while threads run


// A reply on the socket, with a descriptor attached when `pass` >= 0 (the
// server's page, to a client that gave a channel).
bool send_reply(int fd, const wire::reply& rp, const std::vector<uint8_t>& out, int pass = -1) {
    iovec iov[2] = {{const_cast<wire::reply*>(&rp), sizeof rp}, {const_cast<uint8_t*>(out.data()), out.size()}};
    msghdr m{};
    m.msg_iov = iov;
    m.msg_iovlen = out.empty() ? 1 : 2;
    wire::one_descriptor room;
    if (pass >= 0) wire::attach_descriptor(m, room, pass);
    return ::sendmsg(fd, &m, MSG_NOSIGNAL) == static_cast<ssize_t>(sizeof rp + out.size());
}

// Spinning over the channels after a request: while requests keep coming
// within kSpinIdleNs of each other, for at most kSpinMaxNs, then poll() again
// (so socket clients, new connections and signals wait at most that long).
constexpr int64_t kSpinIdleNs = 200'000, kSpinMaxNs = 2'000'000;

sockaddr_un address_of(const std::string& path) {
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    if (path.empty() || path.size() >= sizeof a.sun_path)
        throw std::runtime_error("socket path '" + path + "' is empty or longer than " +
                                 std::to_string(sizeof a.sun_path - 1) + " bytes");
    std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
    return a;
}

}  // namespace

// --- listener ------------------------------------------------------------------

listener::listener(const std::string& path) : path_(path) {
    const sockaddr_un a = address_of(path);
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0) {
        if (!S_ISSOCK(st.st_mode))
            throw std::runtime_error(path + " exists and is not a socket; not replacing it");
        const int probe = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        const bool live = probe >= 0 && ::connect(probe, reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0;
        if (probe >= 0) ::close(probe);
        if (live) throw std::runtime_error("a pmonsim server already answers at " + path + "; stop it or choose another --socket");
        ::unlink(path.c_str());  // stale: its server has gone
    }
    fd_ = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd_ < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
    const mode_t old = ::umask(077);  // the socket is created 0600: MSR access is root's
    const int r = ::bind(fd_, reinterpret_cast<const sockaddr*>(&a), sizeof a);
    const int e = errno;
    ::umask(old);
    if (r != 0 || ::chmod(path.c_str(), 0600) != 0 || ::listen(fd_, 64) != 0) {
        ::close(fd_);
        fd_ = -1;
        throw std::runtime_error("cannot listen at " + path + ": " + std::strerror(r ? e : errno));
    }
}

listener::~listener() {
    if (fd_ >= 0) {
        ::close(fd_);
        ::unlink(path_.c_str());
    }
}

// --- server --------------------------------------------------------------------

server::server(sc_core::sc_module_name name, uncore_system& sys, replayer* rep, const machine_view& view,
               listener& l, const std::string& root, const serve_options& o)
    : sc_module(name), sys_(sys), rep_(rep), view_(view), listener_(l), root_(root), o_(o),
      msrs_(sys.config().cpu, static_cast<unsigned>(view.cpus().size()), view.cores_per_socket(), view.tsc_hz()) {
    SC_HAS_PROCESS(server);
    SC_THREAD(run);
    sys_.diagnostics().set_listener([this](const diagnostic& d) {
        log(current_, "diagnostic: %s", format_diagnostic(d).c_str());
    });
}

server::~server() {
    sys_.diagnostics().set_listener({});
    for (auto& c : clients_) {
        channel_host::unmap(c.ch);
        ::close(c.fd);
    }
}

void server::log(const connection* c, const char* fmt, ...) {
    if (!o_.log) return;
    const uint64_t t = now_ps();
    std::fprintf(o_.log, "%llu.%03llu ns", static_cast<unsigned long long>(t / 1000),
                 static_cast<unsigned long long>(t % 1000));
    if (c) std::fprintf(o_.log, " pid %d/%u", static_cast<int>(c->pid), c->tid);
    std::fputc(' ', o_.log);
    va_list ap;
    va_start(ap, fmt);
    std::vfprintf(o_.log, fmt, ap);
    va_end(ap);
    std::fputc('\n', o_.log);
}

void server::run() {
    try {
        target_ = std::make_unique<sim_target>(sys_, [this](time_ps until) {
            return rep_ ? rep_->feed(until) : ~time_ps{0};
        });
        perf_ = std::make_unique<perf_counters>(sys_, *target_, sys_.config().cpus_per_socket,
                                                [this](const std::string& s) { log(current_, "%s", s.c_str()); });
        if (::pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) throw std::runtime_error("pipe2 failed");
        struct sigaction sa {};
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        ::sigaction(SIGTERM, &sa, nullptr);
        ::sigaction(SIGCHLD, &sa, nullptr);
        if (o_.ignore_sigint) ::signal(SIGINT, SIG_IGN);
        else ::sigaction(SIGINT, &sa, nullptr);
        ::signal(SIGPIPE, SIG_IGN);
        wall_start_ns_ = clock_ns(CLOCK_MONOTONIC);
        log(nullptr, "serving %s (%s, %u socket(s), %zu CPUs) at %s, files under %s", to_string(sys_.config().cpu),
            view_.identity().brand, sys_.config().sockets, view_.cpus().size(), listener_.path().c_str(),
            root_.c_str());
        // pmonsim exec adopts the command's orphans (a daemon it starts), so
        // that they stay in view of the virtual clock (nothing_runs below).
        if (child_) ::prctl(PR_SET_CHILD_SUBREAPER, 1);
        // A child that ended before the handler was in place.
        bool stop = child_ && ::waitpid(child_, &child_status_, WNOHANG) == child_;
        run_meter busy;             // CPU time used since a sleep last ended, or the first began
        int64_t busy_read_ns = 0;   // when it was last read
        // Lets simulated time reach the earliest pending sleep's end and
        // answers every sleep that has ended.
        auto end_sleep = [this, &busy] {
            if (sleepers_.empty()) return;
            time_ps end = ~time_ps{0};
            for (const auto& s : sleepers_) end = std::min(end, s.second);
            if (end > now_ps()) target_->advance(end - now_ps());
            for (auto& c : clients_) {
                auto it = sleepers_.find(c.fd);
                if (it == sleepers_.end() || it->second > now_ps()) continue;
                sleepers_.erase(it);
                wire::reply rp{};
                rp.now_ps = c.seen_ps = now_ps();
                log(&c, "sleep ends");
                send_reply(c.fd, rp, {});  // (a client that has gone is noticed by poll)
            }
            busy.restart();
        };
        auto client_pids = [this] {
            std::vector<pid_t> pids;
            for (const auto& c : clients_) pids.push_back(c.pid);
            return pids;
        };
        // Whether the threads have used --busy-limit of CPU time while a
        // sleep waited (read every kMeterNs: a walk of /proc).
        auto busy_too_long = [&] {
            const int64_t now = clock_ns(CLOCK_MONOTONIC);
            if (now - busy_read_ns < kMeterNs) return false;
            busy_read_ns = now;
            busy.observe(run_times(client_pids()));
            if (busy.ran_ns() < o_.busy_limit_ns) return false;
            log(nullptr, "threads have run for %.3f s of CPU time and no sleep has ended: the earliest sleep ends",
                static_cast<double>(busy.ran_ns()) / 1e9);
            return true;
        };
        // Whether no thread can ask for anything before a sleep ends: no
        // request is waiting, every thread is blocked, and none ran between
        // two looks (a thread may have asked and blocked again meanwhile).
        auto nothing_runs = [this, &client_pids] {
            const std::vector<pid_t> pids = client_pids();
            std::vector<pollfd> fds = {{listener_.fd(), POLLIN, 0}};
            for (const auto& c : clients_) fds.push_back({c.fd, POLLIN, 0});
            const threads_snapshot first = snapshot(pids);
            if (!first.blocked || ::poll(fds.data(), fds.size(), 0) != 0) return false;
            const threads_snapshot second = snapshot(pids);
            return second.blocked && second.fingerprint == first.fingerprint;
        };
        while (!stop) {
            std::vector<pollfd> fds = {{signal_pipe[0], POLLIN, 0}, {listener_.fd(), POLLIN, 0}};
            for (const auto& c : clients_) fds.push_back({c.fd, POLLIN, 0});
            const int ready = ::poll(fds.data(), fds.size(), sleepers_.empty() ? -1 : kCheckMs);
            if (ready < 0) {
                if (errno == EINTR) continue;
                throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
            }
            if (ready == 0) {
                if (nothing_runs() || busy_too_long()) end_sleep();
                continue;
            }
            if (fds[0].revents) {
                unsigned char sig = 0;
                while (::read(signal_pipe[0], &sig, 1) == 1) {
                    if (sig == SIGCHLD) {
                        // The command, or an orphan of it adopted here.
                        int st = 0;
                        for (pid_t p; (p = ::waitpid(-1, &st, WNOHANG)) > 0;)
                            if (p == child_) {
                                child_status_ = st;
                                stop = true;
                            }
                    } else {
                        log(nullptr, "signal %d: stopping", sig);
                        stop = true;
                    }
                }
            }
            // Clients first, in order; then new connections.
            std::vector<size_t> gone;
            for (size_t i = 0; i < clients_.size(); ++i)
                if (fds[2 + i].revents && !serve_one(clients_[i])) gone.push_back(i);
            for (size_t k = gone.size(); k-- > 0;) {
                log(&clients_[gone[k]], "disconnected");
                const pid_t pid = clients_[gone[k]].pid;
                size_t same = 0;  // the process's other connections
                for (const auto& o : clients_) same += o.pid == pid;
                if (same == 1 && perf_) perf_->release(pid, now_ps());  // its perf events close with it
                sleepers_.erase(clients_[gone[k]].fd);
                channel_host::unmap(clients_[gone[k]].ch);
                ::close(clients_[gone[k]].fd);
                clients_.erase(clients_.begin() + static_cast<long>(gone[k]));
            }
            if (fds[1].revents & POLLIN) accept_client();
            if (rang_) spin_on_channels();  // (more are likely to follow at once)
            rang_ = false;
            if (sleepers_.empty()) {
                busy.restart();
            } else if ((sleepers_.size() == clients_.size() && nothing_runs()) || busy_too_long()) {
                end_sleep();
            }
            if (o_.exit_when_idle && ever_connected_ && clients_.empty()) {
                log(nullptr, "the last client has gone: stopping");
                stop = true;
            }
        }
        keep_wall_clock();
    } catch (const std::exception& e) {
        error_ = e.what();
    }
    sc_core::sc_stop();
}

void server::accept_client() {
    const int fd = ::accept4(listener_.fd(), nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) return;  // (the client gave up in between)
    connection c;
    c.fd = fd;
    ucred cred{};
    socklen_t len = sizeof cred;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) c.pid = cred.pid;
    c.seen_ps = now_ps();
    clients_.push_back(c);
    ever_connected_ = true;
}

// Reads one request and answers it; false when the client has gone (or sent
// something that is not a message of this protocol and was told so).
bool server::serve_one(connection& c) {
    uint8_t buf[sizeof(wire::request) + wire::kMaxPayload];
    iovec iov{buf, sizeof buf};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr m{};
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = control;
    m.msg_controllen = sizeof control;
    ssize_t n = ::recvmsg(c.fd, &m, MSG_TRUNC | MSG_CMSG_CLOEXEC);
    if (n <= 0) return false;
    int passed = -1;  // a channel's memfd, with a hello
    for (cmsghdr* h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h))
        if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS) {
            const size_t fds = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (size_t i = 0; i < fds; ++i) {
                int fd;
                std::memcpy(&fd, CMSG_DATA(h) + i * sizeof(int), sizeof fd);
                if (passed < 0) passed = fd;
                else ::close(fd);
            }
        }
    if (m.msg_flags & MSG_CTRUNC) n = 0;  // (more descriptors than a hello carries: malformed)
    if (n == 1 && c.ch) {  // the doorbell of a channel request
        if (passed >= 0) ::close(passed);
        rang_ |= serve_channel(c);
        return true;
    }
    std::vector<uint8_t> out;
    wire::reply rp{};
    wire::request rq{};
    if (static_cast<size_t>(n) < sizeof rq || static_cast<size_t>(n) > sizeof buf) {
        log(&c, "malformed request of %zd bytes: refused", n);
        rp.error = EBADMSG;
    } else {
        std::memcpy(&rq, buf, sizeof rq);
        // A request from a thread whose sleep is pending: a signal handler
        // interrupted the sleep. It ends now, with EINTR and the ns not slept.
        if (auto it = sleepers_.find(c.fd); it != sleepers_.end()) {
            wire::reply woken{};
            woken.error = EINTR;
            woken.value = it->second > now_ps() ? (it->second - now_ps()) / 1000 : 0;
            woken.now_ps = c.seen_ps = now_ps();
            sleepers_.erase(it);
            log(&c, "sleep interrupted, %llu ns left", static_cast<unsigned long long>(woken.value));
            if (!send_reply(c.fd, woken, {})) return false;
        }
        current_ = &c;
        rp = handle(c, rq, buf + sizeof rq, static_cast<size_t>(n) - sizeof rq, out);
        current_ = nullptr;
    }
    int pass = -1;
    if (static_cast<wire::op>(rq.op) == wire::op::hello && rp.error == 0 && passed >= 0 && !c.ch) {
        c.ch = channel_host::map(passed);
        if (c.ch) {
            c.served = c.ch->request_seq.load(std::memory_order_seq_cst);
            pass = channels_.page_fd();
        } else {
            log(&c, "the descriptor sent with hello is no channel: the socket alone");
        }
    }
    if (passed >= 0) ::close(passed);
    if (rp.error == kAsleep) return true;  // answered when the sleep ends
    rp.now_ps = now_ps();
    c.seen_ps = rp.now_ps;
    rp.size = static_cast<uint32_t>(out.size());
    return send_reply(c.fd, rp, out, pass);
}

bool server::serve_channel(connection& c) {
    if (!c.ch || !channel_host::pending(*c.ch, c.served)) return false;
    wire::channel& ch = *c.ch;
    const uint32_t seq = ch.request_seq.load(std::memory_order_seq_cst);
    const wire::request rq = ch.rq;
    const size_t payload = rq.size < wire::kMaxPayload ? rq.size : wire::kMaxPayload;
    std::vector<uint8_t>& in = scratch_in_;  // (a copy: the client may scribble on its page meanwhile)
    std::vector<uint8_t>& out = scratch_out_;
    in.assign(ch.payload, ch.payload + payload);
    out.clear();
    wire::reply rp{};
    current_ = &c;
    if (static_cast<wire::op>(rq.op) == wire::op::sleep || static_cast<wire::op>(rq.op) == wire::op::hello) {
        // A sleep's reply may wait; it goes over the socket (serve-protocol.md).
        log(&c, "op %u over the channel: refused (it goes over the socket)", rq.op);
        rp.error = EOPNOTSUPP;
        ++requests_;
    } else {
        rp = handle(c, rq, in.data(), in.size(), out);
    }
    current_ = nullptr;
    c.served = seq;
    rp.now_ps = c.seen_ps = now_ps();
    rp.size = static_cast<uint32_t>(out.size());
    channel_host::deliver(ch, seq, rp, out);
    return true;
}

void server::spin_on_channels() {
    bool any = false;
    for (const auto& c : clients_) any |= c.ch != nullptr;
    if (!any) return;
    const int64_t start = clock_ns(CLOCK_MONOTONIC);
    int64_t last = start;  // about when the last request came (to 64 rounds)
    bool fresh = false;    // a request since the clock was last read
    channels_.set_spinning(true);
    for (unsigned round = 1;; ++round) {
        bool served = false;
        for (auto& c : clients_) served |= serve_channel(c);
        fresh |= served;
        if (!served) wire::cpu_relax();
        if (round % 64) continue;  // (the clock every 64 rounds, not at every request)
        const int64_t now = clock_ns(CLOCK_MONOTONIC);
        if (fresh) last = now;
        fresh = false;
        if (now - last < kSpinIdleNs && now - start < kSpinMaxNs) continue;
        // Clients ring again from here on; one more look catches a request
        // made while they still saw the server spinning.
        channels_.set_spinning(false);
        served = false;
        for (auto& c : clients_) served |= serve_channel(c);
        if (!served) return;
        channels_.set_spinning(true);
        last = clock_ns(CLOCK_MONOTONIC);
    }
}

void server::keep_wall_clock() {
    if (o_.clock != wire::clock_mode::wall) return;
    const double wall_ps = static_cast<double>(clock_ns(CLOCK_MONOTONIC) - wall_start_ns_) * 1000.0 * o_.wall_scale;
    const double limit = static_cast<double>(~time_ps{0} / 2);
    const time_ps target = wall_ps >= limit ? static_cast<time_ps>(limit) : static_cast<time_ps>(wall_ps);
    if (target > now_ps()) target_->advance(target - now_ps());
}

wire::reply server::handle(connection& c, const wire::request& rq, const uint8_t* payload, size_t payload_size,
                           std::vector<uint8_t>& out) {
    ++requests_;
    wire::reply rp{};
    const auto op = static_cast<wire::op>(rq.op);
    if (!c.greeted && op != wire::op::hello) {
        log(&c, "request %u before hello: refused", rq.op);
        rp.error = EPROTO;
        return rp;
    }
    keep_wall_clock();
    if (perf_) perf_->poll(now_ps());  // (the uncore driver's timer: no counter wrap goes unseen)
    switch (op) {
        case wire::op::hello: {
            if (rq.value >> 32 != wire::kVersion) {
                log(&c, "hello of protocol version %llu; this server speaks %u: refused",
                    static_cast<unsigned long long>(rq.value >> 32), wire::kVersion);
                rp.error = EPROTO;
                return rp;
            }
            c.greeted = true;
            c.tid = static_cast<uint32_t>(rq.value);
            wire::machine m = view_.describe(root_);
            m.clock = o_.clock;
            m.wall_scale = o_.wall_scale;
            // The clocks read as if simulated time 0 had been when the server started.
            m.epoch_realtime_ns = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC) + wall_start_ns_;
            m.epoch_monotonic_ns = wall_start_ns_;
            const auto* p = reinterpret_cast<const uint8_t*>(&m);
            out.assign(p, p + sizeof m);
            log(&c, "connected");
            return rp;
        }
        case wire::op::msr_read: rp.error = msr(c, false, rq.a, rq.b, rp.value); return rp;
        case wire::op::msr_write: rp.value = rq.value; rp.error = msr(c, true, rq.a, rq.b, rp.value); return rp;
        case wire::op::pci_read: rp.error = pci(c, false, rq.a, rq.b, rq.size, rp.value); return rp;
        case wire::op::pci_write: rp.value = rq.value; rp.error = pci(c, true, rq.a, rq.b, rq.size, rp.value); return rp;
        case wire::op::pci_dump: rp.error = pci_dump(rq.a, rq.b, rq.size, out); return rp;
        case wire::op::pci_block_write: {
            if (rq.size != payload_size) break;
            if (rq.b > 4096 || rq.size > 4096 - rq.b) {
                rp.error = EINVAL;
                return rp;
            }
            // A write() of a configuration file: naturally aligned pieces of at most 4 bytes, as the kernel does.
            for (uint32_t off = rq.b, end = rq.b + rq.size; off < end;) {
                unsigned sz = (off % 4 == 0 && end - off >= 4) ? 4 : (off % 2 == 0 && end - off >= 2) ? 2 : 1;
                uint64_t v = 0;
                std::memcpy(&v, payload + (off - rq.b), sz);
                if ((rp.error = pci(c, true, rq.a, off, sz, v)) != 0) return rp;
                off += sz;
            }
            return rp;
        }
        case wire::op::sleep: rp.error = sleep(c, rq.value); return rp;
        case wire::op::now: return rp;
        case wire::op::perf_open:
        case wire::op::perf_read:
        case wire::op::perf_ctl:
        case wire::op::perf_close:
            if (perf(c, rq, payload, payload_size, rp, out) == EBADMSG) break;
            return rp;
        case wire::op::note:
            if (rq.size != payload_size) break;
            log(&c, "%.*s", static_cast<int>(payload_size), reinterpret_cast<const char*>(payload));
            return rp;
    }
    log(&c, "malformed request (op %u, size %u, %zu payload bytes): refused", rq.op, rq.size, payload_size);
    rp.error = EBADMSG;
    return rp;
}

int server::msr(connection& c, bool write, uint32_t cpu, uint32_t msr, uint64_t& value) {
    if (cpu >= view_.cpus().size()) return ENXIO;
    const char* what = write ? "wrmsr" : "rdmsr";
    const unsigned socket = view_.cpus()[cpu].socket;
    if (!sys_.socket(socket).msr_table().find(msr) && msrs_.has(msr)) {
        bool first = false;
        const auto r = write ? msrs_.write(cpu, msr, value, first) : msrs_.read(cpu, msr, now_ps(), value, first);
        if (first) log(&c, "cpu %u MSR 0x%x: first access, outside the model (platform register file)", cpu, msr);
        log(&c, "%s cpu %u 0x%x %s 0x%llx%s", what, cpu, msr, write ? "<-" : "->",
            static_cast<unsigned long long>(value), r == platform_msr_file::result::read_only ? " (read-only: EIO)" : "");
        return r == platform_msr_file::result::ok ? 0 : EIO;
    }
    // The model's MSRs, and the ones the machine does not have (the model
    // records its #GP as a diagnostic).
    const bool ok = write ? target_->msr_write(cpu, msr, value) : target_->msr_read(cpu, msr, value);
    log(&c, "%s cpu %u 0x%x %s 0x%llx%s", what, cpu, msr, write ? "<-" : "->", static_cast<unsigned long long>(value),
        ok ? "" : " (no such MSR: EIO)");
    return ok ? 0 : EIO;
}

uint8_t* server::platform_config(const presented_function& f) {
    auto [it, fresh] = platform_config_.try_emplace(f.bdf());
    if (fresh) {
        it->second.assign(4096, 0);
        view_.config_space(f, it->second.data());
    }
    return it->second.data();
}

int server::pci(connection& c, bool write, uint32_t bdf, uint32_t offset, unsigned size, uint64_t& value) {
    const presented_function* f = view_.function(bdf);
    if (!f) return ENODEV;
    if ((size != 1 && size != 2 && size != 4 && size != 8) || offset + size > 4096) return EINVAL;
    const char* what = write ? "write" : "read";
    const unsigned bus = bdf >> 8, dev = (bdf >> 3) & 31, fn = bdf & 7;
    if (offset < 64 || !f->table) {
        // The configuration header, and the platform functions: plain bytes
        // (the header's IDs, and a platform function's read-only registers,
        // ignore writes, as the hardware's read-only bits do).
        uint8_t* bytes = platform_config(*f);
        if (f->table) {
            static thread_local uint8_t header[4096];
            view_.header(*f, header);
            bytes = header;
        }
        bool ignored = false;
        if (write) {
            for (unsigned i = 0; i < size; ++i) {
                if (offset + i < 64) continue;
                if (f->read_only(offset + i)) {
                    ignored = true;
                    continue;
                }
                bytes[offset + i] = static_cast<uint8_t>(value >> (8 * i));
            }
        } else {
            value = 0;
            for (unsigned i = 0; i < size; ++i) value |= uint64_t{bytes[offset + i]} << (8 * i);
        }
        log(&c, "config %s %02x:%02x.%u 0x%x/%u %s 0x%llx%s%s", what, bus, dev, fn, offset, size, write ? "<-" : "->",
            static_cast<unsigned long long>(value), f->table ? " (header)" : " (outside the model)",
            ignored ? " (read-only register: ignored)" : "");
        return 0;
    }
    const driver::pci_address a{0, static_cast<uint8_t>(bus), static_cast<uint8_t>(dev), static_cast<uint8_t>(fn)};
    const bool ok = write ? target_->pci_write(a, offset, size, value) : target_->pci_read(a, offset, size, value);
    log(&c, "config %s %02x:%02x.%u 0x%x/%u %s 0x%llx", what, bus, dev, fn, offset, size, write ? "<-" : "->",
        static_cast<unsigned long long>(value));
    return ok ? 0 : EIO;
}

// A listing of configuration space (lspci -x, hwloc): the header, and the
// model's registers that lie in the range (reading them has no effect);
// anything else reads 0, with no diagnostic: this is not a register access.
int server::pci_dump(uint32_t bdf, uint32_t offset, uint32_t size, std::vector<uint8_t>& out) {
    const presented_function* f = view_.function(bdf);
    if (!f) return ENODEV;
    if (offset >= 4096 || size > 4096 - offset) return EINVAL;
    std::vector<uint8_t> space(4096, 0);
    if (!f->table) {
        std::memcpy(space.data(), platform_config(*f), 4096);
    } else {
        view_.header(*f, space.data());
        const driver::pci_address a{0, static_cast<uint8_t>(bdf >> 8), static_cast<uint8_t>((bdf >> 3) & 31),
                                    static_cast<uint8_t>(bdf & 7)};
        for (const register_def& r : f->table->regs) {
            if (r.offset < 64 || r.offset + r.size <= offset || r.offset >= offset + size) continue;
            uint64_t v = 0;
            if (!target_->pci_read(a, r.offset, r.size, v)) continue;
            for (unsigned i = 0; i < r.size; ++i) space[r.offset + i] = static_cast<uint8_t>(v >> (8 * i));
        }
    }
    out.assign(space.begin() + offset, space.begin() + offset + size);
    return 0;
}

// perf_event_open and the calls on its descriptor (serve/perf_pmu.h).
int server::perf(connection& c, const wire::request& rq, const uint8_t* payload, size_t payload_size,
                 wire::reply& rp, std::vector<uint8_t>& out) {
    const uint64_t id = uint64_t{rq.b} << 32 | rq.a;
    if (!perf_) return rp.error = EIO;  // (not running: no model to program)
    switch (static_cast<wire::op>(rq.op)) {
        case wire::op::perf_open: {
            wire::perf_attr a{};
            if (rq.size != sizeof a || payload_size != sizeof a) return EBADMSG;
            std::memcpy(&a, payload, sizeof a);
            rp.error = perf_->open(a, c.pid, now_ps(), rp.value);
            if (rp.error)
                log(&c, "perf_event_open type %u cpu %d pid %d config 0x%llx: %s", a.type, a.cpu, a.pid,
                    static_cast<unsigned long long>(a.config), std::strerror(rp.error));
            break;
        }
        case wire::op::perf_read: {
            uint64_t v[3] = {};
            rp.error = perf_->read(id, now_ps(), v);
            if (!rp.error) out.assign(reinterpret_cast<uint8_t*>(v), reinterpret_cast<uint8_t*>(v) + sizeof v);
            break;
        }
        case wire::op::perf_ctl: rp.error = perf_->control(id, static_cast<uint32_t>(rq.value), now_ps()); break;
        default: rp.error = perf_->close(id, now_ps()); break;
    }
    return rp.error;
}

int server::sleep(connection& c, uint64_t ns) {
    if (o_.clock == wire::clock_mode::wall) return 0;  // (the interposer sleeps for real)
    const time_ps limit = ~time_ps{0} / 2;             // far beyond any trace; keeps sums exact
    if (ns > limit / 1000 || c.seen_ps > limit - ns * 1000) {
        log(&c, "sleep of %llu ns goes past the model's time range: EINVAL", static_cast<unsigned long long>(ns));
        return EINVAL;
    }
    const time_ps end = c.seen_ps + ns * 1000;
    log(&c, "sleep %llu ns", static_cast<unsigned long long>(ns));
    if (end <= now_ps()) return 0;
    sleepers_[c.fd] = end;
    return kAsleep;
}

}  // namespace pmonsim::serve
