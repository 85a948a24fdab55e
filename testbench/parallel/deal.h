// How a parallel replay deals its boxes to threads (replayer::share_boxes).
#pragma once
#include <cstddef>

namespace pmonsim::parallel {

// The thread, of n, that takes the j-th of a list of loads: back and forth,
// 0, 1, ..., n - 1, then n - 1, ..., 1, 0, and again. When the list runs from
// heavier loads to lighter ones (the ports, then the event boxes), the thread
// that took the heaviest of one round takes the lightest of the next. (Dealt
// in one direction, two threads had port 0 with the UBox and port 1 with the
// R2PCIe box, whose rows cost more: in run-bench thread 1 ran 9 % longer, and
// thread 0 waited for it at every join.)
constexpr unsigned dealt_to(std::size_t j, unsigned n) {
    const std::size_t round = j / n, place = j % n;
    return static_cast<unsigned>(round % 2 == 0 ? place : n - 1 - place);
}

}  // namespace pmonsim::parallel
