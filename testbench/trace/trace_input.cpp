// Byte sources under the trace readers (trace_input.h).
#include "trace/trace_input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "trace/trace_reader.h"

namespace pmonsim::trace {

std::string unreadable_reason(const std::string& path) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return std::strerror(errno);
    if (S_ISDIR(st.st_mode)) return "is a directory";
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::strerror(errno);
    ::close(fd);
    return {};
}

// ---------------------------------------------------------------------------
// source_buf

source_buf::source_buf(std::size_t capacity)
    : buf_(std::make_unique<char[]>(capacity + padding)), cap_(capacity) {
    setg(buf_.get(), buf_.get(), buf_.get());
}

source_buf::~source_buf() = default;

std::string_view source_buf::peek(std::size_t n) {
    n = std::min(n, cap_);
    std::size_t have = static_cast<std::size_t>(egptr() - gptr());
    if (have < n && !eof_) {
        std::memmove(buf_.get(), gptr(), have);
        setg(buf_.get(), buf_.get(), buf_.get() + have);
        while (have < n && !eof_) {
            const std::size_t k = produce(buf_.get() + have, cap_ - have);
            if (k == 0) eof_ = true;
            have += k;
            setg(buf_.get(), buf_.get(), buf_.get() + have);
        }
    }
    return std::string_view(gptr(), std::min(n, have));
}

std::string_view source_buf::take() {
    if (gptr() == egptr() && traits_type::eq_int_type(underflow(), traits_type::eof()))
        return {};
    const std::string_view v(gptr(), static_cast<std::size_t>(egptr() - gptr()));
    setg(eback(), egptr(), egptr());
    return v;
}

source_buf::int_type source_buf::underflow() {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (eof_) return traits_type::eof();
    const std::size_t k = produce(buf_.get(), cap_);
    if (k == 0) {
        eof_ = true;
        setg(buf_.get(), buf_.get(), buf_.get());
        return traits_type::eof();
    }
    setg(buf_.get(), buf_.get(), buf_.get() + k);
    return traits_type::to_int_type(*gptr());
}

std::streamsize source_buf::xsgetn(char* s, std::streamsize n) {
    std::streamsize done = 0;
    while (done < n) {
        std::size_t avail = static_cast<std::size_t>(egptr() - gptr());
        if (avail) {
            const std::size_t k = std::min(avail, static_cast<std::size_t>(n - done));
            std::memcpy(s + done, gptr(), k);
            gbump(static_cast<int>(k));
            done += static_cast<std::streamsize>(k);
            continue;
        }
        if (eof_) break;
        const std::size_t want = static_cast<std::size_t>(n - done);
        if (want >= cap_) {  // large reads skip the buffer
            const std::size_t k = produce(s + done, want);
            if (k == 0) eof_ = true;
            done += static_cast<std::streamsize>(k);
        } else if (traits_type::eq_int_type(underflow(), traits_type::eof())) {
            break;
        }
    }
    return done;
}

std::streamsize source_buf::showmanyc() {
    return eof_ ? -1 : 0;
}

// ---------------------------------------------------------------------------
// plain_source

std::size_t plain_source::produce(char* dst, std::size_t cap) {
    if (!src_) return 0;
    const std::streamsize k = src_->sgetn(dst, static_cast<std::streamsize>(cap));
    return k > 0 ? static_cast<std::size_t>(k) : 0;
}

// ---------------------------------------------------------------------------
// gzip_source

struct gzip_source::state {
    static constexpr std::size_t in_size = 1 << 16;
    source_buf& src;
    std::string file;
    z_stream zs{};
    std::unique_ptr<unsigned char[]> in = std::make_unique<unsigned char[]>(in_size);
    bool src_eof = false;
    bool member_done = false;  // between two members, or after the last one
    bool finished = false;

    state(source_buf& s, std::string f) : src(s), file(std::move(f)) {
        // 15 + 16: a gzip wrapper (not zlib, not raw deflate), 32 KiB window.
        if (inflateInit2(&zs, 15 + 16) != Z_OK)
            throw trace_error(file, 0, 0, "gzip: cannot start the decompressor");
    }
    ~state() { inflateEnd(&zs); }

    [[noreturn]] void fail(const std::string& reason) const {
        throw trace_error(file, 0, 0, "gzip: " + reason);
    }

    // More compressed input; false at its end.
    bool refill() {
        if (src_eof) return false;
        const std::streamsize k =
            src.sgetn(reinterpret_cast<char*>(in.get()), static_cast<std::streamsize>(in_size));
        if (k <= 0) {
            src_eof = true;
            return false;
        }
        zs.next_in = in.get();
        zs.avail_in = static_cast<uInt>(k);
        return true;
    }

    std::size_t produce(char* dst, std::size_t cap) {
        if (finished || cap == 0) return 0;
        cap = std::min<std::size_t>(cap, 1u << 30);
        zs.next_out = reinterpret_cast<Bytef*>(dst);
        zs.avail_out = static_cast<uInt>(cap);
        while (zs.avail_out == cap) {  // until something is produced
            if (zs.avail_in == 0 && !refill()) {
                if (member_done) {  // a clean end after a whole member
                    finished = true;
                    break;
                }
                fail("the compressed data ends early (the file is truncated)");
            }
            if (member_done) {  // another member must follow
                if (zs.next_in[0] != 0x1f)
                    fail("data after the end of the compressed stream is not another gzip member");
                if (inflateReset(&zs) != Z_OK) fail("cannot restart the decompressor");
                member_done = false;
            }
            const int rc = inflate(&zs, Z_NO_FLUSH);
            if (rc == Z_STREAM_END) {
                member_done = true;
            } else if (rc == Z_BUF_ERROR) {
                // No progress possible: more input is needed (loop refills).
            } else if (rc != Z_OK) {
                fail(std::string("the compressed data is corrupt (") +
                     (zs.msg ? std::string(zs.msg) : "zlib error " + std::to_string(rc)) + ")");
            }
        }
        return cap - zs.avail_out;
    }
};

