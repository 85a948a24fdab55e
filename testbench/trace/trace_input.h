// Byte sources under the trace readers: a buffered stream that can be peeked
// at without consuming it (so a trace's format is told apart by its first
// bytes, even on a pipe), and a gzip decompressor on top of it. Both hold one
// fixed-size buffer each, so memory does not depend on the length of the input.
//
// Content detection (detect_content): 1f 8b is gzip, 28 b5 2f fd zstd; "PMON"
// starts a binary trace (trace_binary.h; a wrong rest of the magic is then an
// error, not text); the magic numbers of xz and bzip2 are recognised only to
// say that those compressions are not read; anything else is text.
#pragma once
#include <cstddef>
#include <memory>
#include <streambuf>
#include <string>
#include <string_view>

namespace pmonsim::trace {

// Why `path` cannot be read as an input file: "is a directory", or the
// system's reason (errno: "No such file or directory", "Permission denied",
// "Too many open files"); empty when it can be opened for reading.
std::string unreadable_reason(const std::string& path);

// A read-only streambuf over produce(): fills its own buffer, peek() looks
// ahead without consuming, large sgetn() calls are produced straight into the
// caller's memory. produce() may throw (trace_error); the exception reaches the
// caller of sbumpc()/sgetn() (wrapping this in a std::istream would swallow it).
class source_buf : public std::streambuf {
public:
    static constexpr std::size_t default_capacity = 1 << 16;
    // Readable (zero) bytes after the buffer, so that a view of its bytes
    // may be read a word past its end (the text decoder reads fields 8 and
    // lines 16 bytes at a time).
    static constexpr std::size_t padding = 64;
    explicit source_buf(std::size_t capacity = default_capacity);
    ~source_buf() override;

    // The next up to n (<= capacity) bytes, not consumed: fewer only at the end.
    std::string_view peek(std::size_t n);

    // Every byte buffered now, consumed; when none is, one produce() first (so
    // the input is read ahead exactly as far as by sbumpc()). Empty only at the
    // end. The view is valid until the next call of any member, and `padding`
    // bytes after it are readable: the line reader splits lines in it without
    // copying them.
    std::string_view take();

protected:
    // Up to cap bytes into dst; 0 only at the end of the input.
    virtual std::size_t produce(char* dst, std::size_t cap) = 0;

    int_type underflow() override;
    std::streamsize xsgetn(char* s, std::streamsize n) override;
    std::streamsize showmanyc() override;

private:
    std::unique_ptr<char[]> buf_;
    std::size_t cap_;
    bool eof_ = false;
};

// The bytes of another streambuf (not owned; may be null: an empty input).
// `capacity` is the most one produce() reads (tests make it small, so that
// lines straddle buffers).
class plain_source : public source_buf {
public:
    explicit plain_source(std::streambuf* src, std::size_t capacity = default_capacity)
        : source_buf(capacity), src_(src) {}

protected:
    std::size_t produce(char* dst, std::size_t cap) override;

private:
    std::streambuf* src_;
};

// The decompressed bytes of a gzip stream (one or more concatenated members)
// read from `src` (not owned). Errors throw trace_error(filename, 0, 0,
// "gzip: ..."): corrupt data, a truncated stream, bytes after the last member.
class gzip_source : public source_buf {
public:
    gzip_source(source_buf& src, std::string filename);
    ~gzip_source() override;

protected:
    std::size_t produce(char* dst, std::size_t cap) override;

private:
    struct state;
    std::unique_ptr<state> z_;
};

// The decompressed bytes of a zstd stream (one or more concatenated frames)
// read from `src` (not owned). The decoder's window is capped at
// 2^max_window_log bytes (32 MiB), so memory stays bounded whatever the file
// says: a frame that needs more is refused, naming the window it asks for
// (`zstd --long=31` writes such frames). Errors throw trace_error(filename,
// 0, 0, "zstd: ..."), worded as gzip_source's.
class zstd_source : public source_buf {
public:
    static constexpr int max_window_log = 25;
    zstd_source(source_buf& src, std::string filename);
    ~zstd_source() override;

protected:
    std::size_t produce(char* dst, std::size_t cap) override;

private:
    struct state;
    std::unique_ptr<state> z_;
};

enum class content_kind { text, gzip, binary, xz, zstd, bzip2 };

// What the first bytes of a stream (at least 16 of them, fewer only when the
// stream is shorter) say it is.
content_kind detect_content(std::string_view head);

// The number of bytes detect_content() wants to see.
constexpr std::size_t detect_bytes = 16;

}  // namespace pmonsim::trace
