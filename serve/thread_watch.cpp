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

// The numeric entries of a /proc directory.
std::vector<pid_t> numbered_entries(const std::string& dir) {
    std::vector<pid_t> out;
    DIR* d = ::opendir(dir.c_str());
    if (!d) return out;  // (gone)
    while (const dirent* e = ::readdir(d))
        if (e->d_name[0] != '.') out.push_back(static_cast<pid_t>(std::strtol(e->d_name, nullptr, 10)));
    ::closedir(d);
    return out;
}

class host_proc_view final : public proc_view {
public:
    std::vector<pid_t> threads(pid_t pid) override {
        return numbered_entries("/proc/" + std::to_string(pid) + "/task");
    }
    task_info task(pid_t pid, pid_t tid) override {
        const std::string dir = "/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid);
        task_info t;
        char buf[4096];
        // "TID (COMM) S ...": the state follows the last ')'.
        const char* p = read_small(dir + "/stat", buf) > 0 ? std::strrchr(buf, ')') : nullptr;
        if (!p || !p[1]) return t;
        t.state = p[2];
        // "run ns, wait ns, times run": the last changes whenever the thread runs.
        unsigned long long run = 0, wait = 0, times = 0;
        if (read_small(dir + "/schedstat", buf) > 0) std::sscanf(buf, "%llu %llu %llu", &run, &wait, &times);
        t.times_run = times;
        t.run_ns = run;
        add_children(dir, t.children);
        return t;
    }
    std::vector<pid_t> own_children() override {
        std::vector<pid_t> out;
        for (const pid_t tid : numbered_entries("/proc/self/task"))
            add_children("/proc/self/task/" + std::to_string(tid), out);
        return out;
    }
};

bool contains(const std::vector<pid_t>& v, pid_t p) { return std::find(v.begin(), v.end(), p) != v.end(); }

}  // namespace

proc_view& host_proc() {
    static host_proc_view view;
    return view;
}

namespace {

// Calls f(tid, task) for every thread of `pids`, of their descendants and of
// this process's children, each process once, until f returns false.
//
// This process's children are read after everything else, and again until
// they hold none not seen: a process whose parent exits while the tree is
// read moves here, so one that was not among its old parent's children when
// they were read is among these (likwid-accessD forks and its parent exits).
// Read first, they could miss it in both looks.
template <class F>
void each_task(std::vector<pid_t> pids, proc_view& proc, F&& f) {
    std::vector<pid_t> seen;
    for (bool more = true; more;) {
        while (!pids.empty()) {
            const pid_t pid = pids.back();
            pids.pop_back();
            if (pid <= 0 || contains(seen, pid)) continue;
            seen.push_back(pid);
            for (const pid_t tid : proc.threads(pid)) {
                const task_info t = proc.task(pid, tid);
                if (!f(tid, t)) return;
                pids.insert(pids.end(), t.children.begin(), t.children.end());
            }
        }
        more = false;
        for (const pid_t p : proc.own_children())
            if (!contains(seen, p)) {
                pids.push_back(p);
                more = true;
            }
    }
}

}  // namespace

threads_snapshot snapshot(std::vector<pid_t> pids, proc_view& proc) {
    threads_snapshot out;
    each_task(std::move(pids), proc, [&out](pid_t tid, const task_info& t) {
        // R runs or waits for a CPU; D waits in the kernel (I/O, a lock
        // during exec) and goes on by itself.
        if (t.state == 'R' || t.state == 'D') {
            out.blocked = false;
            return false;
        }
        out.fingerprint = (out.fingerprint ^ static_cast<uint64_t>(tid)) * 0x100000001b3ull;
        out.fingerprint = (out.fingerprint ^ t.times_run) * 0x100000001b3ull;
        return true;
    });
    return out;
}

thread_runs run_times(std::vector<pid_t> pids, proc_view& proc) {
    thread_runs out;
    each_task(std::move(pids), proc, [&out](pid_t tid, const task_info& t) {
        if (t.state != 0) out.emplace_back(tid, t.run_ns);  // (0: gone while read)
        return true;
    });
    return out;
}

void run_meter::observe(const thread_runs& now) {
    thread_runs sorted = now;
    std::sort(sorted.begin(), sorted.end());
    if (started_) {
        for (const auto& [tid, ns] : sorted) {
            const auto it = std::lower_bound(last_.begin(), last_.end(), std::make_pair(tid, uint64_t{0}));
            const uint64_t before = it != last_.end() && it->first == tid ? it->second : 0;
            ran_ns_ += ns > before ? ns - before : 0;  // (a tid reused by a new thread: less, 0)
        }
    }
    started_ = true;
    last_.swap(sorted);
}

}  // namespace pmonsim::serve
