// The physical lines of a text trace, split where the bytes already are: a
// line inside one buffer of the source is returned as a view of it, and only
// a line that straddles two buffers is copied (into a carry buffer). The
// input is read ahead exactly as far as it was by reading it byte by byte, so
// a broken gzip stream fails at the same line.
//
// A line is returned without its end ("\n"; a "\r" before it is dropped too),
// and the first line without a UTF-8 byte-order mark. A line longer than
// max_length (counted before the "\r" is dropped) is an error.
//
// Every view returned has `padding` readable bytes after its end (of no
// particular value): the text decoder reads fields a word at a time.
#pragma once
#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "trace/trace_input.h"

namespace pmonsim::trace {

class line_reader {
public:
    static constexpr std::size_t padding = source_buf::padding;

    line_reader(source_buf& src, const std::string& filename, std::size_t max_length)
        : src_(src), file_(filename), max_(max_length), carry_(256 + padding) {}

    // The next line; false at the end of the input. The view is valid until
    // the next call. Throws trace_error "FILE:LINE: line is longer than N
    // characters", or what the source throws.
    bool next(std::string_view& line) {
        if (p_ != e_ && number_ != 0) {
            const void* nl = std::memchr(p_, '\n', static_cast<std::size_t>(e_ - p_));
            if (nl) {
                const char* end = static_cast<const char*>(nl);
                const std::size_t n = static_cast<std::size_t>(end - p_);
                if (n <= max_) {
                    line = std::string_view(p_, n - (n && end[-1] == '\r'));
                    p_ = end + 1;
                    ++number_;
                    return true;
                }
            }
        }
        return next_slow(line);
    }

    // The number of the line last returned (1-based; 0 before the first).
    unsigned number() const { return number_; }

private:
    bool next_slow(std::string_view& line);
    void carry(const char* p, std::size_t n);

    source_buf& src_;
    const std::string& file_;
    std::size_t max_;
    const char* p_ = nullptr;  // the unread part of the source's last buffer
    const char* e_ = nullptr;
    std::vector<char> carry_;  // a line that straddles two buffers, then padding
    std::size_t carried_ = 0;  // its length
    unsigned number_ = 0;
    bool at_end_ = false;
};

}  // namespace pmonsim::trace
