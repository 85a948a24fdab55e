// A program run under `pmonsim exec` by interposer_probe.sh: it exercises the
// calls the interposer serves and prints what it saw, one "key value" line
// each, for the script to check against the served machine.
#include <cpuid.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/select.h>
#include <sys/time.h>
#include <unistd.h>
#include <x86intrin.h>

#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <thread>

namespace {

int64_t ns_of(clockid_t c) {
    timespec t{};
    clock_gettime(c, &t);
    return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

// Each sleeping call, measured on the monotonic clock.
void sleeps() {
    int64_t t0 = ns_of(CLOCK_MONOTONIC);
    timespec d{0, 1'500'000};
    nanosleep(&d, nullptr);
    int64_t t1 = ns_of(CLOCK_MONOTONIC);
    std::printf("nanosleep_ns %" PRId64 "\n", t1 - t0);
    usleep(250);
    int64_t t2 = ns_of(CLOCK_MONOTONIC);
    std::printf("usleep_ns %" PRId64 "\n", t2 - t1);
    timespec until{};
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_nsec += 700'000;
    if (until.tv_nsec >= 1'000'000'000) until.tv_sec += 1, until.tv_nsec -= 1'000'000'000;
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nullptr);
    int64_t t3 = ns_of(CLOCK_MONOTONIC);
    std::printf("clock_nanosleep_abs_ns %" PRId64 "\n", t3 - t2);
    timeval tv{0, 3000};
    std::printf("select_ret %d\n", select(0, nullptr, nullptr, nullptr, &tv));
    int64_t t4 = ns_of(CLOCK_MONOTONIC);
    std::printf("select_ns %" PRId64 "\n", t4 - t3);
    std::printf("poll_ret %d\n", poll(nullptr, 0, 2));
    int64_t t5 = ns_of(CLOCK_MONOTONIC);
    std::printf("poll_ns %" PRId64 "\n", t5 - t4);
    timeval g0{}, g1{};
    gettimeofday(&g0, nullptr);
    sleep(2);
    gettimeofday(&g1, nullptr);
    std::printf("sleep_gettimeofday_us %" PRId64 "\n",
                (int64_t{g1.tv_sec} - g0.tv_sec) * 1'000'000 + (g1.tv_usec - g0.tv_usec));
    // std::this_thread::sleep_for, as C++ tools sleep.
    const int64_t r0 = ns_of(CLOCK_REALTIME);
    std::this_thread::sleep_for(std::chrono::microseconds(40));
    std::printf("sleep_for_realtime_ns %" PRId64 "\n", ns_of(CLOCK_REALTIME) - r0);
    // The TSC follows simulated time.
    const uint64_t c0 = __rdtsc();
    timespec ms{0, 1'000'000};
    nanosleep(&ms, nullptr);
    const uint64_t c1 = __rdtsc();
    std::printf("rdtsc_per_ms %" PRIu64 "\n", c1 - c0);
    unsigned aux = 0;
    const uint64_t c2 = __rdtscp(&aux);
    std::printf("rdtscp_monotonic %d\n", c2 >= c1 ? 1 : 0);
}

void identity(const char* tag) {
    unsigned a, b, c, d;
    __cpuid(0, a, b, c, d);
    char vendor[13];
    std::memcpy(vendor, &b, 4);
    std::memcpy(vendor + 4, &d, 4);
    std::memcpy(vendor + 8, &c, 4);
    vendor[12] = 0;
    __cpuid(1, a, b, c, d);
    const unsigned family = (a >> 8) & 15, model = ((a >> 4) & 15) | ((a >> 12) & 0xF0);
    unsigned x2apic, e2, e3, e4;
    __cpuid_count(0xB, 0, e2, e3, e4, x2apic);
    std::printf("%s_cpu %d vendor %s family %u model %u apic %u x2apic %u\n", tag, sched_getcpu(), vendor, family, model,
                b >> 24, x2apic);
}

void cpus() {
    std::printf("nprocs %ld\n", sysconf(_SC_NPROCESSORS_ONLN));
    cpu_set_t set;
    CPU_ZERO(&set);
    sched_getaffinity(0, sizeof set, &set);
    std::printf("affinity_count %d\n", CPU_COUNT(&set));
    identity("unpinned");
    CPU_ZERO(&set);
    CPU_SET(19, &set);
    const int pinned = sched_setaffinity(0, sizeof set, &set);
    std::printf("setaffinity %d\n", pinned);
    identity("pinned19");
    CPU_ZERO(&set);
    CPU_SET(200, &set);  // no such CPU
    errno = 0;
    const int none = sched_setaffinity(0, sizeof set, &set);
    std::printf("setaffinity_none %d errno %d\n", none, errno);
    // Another thread pins itself elsewhere; this one stays on 19.
    std::thread t([] {
        cpu_set_t s;
        CPU_ZERO(&s);
        CPU_SET(3, &s);
        pthread_setaffinity_np(pthread_self(), sizeof s, &s);
        identity("thread3");
    });
    t.join();
    identity("after_thread");
}

// The msr driver's rules. (Each call before its printf: argument order is unspecified.)
void msr_rules() {
    const int fd = open("/dev/cpu/0/msr", O_RDWR);
    uint64_t v = 0x400000;
    ssize_t r = pwrite(fd, &v, 8, 0xC10);
    std::printf("msr_pwrite %zd\n", r);
    v = 0;
    r = pread(fd, &v, 8, 0xC10);
    std::printf("msr_pread %zd value 0x%" PRIx64 "\n", r, v);
    errno = 0;
    r = pread(fd, &v, 4, 0xC10);
    std::printf("msr_short %zd errno %d\n", r, errno);
    errno = 0;
    r = pread(fd, &v, 8, 0x12345);
    std::printf("msr_missing %zd errno %d\n", r, errno);
    const long at = static_cast<long>(lseek(fd, 0xC10, SEEK_SET));
    std::printf("msr_lseek 0x%lx\n", at);
    uint64_t two[2] = {};
    r = read(fd, two, 16);
    const long pos = static_cast<long>(lseek(fd, 0, SEEK_CUR));
    std::printf("msr_read16 %zd 0x%" PRIx64 " 0x%" PRIx64 " pos 0x%lx\n", r, two[0], two[1], pos);
    errno = 0;
    const long end = static_cast<long>(lseek(fd, 0, SEEK_END));
    std::printf("msr_seek_end %ld errno %d\n", end, errno);
    close(fd);
    errno = 0;
    const int none = open("/dev/cpu/999/msr", O_RDONLY);
    std::printf("msr_nocpu %d errno %d\n", none, errno);
    const int cfg = open("/sys/bus/pci/devices/0000:ff:08.2/config", O_RDWR);
    uint32_t id = 0;
    r = pread(cfg, &id, 4, 0);
    std::printf("config_pread %zd id 0x%08x\n", r, id);
    r = pread(cfg, &id, 4, 4096);
    std::printf("config_past_end %zd\n", r);
    unsigned char head[64];
    r = read(cfg, head, 64);
    const long cpos = static_cast<long>(lseek(cfg, 0, SEEK_CUR));
    std::printf("config_read64 %zd pos %ld class %02x%02x\n", r, cpos, head[11], head[10]);
    close(cfg);
}

}  // namespace

int main() {
    msr_rules();
    cpus();
    sleeps();
    return 0;
}
