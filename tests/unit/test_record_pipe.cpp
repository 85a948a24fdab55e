// record_pipe: the replay's reading thread hands records over in order, ends
// cleanly, reports a reader's error at the place it happened, and can be
// abandoned mid-stream.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>

#include "record_pipe.h"

namespace pmonsim {
namespace {

using trace::packet_record;

// A source of n packet records numbered by `line`, throwing at record `fail_at`.
record_pipe::source_fn numbered(unsigned n, unsigned fail_at = ~0u, std::atomic<unsigned>* made = nullptr) {
    auto next = std::make_shared<unsigned>(0);
    return [=](record_pipe::record& r) {
        if (*next == fail_at) throw std::runtime_error("bad record " + std::to_string(fail_at));
        if (*next == n) return false;
        packet_record p;
        p.line = ++*next;
        p.time = 10ull * p.line;
        r.source = p.line % 3;
        r.record = p;
        if (made) ++*made;
        return true;
    };
}

TEST(RecordPipe, DeliversEveryRecordInOrderAcrossBatches) {
    for (unsigned n : {0u, 1u, 7u, 8u, 9u, 1000u}) {
        record_pipe pipe(numbered(n), 8, 3);  // small batches: many hand-overs
        unsigned seen = 0;
        while (const record_pipe::record* r = pipe.next()) {
            ++seen;
            const auto& p = std::get<packet_record>(r->record);
            ASSERT_EQ(p.line, seen) << "n " << n;
            ASSERT_EQ(p.time, 10ull * seen);
            ASSERT_EQ(r->source, seen % 3);
        }
        EXPECT_EQ(seen, n);
        EXPECT_EQ(pipe.next(), nullptr) << "stays at the end";
    }
}

TEST(RecordPipe, ErrorArrivesAfterTheRecordsBeforeIt) {
    record_pipe pipe(numbered(100, 37), 8, 2);
    unsigned seen = 0;
    try {
        while (pipe.next()) ++seen;
        FAIL() << "no error";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "bad record 37");
    }
    EXPECT_EQ(seen, 37u);
    EXPECT_EQ(pipe.next(), nullptr);
}

TEST(RecordPipe, ReadsAheadOnlyAsFarAsItsBatches) {
    std::atomic<unsigned> made{0};
    {
        record_pipe pipe(numbered(1000000, ~0u, &made), 16, 2);
        ASSERT_NE(pipe.next(), nullptr);
        // Abandoned here: the producer is blocked on full batches and must stop.
    }
    EXPECT_LE(made.load(), 16u * 2) << "memory stays flat: at most depth batches of records";
}

}  // namespace
}  // namespace pmonsim
