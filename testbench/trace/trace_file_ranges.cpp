// The file-range helpers of trace_file_ranges.h.
#include "trace/trace_file_ranges.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string_view>

#include "trace/trace_lex.h"

namespace pmonsim::trace::detail {

file_handle::file_handle(const std::string& path) : fd(::open(path.c_str(), O_RDONLY)) {}
file_handle::~file_handle() {
    if (fd >= 0) ::close(fd);
}

file_ranges::file_ranges(const std::string& path, std::vector<range> ranges)
    : file_(path), ranges_(std::move(ranges)), buf_(1 << 16) {}

file_ranges::int_type file_ranges::underflow() {
    while (at_ < ranges_.size()) {
        range& r = ranges_[at_];
        if (r.size == 0) {
            ++at_;
            continue;
        }
        const std::size_t want = static_cast<std::size_t>(std::min<uint64_t>(r.size, buf_.size()));
        const ssize_t got = ::pread(file_.fd, buf_.data(), want, static_cast<off_t>(r.offset));
        if (got <= 0) return traits_type::eof();  // shorter than it was: the single pass decides
        r.offset += static_cast<uint64_t>(got);
        r.size -= static_cast<uint64_t>(got);
        setg(buf_.data(), buf_.data(), buf_.data() + got);
        return traits_type::to_int_type(buf_[0]);
    }
    return traits_type::eof();
}

std::streamsize file_ranges::xsgetn(char* s, std::streamsize n) {
    std::streamsize done = 0;
    while (done < n) {
        if (gptr() < egptr()) {  // buffered bytes first
            const std::streamsize k = std::min<std::streamsize>(n - done, egptr() - gptr());
            std::memcpy(s + done, gptr(), static_cast<std::size_t>(k));
            gbump(static_cast<int>(k));
            done += k;
            continue;
        }
        if (n - done < static_cast<std::streamsize>(buf_.size())) {  // small: through the buffer
            if (traits_type::eq_int_type(underflow(), traits_type::eof())) break;
            continue;
        }
        if (at_ >= ranges_.size()) break;
        range& r = ranges_[at_];
        if (r.size == 0) {
            ++at_;
            continue;
        }
        const std::size_t want = static_cast<std::size_t>(std::min<uint64_t>(r.size, static_cast<uint64_t>(n - done)));
        const ssize_t got = ::pread(file_.fd, s + done, want, static_cast<off_t>(r.offset));
        if (got <= 0) break;  // shorter than it was: the single pass decides
        r.offset += static_cast<uint64_t>(got);
        r.size -= static_cast<uint64_t>(got);
        done += got;
    }
    return done;
}

// Reads n bytes at offset; false if the file has fewer.
bool read_at(int fd, uint64_t offset, char* out, std::size_t n) {
    while (n) {
        const ssize_t got = ::pread(fd, out, n, static_cast<off_t>(offset));
        if (got <= 0) return false;
        out += got;
        n -= static_cast<std::size_t>(got);
        offset += static_cast<uint64_t>(got);
    }
    return true;
}

// Where the rows of a text trace start: just after the line end of its first
// line that is neither blank nor a comment (the header), by the rules of
// trace_lines.h. 0 when it is not found in the first 64 KiB.
uint64_t text_rows_start(int fd) {
    std::vector<char> head(1 << 16);
    const ssize_t got = ::pread(fd, head.data(), head.size(), 0);
    if (got <= 0) return 0;
    const std::string_view text(head.data(), static_cast<std::size_t>(got));
    std::size_t at = 0;
    for (bool first = true; at < text.size(); first = false) {
        const std::size_t nl = text.find('\n', at);
        if (nl == std::string_view::npos) return 0;
        std::string_view line = text.substr(at, nl - at);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (first && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
        line = lex::trim(line);
        at = nl + 1;
        if (!line.empty() && line.front() != '#') return at;
    }
    return 0;
}

// Just after the first line end at or after `from` (reading the file from
// there), or 0 if there is none before `end`.
uint64_t next_line_start(int fd, uint64_t from, uint64_t end) {
    std::array<char, 4096> buf;
    while (from < end) {
        const std::size_t n = static_cast<std::size_t>(std::min<uint64_t>(buf.size(), end - from));
        if (!read_at(fd, from, buf.data(), n)) return 0;
        if (const void* nl = std::memchr(buf.data(), '\n', n))
            return from + static_cast<uint64_t>(static_cast<const char*>(nl) - buf.data()) + 1;
        from += n;
    }
    return 0;
}

}  // namespace pmonsim::trace::detail
