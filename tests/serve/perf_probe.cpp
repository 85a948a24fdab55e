// perf_event_open on the served machine's uncore PMUs, call by call (run
// under `pmonsim exec` by perf_e2e.sh): the kernel's errors for what its
// uncore driver refuses, and read()/ioctl() of a counting event. Prints one
// "name value" line per check; the script compares them.
#include <linux/perf_event.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>

namespace {

uint32_t type_of(const char* pmu) {
    std::ifstream f(std::string("/sys/bus/event_source/devices/") + pmu + "/type");
    uint32_t t = 0;
    f >> t;
    return t;
}

perf_event_attr attr(uint32_t type, uint64_t config) {
    perf_event_attr a{};
    a.size = sizeof a;
    a.type = type;
    a.config = config;
    return a;
}

int open_event(const perf_event_attr& a, int pid, int cpu) {
    return static_cast<int>(syscall(SYS_perf_event_open, &a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC));
}

// "ok" or the errno's name, for an open that should fail.
void expect(const char* name, const perf_event_attr& a, int pid, int cpu) {
    const int fd = open_event(a, pid, cpu);
    const int e = errno;
    std::printf("%s %s\n", name, fd >= 0 ? "ok" : e == ENOENT ? "ENOENT" : e == EINVAL ? "EINVAL" : strerror(e));
    if (fd >= 0) close(fd);
}

void sleep_ms(long ms) {
    timespec t{ms / 1000, (ms % 1000) * 1'000'000};
    nanosleep(&t, nullptr);
}

}  // namespace

int main() {
    const uint32_t ubox = type_of("uncore_ubox"), r2pcie = type_of("uncore_r2pcie");
    if (!ubox || !r2pcie) {
        std::printf("no uncore PMUs in sysfs\n");
        return 1;
    }
    expect("raw_type", attr(PERF_TYPE_RAW, 0x1), -1, 0);
    expect("hardware_type", attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES), -1, 0);
    expect("unlisted_type", attr(49, 0), -1, 0);
    expect("per_task", attr(ubox, 0xff), 0, -1);
    expect("task_on_cpu", attr(ubox, 0xff), static_cast<int>(getpid()), 0);
    expect("no_cpu", attr(ubox, 0xff), -1, -1);
    perf_event_attr s = attr(ubox, 0xff);
    s.sample_period = 1000;
    expect("sampling", s, -1, 0);
    perf_event_attr x = attr(ubox, 0xff);
    x.exclude_kernel = 1;
    expect("exclude_kernel", x, -1, 0);
    expect("r2pcie_fixed", attr(r2pcie, 0xff), -1, 0);

    // The UBox's UCLK counter on a CPU of socket 0 that is not its cpumask CPU.
    perf_event_attr c = attr(ubox, 0xff);
    c.disabled = 1;
    c.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
    const int fd = open_event(c, -1, 3);
    if (fd < 0) {
        std::printf("open_clockticks %s\n", strerror(errno));
        return 1;
    }
    uint64_t v[4] = {};
    sleep_ms(1);  // disabled: nothing counts
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    sleep_ms(2);
    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
    sleep_ms(1);
    const ssize_t n = read(fd, v, sizeof v);
    uint64_t id = 0;
    ioctl(fd, PERF_EVENT_IOC_ID, &id);
    std::printf("read_bytes %zd\ncount %llu\nenabled_ns %llu\nrunning_ns %llu\nid_matches %d\n", n,
                static_cast<unsigned long long>(v[0]), static_cast<unsigned long long>(v[1]),
                static_cast<unsigned long long>(v[2]), v[3] == id && id != 0);
    std::printf("short_read %s\n", read(fd, v, 16) < 0 && errno == ENOSPC ? "ENOSPC" : "accepted");
    ioctl(fd, PERF_EVENT_IOC_RESET, 0);
    read(fd, v, sizeof v);
    std::printf("after_reset %llu\n", static_cast<unsigned long long>(v[0]));
    std::printf("unknown_ioctl %s\n", ioctl(fd, _IO('$', 0x7f), 0) < 0 && errno == ENOTTY ? "ENOTTY" : "accepted");
    std::printf("close %d\n", close(fd));

    // A 48-bit wrap between two reads: the fixed counter set 1000 short of
    // 2^48 (through the msr driver) before the event starts; 1 ms later it
    // has wrapped, and the event still counts 2 M cycles.
    const int msr = open("/dev/cpu/0/msr", O_RDWR);
    const uint64_t near_wrap = (uint64_t{1} << 48) - 1000;
    if (msr < 0 || pwrite(msr, &near_wrap, 8, 0xc09) != 8) {
        std::printf("msr_write failed\n");
        return 1;
    }
    perf_event_attr w = attr(ubox, 0xff);
    w.disabled = 1;
    const int wfd = open_event(w, -1, 0);
    ioctl(wfd, PERF_EVENT_IOC_ENABLE, 0);
    sleep_ms(1);
    uint64_t raw = 0, wc = 0;
    pread(msr, &raw, 8, 0xc09);
    read(wfd, &wc, sizeof wc);
    std::printf("wrapped_counter %llu\nwrapped_count %llu\n", static_cast<unsigned long long>(raw),
                static_cast<unsigned long long>(wc));
    close(wfd);
    close(msr);

    // A group: the UCLK counter leads, a general UBox event follows; one
    // read gives both; it must fit the box and count the leader's socket.
    perf_event_attr g = attr(ubox, 0xff);
    g.disabled = 1;
    g.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED;
    const int lead = open_event(g, -1, 0);
    perf_event_attr m = attr(ubox, 0x0);  // event 0: enabled, counts nothing
    const int member = static_cast<int>(syscall(SYS_perf_event_open, &m, -1, 0, lead, PERF_FLAG_FD_CLOEXEC));
    const int other_socket = static_cast<int>(syscall(SYS_perf_event_open, &m, -1, 16, lead, 0));
    std::printf("group_other_socket %s\n", other_socket < 0 && errno == EINVAL ? "EINVAL" : "accepted");
    const int second = static_cast<int>(syscall(SYS_perf_event_open, &m, -1, 0, lead, 0));
    const int third = static_cast<int>(syscall(SYS_perf_event_open, &m, -1, 0, lead, 0));  // the UBox has 2
    std::printf("group_too_big %s\n", second >= 0 && third < 0 && errno == EINVAL ? "EINVAL" : "accepted");
    close(second);
    const int not_perf = static_cast<int>(syscall(SYS_perf_event_open, &m, -1, 0, 0, 0));
    std::printf("group_fd_not_perf %s\n", not_perf < 0 && errno == EBADF ? "EBADF" : "accepted");
    ioctl(lead, PERF_EVENT_IOC_ENABLE, 0);
    sleep_ms(1);
    ioctl(lead, PERF_EVENT_IOC_DISABLE, 0);
    uint64_t gv[8] = {};
    const ssize_t gn = read(lead, gv, sizeof gv);
    uint64_t mid = 0;
    ioctl(member, PERF_EVENT_IOC_ID, &mid);
    std::printf("group_read_bytes %zd\ngroup_nr %llu\ngroup_enabled_ns %llu\ngroup_leader %llu\n"
                "group_member %llu\ngroup_member_id %d\n",
                gn, static_cast<unsigned long long>(gv[0]), static_cast<unsigned long long>(gv[1]),
                static_cast<unsigned long long>(gv[2]), static_cast<unsigned long long>(gv[4]), gv[5] == mid);
    close(lead);
    close(member);
    return 0;
}
