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
#include "trace/trace_file_ranges.h"
#include "trace/trace_validate.h"

namespace pmonsim::trace {

namespace {

using detail::file_handle;
using detail::file_ranges;
using detail::next_line_start;
using detail::read_at;
using detail::text_rows_start;

// Files smaller than this are validated in one pass (a thread is not worth it).
constexpr uint64_t split_from = 4u << 20;

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
