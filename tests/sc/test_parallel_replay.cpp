// Parallel replay (replayer with threads > 1, replay_shard.h): each thread
// reads the trace for the ports it owns and posts them, and what they count
// is what the packets hold; the threads' steps (parallel/fork_join.h). (That
// the counts equal one thread's, bit for bit, on random traffic with bursts,
// event rows, register accesses and overflow freezes:
// tests/cli/threads_replay.sh.)
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <atomic>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "parallel/deal.h"
#include "parallel/fork_join.h"
#include "replay.h"
#include "sc/sc_harness.h"
#include "sim_target.h"

namespace pmonsim {
namespace {

constexpr unsigned kBus = 0xFF, kPmon = 2;
constexpr unsigned kDev[3] = {8, 9, 24};  // IVB-EP's QPI ports 0, 1, 2

uint64_t read_ctr(uncore_system& s, unsigned dev, unsigned i) {
    const uint64_t lo = s.pci_read(kBus, dev, kPmon, 0xA0 + 8 * i, 4);
    const uint64_t hi = s.pci_read(kBus, dev, kPmon, 0xA4 + 8 * i, 4);
    return (hi << 32) | lo;
}

TEST(ParallelReplay, EachThreadCountsItsPortsPackets) {
    uncore_config cfg;  // ivb-ep, 1 GHz QCLK
    cfg.qpi_ports = 3;
    uncore_system sys("sys", cfg);
    // Port p receives a DataC (DRS, a header and 8 data flits) every 10 + p
    // cycles and sends an NDR every 7: about 50 feeds of 16 us.
    const std::string file = ::testing::TempDir() + "parallel_replay.csv";
    constexpr uint64_t kPackets = 70000;
    {
        std::ofstream out(file);
        out << "cycle,port,dir,mc,opc,rds\n";
        for (uint64_t c = 0; c < kPackets * 13; ++c)
            for (unsigned p = 0; p < 3; ++p) {
                if (c % (10 + p) == 0 && c / (10 + p) < kPackets) out << c << ',' << p << ",rx,DRS,0,M\n";
                if (c % 7 == 0 && c / 7 < kPackets) out << c << ',' << p << ",tx,NDR,0,\n";
            }
        ASSERT_TRUE(out.good());
    }
    replayer rep(sys, {file}, replayer::checking::before, 1, 3);
    EXPECT_EQ(rep.threads(), 3u);  // the caller and two more, one port each
    EXPECT_GT(rep.feed_length(), time_ps{1'000'000});
    test::run_script([&] {
        sim_target t(sys, [&](time_ps until) { return rep.feed(until); }, rep.feed_length());
        for (unsigned d : kDev) {
            sys.pci_write(kBus, d, kPmon, 0xF4, 4, 0x30103);     // freeze, reset
            sys.pci_write(kBus, d, kPmon, 0xD8, 4, 0x00600802);  // RxL_FLITS_G1.DRS_DATA
            sys.pci_write(kBus, d, kPmon, 0xDC, 4, 0x00601002);  // RxL_FLITS_G1.DRS_NONDATA
            sys.pci_write(kBus, d, kPmon, 0xE0, 4, 0x00400600);  // TxL_FLITS_G0.DATA|NON_DATA
            sys.pci_write(kBus, d, kPmon, 0xF4, 4, 0x30000);     // unfrozen
        }
        while (const time_ps left = rep.time_left(now_ps())) t.advance(left);
    });
    for (unsigned p = 0; p < 3; ++p) {
        SCOPED_TRACE("port " + std::to_string(p));
        EXPECT_EQ(read_ctr(sys, kDev[p], 0), 8 * kPackets);  // DRS data flits
        EXPECT_EQ(read_ctr(sys, kDev[p], 1), kPackets);      // DRS headers
        EXPECT_EQ(read_ctr(sys, kDev[p], 2), kPackets);      // one flit per NDR
    }
    std::remove(file.c_str());
}

// With no traces (a --program alone) the default is one thread: threads
// would have no records to share and only meet at every feed. (Where the
// process has two cores or more, as CI's machine has, the default would
// otherwise be two threads or more.)
TEST(ParallelReplay, NoTracesTakeOneThreadByDefault) {
    uncore_config cfg;
    uncore_system sys("sys", cfg);
    replayer none(sys, {}, replayer::checking::before, 1, replayer::auto_threads);
    EXPECT_EQ(none.threads(), 1u);
    replayer asked(sys, {}, replayer::checking::before, 1, 2);  // (asked for: as asked)
    EXPECT_EQ(asked.threads(), 2u);
}

// Each step runs every part once, part 0 on the caller's thread and the
// others on threads of their own; a part's exception comes back from run()
// (the first part's, by number, when several throw) once every part is done,
// and the next step runs as usual.
TEST(ForkJoin, RunsEveryPartOnceAndRethrowsTheFirstError) {
    parallel::fork_join team(4);
    ASSERT_EQ(team.size(), 4u);
    for (int step = 0; step < 200; ++step) {
        std::vector<std::atomic<int>> runs(4);
        std::vector<std::thread::id> ids(4);
        team.run([&](unsigned k) {
            ids[k] = std::this_thread::get_id();
            ++runs[k];
        });
        for (unsigned k = 0; k < 4; ++k) EXPECT_EQ(runs[k].load(), 1) << step << " part " << k;
        EXPECT_EQ(ids[0], std::this_thread::get_id());
        EXPECT_EQ(std::set<std::thread::id>(ids.begin(), ids.end()).size(), 4u);
    }
    std::atomic<int> done{0};
    try {
        team.run([&](unsigned k) {
            ++done;
            if (k == 3) throw std::runtime_error("part 3");
            if (k == 2) throw std::runtime_error("part 2");
        });
        FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "part 2");
    }
    EXPECT_EQ(done.load(), 4);
    std::atomic<int> after{0};
    team.run([&](unsigned) { ++after; });  // (the error is not thrown again)
    EXPECT_EQ(after.load(), 4);
    parallel::fork_join alone(1);
    EXPECT_EQ(alone.size(), 1u);
    EXPECT_THROW(alone.run([](unsigned) { throw std::logic_error("part 0"); }), std::logic_error);
}

// Boxes go to threads back and forth: with two threads and the usual two
// ports, the UBox and the R2PCIe box, thread 0 takes port 0 and the R2PCIe
// box (the last dealt), thread 1 port 1 and the UBox; each thread gets one
// box of every round of n.
TEST(DealBoxes, BackAndForth) {
    const unsigned two[] = {0, 1, 1, 0, 0, 1};
    for (size_t j = 0; j < 6; ++j) EXPECT_EQ(parallel::dealt_to(j, 2), two[j]) << j;
    const unsigned three[] = {0, 1, 2, 2, 1, 0, 0, 1, 2};
    for (size_t j = 0; j < 9; ++j) EXPECT_EQ(parallel::dealt_to(j, 3), three[j]) << j;
    for (size_t j = 0; j < 5; ++j) EXPECT_EQ(parallel::dealt_to(j, 1), 0u) << j;
    for (unsigned n = 1; n <= 8; ++n)
        for (size_t round = 0; round < 4; ++round) {
            std::set<unsigned> got;
            for (size_t k = 0; k < n; ++k) got.insert(parallel::dealt_to(round * n + k, n));
            EXPECT_EQ(got.size(), n) << n << " threads, round " << round;
            EXPECT_LT(*got.rbegin(), n);
        }
}

}  // namespace
}  // namespace pmonsim
