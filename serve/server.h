// `pmonsim serve`: one simulated machine answering MSR, PCI configuration and
// time requests from many clients over a Unix socket (serve/protocol.h). The
// server is the simulation's one SystemC thread: it waits in poll() for the
// next request, so simulated time moves only when a request moves it (a
// client's sleep, or the wall clock with --clock wall), and requests are
// answered one at a time, in arrival order, each seeing every earlier one.
//
// Time with several clients (docs/validating-profilers.md, "Clock modes"):
// each connection remembers the simulated time of its last answer; a sleep of
// d ends at max(now, that time + d). So one thread's sleeps add up, threads
// that sleep at the same time overlap, and time never runs back.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "replay.h"
#include "serve/channel_host.h"
#include "serve/machine_view.h"
#include "serve/perf_pmu.h"
#include "serve/platform.h"
#include "serve/protocol.h"
#include "sim_target.h"

namespace pmonsim::serve {

// A listening SOCK_SEQPACKET socket, mode 0600. Refuses (std::runtime_error)
// when a server already answers at the path; a stale socket file (nobody
// listening) is replaced.
class listener {
public:
    explicit listener(const std::string& path);
    ~listener();
    listener(const listener&) = delete;
    listener& operator=(const listener&) = delete;
    int fd() const { return fd_; }
    const std::string& path() const { return path_; }

private:
    std::string path_;
    int fd_ = -1;
};

struct serve_options {
    wire::clock_mode clock = wire::clock_mode::virtual_time;
    double wall_scale = 1.0;      // --clock wall=SCALE
    // --busy-limit: CPU time the software's threads may use, none of them
    // asleep here, before the earliest sleep ends anyway (server.cpp).
    uint64_t busy_limit_ns = 10'000'000'000;
    bool exit_when_idle = false;  // stop when the last client has gone
    bool ignore_sigint = false;   // pmonsim exec: the terminal's ^C is for the command
    std::FILE* log = nullptr;     // every access, diagnostic and note; null: none
};

class server : public sc_core::sc_module {
public:
    server(sc_core::sc_module_name name, uncore_system& sys, replayer* rep, const machine_view& view,
           listener& l, const std::string& root, const serve_options& o);
    ~server() override;

    // pmonsim exec: the run ends when this child exits (its wait status is kept).
    void watch_child(pid_t pid) { child_ = pid; }
    int child_wait_status() const { return child_status_; }
    // Why the run ended early (an internal error), or empty.
    const std::string& error() const { return error_; }
    uint64_t requests() const { return requests_; }

    // One request, as the loop answers it (public for tests without sockets).
    struct connection {
        int fd = -1;
        pid_t pid = 0;
        uint32_t tid = 0;
        bool greeted = false;
        uint64_t seen_ps = 0;  // simulated time of the last answer
        wire::channel* ch = nullptr;  // its shared-memory channel (serve/channel.h), if it gave one
        uint32_t served = 0;          // the channel's last request answered
    };
    wire::reply handle(connection& c, const wire::request& rq, const uint8_t* payload, size_t payload_size,
                       std::vector<uint8_t>& out);

private:
    void run();
    bool serve_one(connection& c);  // false: the client has gone
    // Answers the request waiting in the client's channel, if any; true if there was one.
    bool serve_channel(connection& c);
    // After requests: keeps answering channel requests without poll() while
    // they come (kSpin*), then tells the clients to ring again.
    void spin_on_channels();
    void accept_client();
    void keep_wall_clock();
    int msr(connection& c, bool write, uint32_t cpu, uint32_t msr, uint64_t& value);
    int pci(connection& c, bool write, uint32_t bdf, uint32_t offset, unsigned size, uint64_t& value);
    int pci_dump(uint32_t bdf, uint32_t offset, uint32_t size, std::vector<uint8_t>& out);
    int sleep(connection& c, uint64_t ns);
    int perf(connection& c, const wire::request& rq, const uint8_t* payload, size_t payload_size,
             wire::reply& rp, std::vector<uint8_t>& out);
    uint8_t* platform_config(const presented_function& f);
    void log(const connection* c, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

    uncore_system& sys_;
    replayer* rep_;
    const machine_view& view_;
    listener& listener_;
    std::string root_;
    serve_options o_;
    std::unique_ptr<sim_target> target_;
    std::unique_ptr<perf_counters> perf_;  // perf_event_open's uncore events (serve/perf_pmu.h)
    platform_msr_file msrs_;
    channel_host channels_;
    std::map<uint32_t, std::vector<uint8_t>> platform_config_;  // bdf -> 4 KiB
    std::vector<connection> clients_;
    std::map<int, time_ps> sleepers_;  // connection fd -> when its pending sleep ends (server.cpp: the virtual clock)
    const connection* current_ = nullptr;  // whose request is being answered (for diagnostics)
    bool ever_connected_ = false;
    bool rang_ = false;
    std::vector<uint8_t> scratch_in_, scratch_out_;  // a channel request's payloads (kept: no allocation per request)  // a channel request came by the doorbell in this round
    pid_t child_ = 0;
    int child_status_ = 0;
    std::string error_;
    uint64_t requests_ = 0;
    int64_t wall_start_ns_ = 0;
};

}  // namespace pmonsim::serve
