// The exit statuses the pmonsim programs share (docs/user-guide.md), and the
// error their option checks throw for bad input (status 2).
#pragma once
#include <stdexcept>

namespace pmonsim {

constexpr int kExitOk = 0, kExitInternal = 1, kExitBadInput = 2, kExitStrict = 3;

struct bad_input : std::runtime_error {
    using std::runtime_error::runtime_error;
};

}  // namespace pmonsim
