// Output files complete or absent, and every write error an error (issue 14,
// item 11): a regular file is written under a temporary name in its
// directory and renamed over the target only when all of it is written and
// flushed; a device or a pipe (/dev/stdout, a FIFO) is written directly.
// Failures throw output_error "PATH: cannot write: REASON", and leave no
// temporary file behind and an existing target as it was.
#pragma once
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
    // Throws output_error when anything written so far failed (for a check
    // during a long run); the error is reported once.
    void check();
    void commit();

private:
    class file_buf;
    [[noreturn]] void fail(int err);

    std::string path_, tmp_;  // tmp_ empty: written directly
    std::unique_ptr<file_buf> buf_;
    std::ostream out_;
    bool done_ = false;
};

// Writes what `produce` puts into the stream to `path`, as above.
void write_output(const std::string& path, const std::function<void(std::ostream&)>& produce);

// Flushes a stream the program does not own (std::cout) and throws
// output_error "WHAT: cannot write: REASON" if it failed.
void check_stream(std::ostream& os, const std::string& what);

}  // namespace pmonsim
