#include "serve/thread_watch.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace pmonsim::serve {

namespace {

// The file at `path` (up to 4 KiB) into `buf`, NUL-terminated; its length or -1.
ssize_t read_small(const std::string& path, char (&buf)[4096]) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    const ssize_t n = ::read(fd, buf, sizeof buf - 1);
    ::close(fd);
    buf[n > 0 ? n : 0] = 0;
    return n;
}

// The pids of a /proc/PID/task/TID/children file, appended to `out`.
void add_children(const std::string& task_dir, std::vector<pid_t>& out) {
    char buf[4096];
    if (read_small(task_dir + "/children", buf) <= 0) return;
    for (char* q = buf; *q;) {
        char* end = nullptr;
        const long pid = std::strtol(q, &end, 10);
        if (end == q) break;
        out.push_back(static_cast<pid_t>(pid));
        q = end;
    }
}

}  // namespace

threads_snapshot snapshot(std::vector<pid_t> pids) {
    threads_snapshot out;
    std::vector<pid_t> seen;
    while (!pids.empty() && out.blocked) {
        const pid_t pid = pids.back();
        pids.pop_back();
        if (pid <= 0 || std::find(seen.begin(), seen.end(), pid) != seen.end()) continue;
        seen.push_back(pid);
        const std::string dir = "/proc/" + std::to_string(pid) + "/task/";
        DIR* d = ::opendir(dir.c_str());
        if (!d) continue;  // (gone)
        while (const dirent* e = ::readdir(d)) {
            if (e->d_name[0] == '.') continue;
            const std::string task = dir + e->d_name;
            char buf[4096];
            // "TID (COMM) S ...": the state follows the last ')'. R runs or
            // waits for a CPU; D waits in the kernel (I/O, a lock during exec)
            // and goes on by itself.
            const char* p = read_small(task + "/stat", buf) > 0 ? std::strrchr(buf, ')') : nullptr;
            if (p && p[1] && (p[2] == 'R' || p[2] == 'D')) {
                out.blocked = false;
                break;
            }
            // "run ns, wait ns, times run": the last changes whenever the thread runs.
            unsigned long long run = 0, wait = 0, times = 0;
            if (read_small(task + "/schedstat", buf) > 0) std::sscanf(buf, "%llu %llu %llu", &run, &wait, &times);
            out.fingerprint = (out.fingerprint ^ std::strtoull(e->d_name, nullptr, 10)) * 0x100000001b3ull;
            out.fingerprint = (out.fingerprint ^ times) * 0x100000001b3ull;
            add_children(task, pids);
        }
        ::closedir(d);
    }
    return out;
}

std::vector<pid_t> children_of_self() {
    std::vector<pid_t> out;
    DIR* d = ::opendir("/proc/self/task");
    if (!d) return out;
    while (const dirent* e = ::readdir(d))
        if (e->d_name[0] != '.') add_children(std::string("/proc/self/task/") + e->d_name, out);
    ::closedir(d);
    return out;
}

}  // namespace pmonsim::serve
