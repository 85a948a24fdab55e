// `pmon-stat -e ... -- CMD`: the command perf stat counts while it runs. It
// is started when counting has started, and the measurement ends when it
// exits; pmon-stat then exits with its status, as perf stat does.
#pragma once
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace pmonsim {

// The command cannot be started (not found, not executable).
struct command_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class command_run {
public:
    explicit command_run(std::vector<std::string> argv) : argv_(std::move(argv)) {}
    ~command_run() {
        if (pid_ > 0 && !done_) ::waitpid(pid_, nullptr, 0);  // (never leave a zombie)
    }
    command_run(const command_run&) = delete;
    command_run& operator=(const command_run&) = delete;

    bool given() const { return !argv_.empty(); }
    bool started() const { return pid_ > 0; }

    // Starts it (command_error naming the command and the reason if it
    // cannot be run).
    void start() {
        std::vector<char*> args;
        for (std::string& a : argv_) args.push_back(a.data());
        args.push_back(nullptr);
        t0_ = std::chrono::steady_clock::now();
        const int rc = ::posix_spawnp(&pid_, args[0], nullptr, nullptr, args.data(), environ);
        if (rc != 0) {
            pid_ = -1;
            throw command_error("cannot run '" + argv_[0] + "': " + std::strerror(rc));
        }
    }
    // Whether it still runs (reaps it when it has ended).
    bool running() {
        if (pid_ <= 0 || done_) return false;
        int st = 0;
        const pid_t r = ::waitpid(pid_, &st, WNOHANG);
        if (r == 0) return true;
        finish(r < 0 ? 0 : st);
        return false;
    }
    // Waits for the end; its exit status (128 + signal when killed, as a shell says).
    int wait() {
        if (pid_ > 0 && !done_) {
            int st = 0;
            while (::waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
            }
            finish(st);
        }
        return status_;
    }
    // Wall-clock picoseconds since the start, up to the end once it has ended.
    uint64_t elapsed_ps() const {
        const auto end = done_ ? t1_ : std::chrono::steady_clock::now();
        return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(end - t0_).count()) * 1000;
    }

private:
    void finish(int st) {
        done_ = true;
        t1_ = std::chrono::steady_clock::now();
        status_ = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
    }
    std::vector<std::string> argv_;
    pid_t pid_ = -1;
    bool done_ = false;
    int status_ = 0;
    std::chrono::steady_clock::time_point t0_, t1_;
};

}  // namespace pmonsim
