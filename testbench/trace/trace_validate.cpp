// validate_trace() of a file (trace_reader.h), on two cores when it can.
//
// Validation reads a whole trace before a replay starts, while the second
// core has nothing to do. A large uncompressed regular file is therefore
// validated as two halves at once: the first half (its header, then its rows)
// on the calling thread, the second half on another thread, read as the
// file's header followed by the rows from the split on. The halves agree with
// one pass exactly when both are good and the second half's first time is
// not before the first half's last one. Anything else (a bad row, a header
// that is not what the split expected, an order error at the split) is
// settled by the ordinary single pass from the start, which gives the error
// with its file, line and column as always. So the work done twice is paid
// only by traces that fail.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <exception>
#include <fstream>
#include <memory>
#include <system_error>
#include <thread>
#include <vector>

#include "trace/trace_binary.h"
#include "trace/trace_input.h"
#include "trace/trace_lex.h"
#include "trace/trace_reader.h"
#include "trace/trace_validate.h"

namespace pmonsim::trace {

namespace {

// Files smaller than this are validated in one pass (a thread is not worth it).
constexpr uint64_t split_from = 4u << 20;

// A file descriptor, closed on destruction.
struct file_handle {
    int fd = -1;
    explicit file_handle(const std::string& path) : fd(::open(path.c_str(), O_RDONLY)) {}
    ~file_handle() {
        if (fd >= 0) ::close(fd);
    }
    file_handle(const file_handle&) = delete;
    file_handle& operator=(const file_handle&) = delete;
};

// Some byte ranges of a file, one after the other, as a streambuf (read with
// pread, so several of these may read one file at once).
class file_ranges : public std::streambuf {
public:
    struct range {
        uint64_t offset, size;
    };
    file_ranges(const std::string& path, std::vector<range> ranges)
        : file_(path), ranges_(std::move(ranges)), buf_(1 << 16) {}
    bool good() const { return file_.fd >= 0; }

protected:
    int_type underflow() override {
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

    // Large reads (the binary decoder's blocks) go straight from the file
    // into the caller's memory: one copy instead of two.
    std::streamsize xsgetn(char* s, std::streamsize n) override {
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

private:
    file_handle file_;
    std::vector<range> ranges_;
    std::size_t at_ = 0;
    std::vector<char> buf_;
};

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

}  // namespace

bool detail::validate_in_halves(const std::string& path, const std::string& name,
                                const trace_context& ctx, trace_summary& out) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
    const uint64_t size = static_cast<uint64_t>(st.st_size);
    if (size < split_from || std::thread::hardware_concurrency() < 2) return false;

    // What the file is: only uncompressed text and binary traces are split.
    file_handle f(path);
    if (f.fd < 0) return false;
    char head[detect_bytes] = {};
    if (!read_at(f.fd, 0, head, sizeof head)) return false;
    const content_kind kind = detect_content(std::string_view(head, sizeof head));
    uint64_t rows = 0, split = 0;  // where the rows start; where the second half does
    if (kind == content_kind::binary) {
        // (Version 3's packet records have no fixed size: one pass.)
        const unsigned record_bytes = static_cast<unsigned char>(head[12]) | static_cast<unsigned char>(head[13]) << 8;
        if (record_bytes != binary_format::record_size) return false;
        rows = binary_format::header_size;
        const uint64_t records = (size - rows) / binary_format::record_size;
        split = rows + records / 2 * binary_format::record_size;
    } else if (kind == content_kind::text) {
        rows = text_rows_start(f.fd);
        if (rows == 0 || rows >= size / 2) return false;
        split = next_line_start(f.fd, size / 2, size);
    } else {
        return false;
    }
    if (split <= rows || split >= size) return false;

    // The second half on another thread: the header, then the rows from `split`.
    trace_summary second{};
    std::exception_ptr second_error;
    std::thread helper;
    try {
        helper = std::thread([&] {
            try {
                file_ranges buf(path, {{0, rows}, {split, size - split}});
                std::istream in(&buf);
                if (!buf.good()) throw std::runtime_error("cannot open");
                second = validate_trace(in, name, ctx);
            } catch (...) {
                second_error = std::current_exception();
            }
        });
    } catch (const std::system_error&) {
        return false;  // no thread to be had: one pass
    }
    trace_summary first{};
    bool first_ok = true;
    try {
        file_ranges buf(path, {{0, split}});
        std::istream in(&buf);
        first_ok = buf.good();
        if (first_ok) first = validate_trace(in, name, ctx);
    } catch (...) {
        first_ok = false;
    }
    helper.join();
    if (!first_ok || second_error || first.kind != second.kind) return false;
    if (first.records && second.records && second.first < first.last) return false;
    out.kind = first.kind;
    out.records = first.records + second.records;
    out.first = first.records ? first.first : second.first;
    out.last = second.records ? second.last : first.last;
    return true;
}

trace_summary validate_trace(const std::string& path, const std::string& name,
                             const trace_context& ctx) {
    trace_summary s{};
    if (const std::string why = unreadable_reason(path); !why.empty())
        throw trace_error(name, 0, 0, "cannot open the file: " + why);
    if (detail::validate_in_halves(path, name, ctx, s)) return s;
    std::ifstream in(path, std::ios::binary);
    if (!in) throw trace_error(name, 0, 0, "cannot open the file");
    return validate_trace(in, name, ctx);
}

trace_summary validate_trace(const std::string& path, const trace_context& ctx) {
    return validate_trace(path, path, ctx);
}

}  // namespace pmonsim::trace
