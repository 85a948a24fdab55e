// The physical lines of a text trace (trace_lines.h): the general case,
// where a line may straddle buffers, be too long, end the input, or be the
// first one (which may start with a byte-order mark).
#include "trace/trace_lines.h"

#include <algorithm>

#include "trace/trace_reader.h"

namespace pmonsim::trace {

void line_reader::carry(const char* p, std::size_t n) {
    if (carried_ + n + padding > carry_.size())
        carry_.resize(std::max(carry_.size() * 2, carried_ + n + padding));
    std::memcpy(carry_.data() + carried_, p, n);
    carried_ += n;
}

bool line_reader::next_slow(std::string_view& line) {
    if (at_end_) return false;
    carried_ = 0;
    for (;;) {
        if (p_ == e_) {
            const std::string_view chunk = src_.take();
            if (chunk.empty()) {
                at_end_ = true;
                if (carried_ == 0) return false;  // nothing was read
                line = std::string_view(carry_.data(), carried_);
                break;
            }
            p_ = chunk.data();
            e_ = p_ + chunk.size();
        }
        const char* nl = static_cast<const char*>(
            std::memchr(p_, '\n', static_cast<std::size_t>(e_ - p_)));
        const std::size_t n = static_cast<std::size_t>((nl ? nl : e_) - p_);
        // Reading byte by byte, the reader failed at character max + 1 of
        // the line, which is in this buffer: fail before reading another one,
        // with that character consumed (a caller reading on gets the rest of
        // the line as the next one, as it always did).
        if (carried_ + n > max_) {
            p_ += max_ - carried_ + 1;
            carried_ = 0;
            ++number_;
            throw trace_error(file_, number_, 0,
                              "line is longer than " + std::to_string(max_) + " characters");
        }
        if (nl && carried_ == 0) {
            line = std::string_view(p_, n);
            p_ = nl + 1;
            break;
        }
        carry(p_, n);
        p_ += n;
        if (nl) {
            ++p_;
            line = std::string_view(carry_.data(), carried_);
            break;
        }
    }
    ++number_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (number_ == 1 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
    return true;
}

}  // namespace pmonsim::trace
