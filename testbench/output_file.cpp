#include "output_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace pmonsim {

namespace {

// A target that is there and not a regular file (a device, a FIFO) takes the
// output itself: it cannot be replaced by a rename.
bool written_directly(const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
}

std::string reason(int err) { return err ? std::strerror(err) : "the stream failed"; }

// The temporary files being written, for a signal that ends the program:
// SIGINT, SIGTERM and SIGHUP remove them (unlink is async-signal-safe) and
// then end the program as the signal would have, so an interrupted run
// leaves its outputs absent, never half-written.
constexpr int kMaxStaged = 16;
std::atomic<char*> g_staged[kMaxStaged];

void remove_staged_and_die(int sig) {
    for (auto& p : g_staged)
        if (char* s = p.load()) ::unlink(s);
    ::signal(sig, SIG_DFL);
    ::raise(sig);
}

void install_handlers_once() {
    static const bool done = [] {
        for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
            struct sigaction old {};
            if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;  // (someone else's)
            struct sigaction sa {};
            sa.sa_handler = remove_staged_and_die;
            ::sigemptyset(&sa.sa_mask);
            ::sigaction(sig, &sa, nullptr);
        }
        return true;
    }();
    (void)done;
}

void track(char* path, bool on) {
    for (auto& p : g_staged) {
        char* expected = on ? nullptr : path;
        if (p.compare_exchange_strong(expected, on ? path : nullptr)) return;
    }
}

}  // namespace

// A buffered file descriptor that keeps the errno of the first failed write
// (std::ofstream loses it).
class staged_output::file_buf : public std::streambuf {
public:
    explicit file_buf(int fd) : fd_(fd) { setp(buf_, buf_ + sizeof buf_); }
    ~file_buf() override {
        if (fd_ >= 0) ::close(fd_);
    }
    int error() const { return err_; }
    uint64_t bytes() const { return drained_ + static_cast<uint64_t>(pptr() - pbase()); }
    bool drain() {
        for (const char* p = pbase(); p < pptr();) {
            const ssize_t n = ::write(fd_, p, static_cast<size_t>(pptr() - p));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                if (!err_) err_ = n < 0 ? errno : EIO;
                setp(buf_, buf_ + sizeof buf_);
                return false;
            }
            p += n;
            drained_ += static_cast<uint64_t>(n);
        }
        setp(buf_, buf_ + sizeof buf_);
        return true;
    }
    bool close_fd() {
        const bool ok = drain() && !err_;
        if (fd_ >= 0 && ::close(fd_) != 0 && !err_) err_ = errno;
        fd_ = -1;
        return ok && !err_;
    }

protected:
    int_type overflow(int_type c) override {
        if (!drain()) return traits_type::eof();
        if (!traits_type::eq_int_type(c, traits_type::eof())) sputc(traits_type::to_char_type(c));
        return traits_type::not_eof(c);
    }
    int sync() override { return drain() ? 0 : -1; }

private:
    int fd_;
    int err_ = 0;
    uint64_t drained_ = 0;
    char buf_[1 << 16];
};

staged_output::staged_output(const std::string& path) : path_(path), out_(nullptr) {
    if (!written_directly(path)) {
        tmp_ = path + ".tmp" + std::to_string(::getpid());
        install_handlers_once();
        track(tmp_.data(), true);  // (before the file exists: a signal then unlinks nothing)
    }
    const int fd = ::open((tmp_.empty() ? path_ : tmp_).c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        const int err = errno;
        done_ = true;
        if (!tmp_.empty()) track(tmp_.data(), false);
        throw output_error(path_ + ": cannot write: " + reason(err));
    }
    buf_ = std::make_unique<file_buf>(fd);
    out_.rdbuf(buf_.get());
}

staged_output::~staged_output() {
    if (!done_ && !tmp_.empty()) std::remove(tmp_.c_str());
    if (!tmp_.empty()) track(tmp_.data(), false);
}

void staged_output::fail(int err) {
    done_ = true;
    if (!tmp_.empty()) std::remove(tmp_.c_str());
    throw output_error(path_ + ": cannot write: " + reason(err));
}

void staged_output::check() {
    if (done_) return;
    out_.flush();
    if (!out_ || buf_->error()) fail(buf_->error());
}

uint64_t staged_output::bytes() const { return buf_ ? buf_->bytes() : 0; }

void staged_output::close_file() {
    if (done_ || closed_) return;
    out_.flush();
    if (!out_ || buf_->error() || !buf_->close_fd()) fail(buf_->error());
    closed_ = true;
}

void staged_output::commit() {
    if (done_) return;
    close_file();
    if (!tmp_.empty() && std::rename(tmp_.c_str(), path_.c_str()) != 0) fail(errno);
    done_ = true;
}

void write_output(const std::string& path, const std::function<void(std::ostream&)>& produce) {
    staged_output o(path);
    produce(o.stream());
    o.commit();
}

void write_checked(std::ostream& os, const std::string& text, const std::string& what) {
    errno = 0;
    os.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (os) os.flush();
    if (!os) throw output_error(what + ": cannot write: " + reason(errno));
}

void check_stream(std::ostream& os, const std::string& what) {
    errno = 0;
    os.flush();
    if (!os) throw output_error(what + ": cannot write: " + reason(errno));
}

}  // namespace pmonsim
