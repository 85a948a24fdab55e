// Whether the software under test can run: the threads of a set of
// processes, of this process's children (the command of pmonsim exec and the
// orphans it adopted) and of all their descendants, read from /proc. The
// virtual clock (server.cpp) lets simulated time jump ahead only when none of
// them can ask for anything first.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <vector>

namespace pmonsim::serve {

// One thread as /proc shows it.
struct task_info {
    char state = 0;         // R, S, D, Z, ... (0: gone)
    uint64_t times_run = 0; // how often it has been scheduled (schedstat)
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

}  // namespace pmonsim::serve
