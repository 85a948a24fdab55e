// The virtual clock's view of the software under test (serve/thread_watch.h):
// on a scripted /proc, where a process may change parent while the tree is
// read, and on the host's, with real processes.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "serve/thread_watch.h"

namespace pmonsim::serve {
namespace {

// Single-threaded processes; a hook runs before one of them is read.
class scripted_proc final : public proc_view {
public:
    struct process {
        char state = 'S';
        uint64_t times_run = 1;
        std::vector<pid_t> children;
        uint64_t run_ns = 0;
    };
    std::map<pid_t, process> procs;
    std::vector<pid_t> own;
    std::map<pid_t, std::function<void()>> before_read;
    std::vector<pid_t> read_order;

    std::vector<pid_t> threads(pid_t pid) override {
        if (auto h = before_read.find(pid); h != before_read.end()) {
            auto f = std::move(h->second);
            before_read.erase(h);
            f();
        }
        if (!procs.count(pid)) return {};
        read_order.push_back(pid);
        return {pid};
    }
    task_info task(pid_t pid, pid_t) override {
        const process& p = procs.at(pid);
        return {p.state, p.times_run, p.run_ns, p.children};
    }
    std::vector<pid_t> own_children() override { return own; }
};

// The command 10 (a client, pid 20, is its child) started 30, which forked
// 31 and exits: 31 runs.
scripted_proc daemon_start() {
    scripted_proc proc;
    proc.procs[10] = {'S', 5, {20, 30}};
    proc.procs[20] = {'S', 7, {}};
    proc.procs[30] = {'S', 2, {31}};
    proc.procs[31] = {'R', 1, {}};
    proc.own = {10};
    return proc;
}

TEST(ThreadWatch, BlockedOnlyWhenEveryThreadSleepsOrHasEnded) {
    for (const char state : {'S', 'Z', 't', 'T', 'I', 'R', 'D'}) {
        scripted_proc proc = daemon_start();
        proc.procs[31].state = state;
        const bool blocked = state != 'R' && state != 'D';
        EXPECT_EQ(snapshot({20}, proc).blocked, blocked) << "state " << state;
    }
}

TEST(ThreadWatch, TheFingerprintChangesWhenAThreadHasRun) {
    scripted_proc proc = daemon_start();
    proc.procs[31].state = 'S';
    const threads_snapshot a = snapshot({20}, proc), b = snapshot({20}, proc);
    ASSERT_TRUE(a.blocked);
    EXPECT_EQ(a.fingerprint, b.fingerprint);
    ++proc.procs[31].times_run;
    EXPECT_NE(snapshot({20}, proc).fingerprint, a.fingerprint);
    --proc.procs[31].times_run;
    proc.procs[30].children.clear();  // a thread gone from view
    EXPECT_NE(snapshot({20}, proc).fingerprint, a.fingerprint);
}

// 30 exits just before it is read, after this process's children were
// first read: 31 has become this process's child (the subreaper's) and is
// no longer 30's. It runs, so the tree is not blocked. (Reading this
// process's children only before the tree missed it: the clock jumped while
// likwid's access daemon was starting, seen once in CI.)
TEST(ThreadWatch, AProcessThatChangesParentDuringTheReadIsSeen) {
    scripted_proc proc = daemon_start();
    proc.before_read[30] = [&proc] {
        proc.procs[30] = {'Z', 2, {}};
        proc.own.push_back(31);
    };
    EXPECT_FALSE(snapshot({20}, proc).blocked);
    EXPECT_EQ(proc.read_order.back(), 31);
}

TEST(ThreadWatch, ClientsOutsideTheTreeAndRepeatsAreReadOnce) {
    scripted_proc proc = daemon_start();
    proc.procs[31].state = 'S';
    proc.procs[40] = {'S', 3, {}};  // a served process started elsewhere
    proc.own = {10, 10};
    EXPECT_TRUE(snapshot({40, 20, 20, 0, -1, 99}, proc).blocked);
    std::multiset<pid_t> read(proc.read_order.begin(), proc.read_order.end());
    EXPECT_EQ(read, (std::multiset<pid_t>{10, 20, 30, 31, 40}));
    proc.procs[40].state = 'R';
    EXPECT_FALSE(snapshot({40}, proc).blocked);
}

// run_times() reads every thread, running or not (snapshot() stops at
// the first that runs).
TEST(ThreadWatch, RunTimesCoverTheWholeTree) {
    scripted_proc proc = daemon_start();
    for (auto& [pid, p] : proc.procs) p.run_ns = 1000 * static_cast<uint64_t>(pid);
    thread_runs runs = run_times({20}, proc);
    std::sort(runs.begin(), runs.end());
    EXPECT_EQ(runs, (thread_runs{{10, 10000}, {20, 20000}, {30, 30000}, {31, 31000}}));
}

// What the clock's fallback counts (server.cpp): CPU used between looks.
TEST(ThreadWatch, TheRunMeterCountsCpuTimeUsedNotWaitedFor) {
    run_meter m;
    m.observe({{1, 500}, {2, 700}});  // the first look: before, nothing counts
    EXPECT_EQ(m.ran_ns(), 0u);
    m.observe({{2, 900}, {1, 800}});  // in any order
    EXPECT_EQ(m.ran_ns(), 500u);
    // A starved thread (runnable, no CPU) adds nothing; a new one counts
    // whole; one that has gone (2) no more; a tid reused by a new thread
    // with less time adds nothing.
    m.observe({{1, 800}, {3, 40}});
    EXPECT_EQ(m.ran_ns(), 540u);
    m.observe({{1, 100}, {3, 40}});
    EXPECT_EQ(m.ran_ns(), 540u);
    m.observe({{1, 150}, {3, 50}});
    EXPECT_EQ(m.ran_ns(), 600u);
    m.restart();
    EXPECT_EQ(m.ran_ns(), 0u);
    m.observe({{1, 5000}});  // a baseline again
    EXPECT_EQ(m.ran_ns(), 0u);
    m.observe({{1, 5001}});
    EXPECT_EQ(m.ran_ns(), 1u);
}

// --- the host's /proc ----------------------------------------------------------

// The fields of /proc/PID/stat after the command's ')': "S PPID ...".
std::istringstream stat_fields(pid_t pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
    const std::string s((std::istreambuf_iterator<char>(f)), {});
    const auto p = s.rfind(')');
    return std::istringstream(p == std::string::npos ? std::string() : s.substr(p + 1));
}
char state_of(pid_t pid) {
    char state = 0;
    stat_fields(pid) >> state;
    return state;
}
pid_t parent_of(pid_t pid) {
    char state = 0;
    pid_t ppid = 0;
    stat_fields(pid) >> state >> ppid;
    return ppid;
}
// Waits (up to 10 s) for a condition on the host's processes.
bool eventually(const std::function<bool()>& ok) {
    for (int i = 0; i < 10000; ++i) {
        if (ok()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return false;
}

TEST(ThreadWatchHost, AChildBlockedInAReadIsBlockedAndOneThatSpinsIsNot) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        char c;
        ::alarm(30);  // (gone in the end even if the test stops early)
        ::close(fds[1]);
        const ssize_t n = ::read(fds[0], &c, 1);  // (until the test writes)
        for (volatile bool spin = n == 1; spin;) {
        }
        ::_exit(0);
    }
    ::close(fds[0]);
    ASSERT_TRUE(eventually([&] { return state_of(child) == 'S'; }));
    EXPECT_TRUE(snapshot({}).blocked);
    ASSERT_EQ(::write(fds[1], "x", 1), 1);
    EXPECT_TRUE(eventually([&] { return !snapshot({}).blocked; }));
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    ::close(fds[1]);
}

// A daemon's double fork: 31 spins after its parent 30 has exited. As the
// subreaper, this process adopts 31 and still sees it run, even when asked
// about 30 alone.
TEST(ThreadWatchHost, AnAdoptedOrphanIsWatched) {
    ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t parent = ::fork();
    ASSERT_GE(parent, 0);
    if (parent == 0) {
        const pid_t orphan = ::fork();
        if (orphan == 0) {
            ::alarm(30);  // (gone in the end even if the test stops early)
            for (volatile bool spin = true; spin;) {
            }
        }
        (void)!::write(fds[1], &orphan, sizeof orphan);
        ::_exit(0);
    }
    pid_t orphan = 0;
    ASSERT_EQ(::read(fds[0], &orphan, sizeof orphan), static_cast<ssize_t>(sizeof orphan));
    ASSERT_TRUE(eventually([&] { return state_of(parent) == 'Z' && parent_of(orphan) == ::getpid(); }));
    EXPECT_FALSE(snapshot({parent}).blocked);
    ::kill(orphan, SIGKILL);
    ::waitpid(orphan, nullptr, 0);
    ::waitpid(parent, nullptr, 0);
    ::close(fds[0]);
    ::close(fds[1]);
}

}  // namespace
}  // namespace pmonsim::serve
