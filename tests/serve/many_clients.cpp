// Run under `pmonsim exec --connect` by many_clients.sh, several at once:
// each thread owns one MSR of one CPU (IA32_PERFEVTSEL0, a platform
// register of its own per CPU), writes values tagged with its process and
// thread and reads each back, while the others do the same. Any lost,
// mixed-up or misrouted reply shows as a wrong value. Prints "ok N" with
// the number of round trips.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: many_clients FIRST_CPU THREADS ROUNDS\n");
        return 2;
    }
    const unsigned first = static_cast<unsigned>(std::atoi(argv[1]));
    const unsigned threads = static_cast<unsigned>(std::atoi(argv[2]));
    const unsigned rounds = static_cast<unsigned>(std::atoi(argv[3]));
    std::atomic<unsigned> bad{0};
    std::atomic<uint64_t> trips{0};
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            const std::string dev = "/dev/cpu/" + std::to_string(first + t) + "/msr";
            const int fd = open(dev.c_str(), O_RDWR);
            if (fd < 0) {
                ++bad;
                return;
            }
            for (unsigned r = 0; r < rounds; ++r) {
                const uint64_t v = (uint64_t{static_cast<uint32_t>(getpid())} << 32) | (uint64_t{t} << 20) | r;
                uint64_t got = 0;
                if (pwrite(fd, &v, 8, 0x186) != 8 || pread(fd, &got, 8, 0x186) != 8 || got != v) {
                    if (bad++ < 5)
                        std::fprintf(stderr, "cpu %u round %u: wrote %" PRIx64 ", read %" PRIx64 "\n", first + t, r, v,
                                     got);
                }
                trips += 2;
            }
            close(fd);
        });
    for (auto& th : pool) th.join();
    if (bad) return 1;
    std::printf("ok %" PRIu64 "\n", trips.load());
    return 0;
}
