// An output streambuf that compresses what is written to it as one zstd
// frame into another stream (for `pmonsim convert OUT.zst`). At the default
// level its window (2 MiB) is far within what zstd_source reads.
#pragma once
#include <memory>
#include <ostream>
#include <streambuf>

namespace pmonsim::trace {

class zstd_sink : public std::streambuf {
public:
    static constexpr int default_level = 3;
    // Throws std::runtime_error if the compressor cannot start.
    explicit zstd_sink(std::ostream& out, int level = default_level);
    ~zstd_sink() override;
    zstd_sink(const zstd_sink&) = delete;
    zstd_sink& operator=(const zstd_sink&) = delete;

    // Ends the frame and flushes the stream; throws std::runtime_error if the
    // compressor or the stream fails. Nothing may be written after it.
    void finish();

protected:
    int_type overflow(int_type ch) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    int sync() override;

private:
    struct state;
    std::unique_ptr<state> z_;
};

}  // namespace pmonsim::trace
