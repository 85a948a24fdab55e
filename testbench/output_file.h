// Output files complete or absent, and every write error an error (issue 14,
// item 11): a regular file is written under a temporary name in its
// directory and renamed over the target only when all of it is written and
// flushed; a device or a pipe (/dev/stdout, a FIFO) is written directly.
// Failures throw output_error "PATH: cannot write: REASON", and leave no
// temporary file behind and an existing target as it was.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>

namespace pmonsim {

class output_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// An output produced over time (a waveform during a run): stream() while it
// is written, commit() to finish it; destroyed uncommitted, it leaves nothing.
class staged_output {
public:
    explicit staged_output(const std::string& path);
    ~staged_output();
    staged_output(const staged_output&) = delete;
    staged_output& operator=(const staged_output&) = delete;

    std::ostream& stream() { return out_; }
    const std::string& path() const { return path_; }
    // Where the bytes go until commit(): the temporary name (or the path
    // itself for a device).
    const std::string& staging_path() const { return tmp_.empty() ? path_ : tmp_; }
    // The bytes written to stream() so far (buffered ones included).
    uint64_t bytes() const;
    // Throws output_error when anything written so far failed (for a check
    // during a long run); the error is reported once.
    void check();
    // Flushes and closes the file, throwing output_error as commit() does,
    // but leaves it under staging_path() (for a program that reads or
    // rewrites it before commit(); destroyed then, it is still removed).
    void close_file();
    void commit();

private:
    class file_buf;
    [[noreturn]] void fail(int err);

    std::string path_, tmp_;  // tmp_ empty: written directly
    std::unique_ptr<file_buf> buf_;
    std::ostream out_;
    bool done_ = false;
    bool closed_ = false;  // close_file() done
};

// Writes what `produce` puts into the stream to `path`, as above.
void write_output(const std::string& path, const std::function<void(std::ostream&)>& produce);

// Flushes a stream the program does not own (std::cout) and throws
// output_error "WHAT: cannot write: REASON" if it failed.
void check_stream(std::ostream& os, const std::string& what);
// Writes `text` to `os` and flushes it, throwing output_error with the
// reason of the first failed write (a text that overflows the stream's
// buffer fails before the flush, which would no longer know why).
void write_checked(std::ostream& os, const std::string& text, const std::string& what);

}  // namespace pmonsim