gzip_source::gzip_source(source_buf& src, std::string filename)
    : z_(std::make_unique<state>(src, std::move(filename))) {}

gzip_source::~gzip_source() = default;

std::size_t gzip_source::produce(char* dst, std::size_t cap) { return z_->produce(dst, cap); }

// ---------------------------------------------------------------------------
// zstd_source

struct zstd_source::state {
    source_buf& src;
    std::string file;
    ZSTD_DCtx* dctx = ZSTD_createDCtx();
    std::unique_ptr<char[]> in = std::make_unique<char[]>(ZSTD_DStreamInSize());
    ZSTD_inBuffer zin{in.get(), 0, 0};
    bool src_eof = false;
    bool frame_done = true;  // no frame begun, or the last one ended
    std::size_t frames = 0;
    std::string asked;  // the window the current frame asks for

    state(source_buf& s, std::string f) : src(s), file(std::move(f)) {
        if (!dctx || ZSTD_isError(ZSTD_DCtx_setParameter(dctx, ZSTD_d_windowLogMax, max_window_log)))
            throw trace_error(file, 0, 0, "zstd: cannot start the decompressor");
    }
    ~state() { ZSTD_freeDCtx(dctx); }

    [[noreturn]] void fail(const std::string& reason) const {
        throw trace_error(file, 0, 0, "zstd: " + reason);
    }

    bool refill() {
        if (src_eof) return false;
        const std::streamsize k = src.sgetn(in.get(), static_cast<std::streamsize>(ZSTD_DStreamInSize()));
        if (k <= 0) {
            src_eof = true;
            return false;
        }
        zin = ZSTD_inBuffer{in.get(), static_cast<std::size_t>(k), 0};
        return true;
    }

    // The window the frame starting at the unread input asks for, read from
    // its header (RFC 8878 3.1.1.1: the window descriptor after the frame
    // header descriptor, unless the frame is a single segment), for the
    // message refusing it.
    std::string window_asked() const {
        const auto* p = static_cast<const unsigned char*>(zin.src) + zin.pos;
        const std::size_t n = zin.size - zin.pos;
        if (n < 6 || p[0] != 0x28 || p[1] != 0xb5 || p[2] != 0x2f || p[3] != 0xfd || (p[4] & 0x20))
            return "more";
        const unsigned exponent = p[5] >> 3, mantissa = p[5] & 7;
        const uint64_t base = uint64_t{1} << (10 + exponent);
        return std::to_string((base + base / 8 * mantissa) >> 20) + " MiB";
    }

    std::size_t produce(char* dst, std::size_t cap) {
        ZSTD_outBuffer out{dst, cap, 0};
        while (out.pos == 0 && cap) {
            if (zin.pos == zin.size && !refill()) {
                if (frame_done) {
                    if (frames == 0) fail("the compressed data is empty");
                    return 0;  // a clean end after whole frames
                }
                fail("the compressed data ends early (the file is truncated)");
            }
            if (frame_done && zin.pos < zin.size) {  // a frame begins here
                frame_done = false;
                ++frames;
                asked = window_asked();
            }
            const std::size_t rc = ZSTD_decompressStream(dctx, &out, &zin);
            if (ZSTD_isError(rc)) {
                if (ZSTD_getErrorCode(rc) == ZSTD_error_frameParameter_windowTooLarge)
                    fail("a frame needs a window of " + asked + ", more than the " +
                         std::to_string((std::size_t{1} << max_window_log) >> 20) +
                         " MiB this reader allows (compress without --long, or with --long=" +
                         std::to_string(max_window_log) + " at most)");
                fail(std::string("the compressed data is corrupt (") + ZSTD_getErrorName(rc) + ")");
            }
            if (rc == 0) frame_done = true;
        }
        return out.pos;
    }
};

zstd_source::zstd_source(source_buf& src, std::string filename)
    : z_(std::make_unique<state>(src, std::move(filename))) {}

zstd_source::~zstd_source() = default;

std::size_t zstd_source::produce(char* dst, std::size_t cap) { return z_->produce(dst, cap); }

// ---------------------------------------------------------------------------
// Detection

content_kind detect_content(std::string_view h) {
    auto starts = [h](std::string_view magic) { return h.substr(0, magic.size()) == magic; };
    if (starts("\x1f\x8b")) return content_kind::gzip;
    if (starts("PMON")) return content_kind::binary;
    if (starts(std::string_view("\xfd" "7zXZ\0", 6))) return content_kind::xz;
    if (starts("\x28\xb5\x2f\xfd")) return content_kind::zstd;
    if (h.size() >= 10 && starts("BZh") && h[3] >= '1' && h[3] <= '9' &&
        h.substr(4, 6) == "1AY&SY")
        return content_kind::bzip2;
    return content_kind::text;
}

}  // namespace pmonsim::trace
