// zstd compression of an output stream (zstd_sink.h).
#include "trace/zstd_sink.h"

#include <zstd.h>

#include <stdexcept>
#include <string>
#include <vector>


namespace pmonsim::trace {

struct zstd_sink::state {
    std::ostream& out;
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    std::vector<char> buf = std::vector<char>(ZSTD_CStreamOutSize());
    bool finished = false;

    state(std::ostream& o, int level) : out(o) {
        if (!cctx || ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level)) ||
            ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1)))
            throw std::runtime_error("zstd: cannot start the compressor");
    }
    ~state() { ZSTD_freeCCtx(cctx); }

    // Compresses [p, p + n) (mode continue), or ends the frame (mode end).
    void push(const char* p, std::size_t n, ZSTD_EndDirective mode) {
        if (finished) throw std::logic_error("zstd_sink: written after finish()");
        ZSTD_inBuffer in{p, n, 0};
        for (;;) {
            ZSTD_outBuffer o{buf.data(), buf.size(), 0};
            const std::size_t left = ZSTD_compressStream2(cctx, &o, &in, mode);
            if (ZSTD_isError(left)) throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(left));
            if (o.pos) out.write(buf.data(), static_cast<std::streamsize>(o.pos));
            if (!out) throw std::runtime_error("zstd: the output stream failed");
            if (mode == ZSTD_e_continue ? in.pos == in.size : left == 0) break;
        }
    }
};

zstd_sink::zstd_sink(std::ostream& out, int level) : z_(std::make_unique<state>(out, level)) {}

zstd_sink::~zstd_sink() = default;

zstd_sink::int_type zstd_sink::overflow(int_type ch) {
    if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
    const char c = traits_type::to_char_type(ch);
    z_->push(&c, 1, ZSTD_e_continue);
    return ch;
}

std::streamsize zstd_sink::xsputn(const char* s, std::streamsize n) {
    z_->push(s, static_cast<std::size_t>(n), ZSTD_e_continue);
    return n;
}

int zstd_sink::sync() { return 0; }  // (a frame is ended once, by finish())

void zstd_sink::finish() {
    z_->push(nullptr, 0, ZSTD_e_end);
    z_->finished = true;
    z_->out.flush();
    if (!z_->out) throw std::runtime_error("zstd: the output stream failed");
}

}  // namespace pmonsim::trace
