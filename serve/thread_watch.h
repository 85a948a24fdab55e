// Whether the software under test can run: the threads of a set of
// processes, of this process's children (the command of pmonsim exec and the
// orphans it adopted) and of all their descendants, read from /proc. The
// virtual clock (server.cpp) lets simulated time jump ahead only when none of
// them can ask for anything first.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace pmonsim::serve {

// One thread as /proc shows it.
struct task_info {
    char state = 0;         // R, S, D, Z, ... (0: gone)
    uint64_t times_run = 0; // how often it has been scheduled (schedstat)
    uint64_t run_ns = 0;    // time it has run on a CPU (schedstat)
    std::vector<pid_t> children;
};

// What the watch reads of /proc; tests give it a scripted one.
class proc_view {
public:
    virtual ~proc_view() = default;
    // The threads of a process (empty when it has gone).
    virtual std::vector<pid_t> threads(pid_t pid) = 0;
    virtual task_info task(pid_t pid, pid_t tid) = 0;
    // This process's children: an orphan moves here (the subreaper) when its parent exits.
    virtual std::vector<pid_t> own_children() = 0;
};
// The host's /proc.
proc_view& host_proc();

// The threads at one moment: whether none is running, runnable or in an
// uninterruptible wait, and a fingerprint of how often each has run, so that
// two snapshots with the same fingerprint show that none ran between.
struct threads_snapshot {
    bool blocked = true;
    uint64_t fingerprint = 0;
};
threads_snapshot snapshot(std::vector<pid_t> pids, proc_view& proc = host_proc());

// How long each of the same threads has run on a CPU: {tid, ns}.
using thread_runs = std::vector<std::pair<pid_t, uint64_t>>;
thread_runs run_times(std::vector<pid_t> pids, proc_view& proc = host_proc());

// CPU time the watched threads have used since restart(), from successive
// run_times(): what a thread used between two looks counts, a thread first
// seen after the first look counts whole (it is new), and a thread that has
// gone counts no more. Runnable threads that get no CPU (a busy machine) add
// nothing, unlike wall time.
class run_meter {
public:
    void restart() {
        last_.clear();
        started_ = false;
        ran_ns_ = 0;
    }
    void observe(const thread_runs& now);
    uint64_t ran_ns() const { return ran_ns_; }

private:
    thread_runs last_;  // sorted by tid
    bool started_ = false;
    uint64_t ran_ns_ = 0;
};

}  // namespace pmonsim::serve
