// Whether the software under test can run: the threads of a set of
// processes and of all their descendants, read from /proc. The virtual clock
// (server.cpp) lets simulated time jump ahead only when none of them can ask
// for anything first.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <vector>

namespace pmonsim::serve {

// The threads of these processes and of their descendants at one moment:
// whether none is running, runnable or in an uninterruptible wait, and a
// fingerprint of how often each has run (/proc/PID/task/TID/schedstat), so
// that two snapshots with the same fingerprint show that none ran between.
struct threads_snapshot {
    bool blocked = true;
    uint64_t fingerprint = 0;
};
threads_snapshot snapshot(std::vector<pid_t> pids);

// This process's children: the command of pmonsim exec and the orphans it adopted.
std::vector<pid_t> children_of_self();

}  // namespace pmonsim::serve
