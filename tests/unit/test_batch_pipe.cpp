// batch_pipe (testbench/trace/batch_pipe.h): every channel's items arrive in
// order and complete, a producer's exception arrives after the items made
// before it, and a pipe destroyed mid-stream stops its thread.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "trace/batch_pipe.h"

namespace pmonsim::trace {
namespace {

using ints = std::vector<int>;

// A producer of `total` numbers from `start`, `size` per batch, that throws
// instead of making number `fail_at`.
batch_pipe<ints>::fill_fn numbers(int start, int total, std::size_t size, int fail_at = -1,
                                  std::atomic<int>* made = nullptr) {
    return [=, next = start](ints& b) mutable {
        if (b.size() < size) b.resize(size);
        std::size_t n = 0;
        while (n < size && next < start + total) {
            if (next == fail_at) {
                if (n) return n;  // the batch ends before the bad item...
                throw std::runtime_error("bad item " + std::to_string(next));  // ...which the next call reports
            }
            b[n++] = next++;
            if (made) ++*made;
        }
        return n;
    };
}

TEST(BatchPipe, ChannelsArriveInOrderAndComplete) {
    for (std::size_t depth : {1u, 2u, 5u}) {
        std::vector<batch_pipe<ints>::fill_fn> fills;
        fills.push_back(numbers(0, 1000, 7));
        fills.push_back(numbers(100000, 333, 64));
        fills.push_back(numbers(-50, 0, 3));  // empty
        batch_pipe<ints> pipe(std::move(fills), depth);
        std::vector<ints> got(3);
        std::vector<bool> ended(3, false);
        ints batch;
        for (int round = 0; !(ended[0] && ended[1] && ended[2]); ++round) {
            const std::size_t c = static_cast<std::size_t>(round % 3);  // interleaved consumers
            if (ended[c]) continue;
            const std::size_t n = pipe.next(c, batch);
            if (n == 0) ended[c] = true;
            got[c].insert(got[c].end(), batch.begin(), batch.begin() + static_cast<long>(n));
        }
        ASSERT_EQ(got[0].size(), 1000u) << depth;
        ASSERT_EQ(got[1].size(), 333u) << depth;
        EXPECT_TRUE(got[2].empty());
        for (int i = 0; i < 1000; ++i) ASSERT_EQ(got[0][static_cast<std::size_t>(i)], i);
        for (int i = 0; i < 333; ++i) ASSERT_EQ(got[1][static_cast<std::size_t>(i)], 100000 + i);
        EXPECT_EQ(pipe.next(0, batch), 0u);  // asked again after the end
    }
}

TEST(BatchPipe, AnErrorComesAfterTheItemsBeforeIt) {
    std::vector<batch_pipe<ints>::fill_fn> fills;
    fills.push_back(numbers(0, 100, 8, 37));
    batch_pipe<ints> pipe(std::move(fills), 2);
    ints batch, got;
    try {
        while (const std::size_t n = pipe.next(0, batch)) got.insert(got.end(), batch.begin(), batch.begin() + static_cast<long>(n));
        FAIL() << "no error";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "bad item 37");
    }
    ASSERT_EQ(got.size(), 37u);
    EXPECT_EQ(got.back(), 36);
    EXPECT_EQ(pipe.next(0, batch), 0u);  // the channel is over
}

TEST(BatchPipe, DestroyedMidStreamStopsItsThread) {
    std::atomic<int> made{0};
    {
        std::vector<batch_pipe<ints>::fill_fn> fills;
        fills.push_back(numbers(0, 1 << 30, 16, -1, &made));
        batch_pipe<ints> pipe(std::move(fills), 3);
        ints batch;
        ASSERT_EQ(pipe.next(0, batch), 16u);
        EXPECT_EQ(batch[15], 15);
    }  // joins here; a hang fails by the test's timeout
    // Only the batches ahead were made, not the billion numbers.
    EXPECT_LE(made.load(), 16 * 5);
}

}  // namespace
}  // namespace pmonsim::trace
