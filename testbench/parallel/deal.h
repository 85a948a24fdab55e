// How a parallel replay deals its boxes to threads (replayer::share_boxes).
#pragma once
#include <cstddef>

namespace pmonsim::parallel {

// The thread, of n, that takes the j-th of a list of loads given heaviest
// first: back and forth, 0, 1, ..., n - 1, then n - 1, ..., 1, 0, and again,
// so that the thread that took the heaviest load of one round takes the
// lightest of the next. (Dealt in one direction, thread 0 took the first
// port and the first event box, and the other threads waited for it.)
constexpr unsigned dealt_to(std::size_t j, unsigned n) {
    const std::size_t round = j / n, place = j % n;
    return static_cast<unsigned>(round % 2 == 0 ? place : n - 1 - place);
}

}  // namespace pmonsim::parallel
