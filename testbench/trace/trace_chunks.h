// The rows of a large text trace parsed on two threads at once, for the
// replay's reading (trace_merger::read_rows_with). Parsing text is what
// bounds a text replay: one thread parses 246.6 MB in about 0.55 s while the
// simulation needs about 0.25 s (docs/performance.md), so the rows are cut
// into chunks at line ends and two workers parse alternate chunks, each as
// the file's header followed by the chunk's lines (trace_file_ranges.h),
// a few chunks ahead of the reader, which takes them in file order. Memory
// stays flat: at most `ahead` chunks per worker are parsed and not taken.
//
// What one pass would check across a chunk's start (rows in time order) is
// checked as the chunks are taken. A chunk's records carry line numbers of
// the chunk, not of the file, and an error found in a chunk names the chunk's
// line: the replay, which shows no result on an error, checks the files again
// in one pass for the message (replay.h, finish_checks()).
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "trace/trace_reader.h"

namespace pmonsim::trace {

class chunked_text_rows {
public:
    // Null when the file is not worth it or cannot be read so: not a regular
    // file, not plain text (compressed or binary), below `from_bytes`, or
    // fewer than two workers. `bytes`, if given, counts what is read;
    // `workers` parse chunk k, k + workers, ... each.
    static std::unique_ptr<chunked_text_rows> open(const std::string& path, const std::string& name,
                                                   const trace_context& ctx, std::atomic<uint64_t>* bytes = nullptr,
                                                   unsigned workers = default_workers(),
                                                   uint64_t from_bytes = default_from_bytes,
                                                   uint64_t chunk_bytes = default_chunk_bytes);
    // The cores there are, at most max_workers.
    static unsigned default_workers();
    static constexpr unsigned max_workers = 4;
    ~chunked_text_rows();  // stops the workers, even mid-file
    chunked_text_rows(const chunked_text_rows&) = delete;
    chunked_text_rows& operator=(const chunked_text_rows&) = delete;

    trace_kind kind() const { return kind_; }
    // The next chunk's records, swapped into `out`: returns n, the number of
    // records, which are out's first n elements (it may hold stale ones
    // after them); 0 at the end. Throws a chunk's error after the records before
    // it, and a trace_error when a chunk starts before the previous one ends
    // in time. Only the type of the file's kind may be asked for.
    std::size_t next(std::vector<packet_record>& out);
    std::size_t next(std::vector<event_record>& out);

    static constexpr uint64_t default_from_bytes = 4u << 20;
    static constexpr uint64_t default_chunk_bytes = 1u << 19;  // (256 KiB: 5 - 10 % slower end to end, docs/performance.md)
    static constexpr unsigned ahead = 2;  // chunks a worker may hold untaken

private:
    struct chunk {
        bool ready = false;
        std::size_t count = 0;  // records in packets or events (their first ones)
        std::vector<packet_record> packets;
        std::vector<event_record> events;
        std::exception_ptr error;  // after its records
    };
    chunked_text_rows(std::string path, std::string name, const trace_context& ctx, std::atomic<uint64_t>* bytes,
                      trace_kind kind, uint64_t rows, uint64_t size, unsigned workers, uint64_t chunk_bytes);
    void work(unsigned worker);
    void parse(uint64_t k, chunk& c);
    uint64_t chunk_start(uint64_t k) const;
    template <class Record>
    std::size_t take(std::vector<Record> chunk::*member, std::vector<Record>& out);

    std::string path_, name_;
    trace_context ctx_;
    std::atomic<uint64_t>* bytes_;
    trace_kind kind_;
    uint64_t rows_, size_;
    unsigned workers_n_;
    uint64_t chunk_bytes_, chunks_;
    int fd_ = -1;  // for the chunks' starts

    std::mutex m_;
    std::condition_variable cv_;
    std::vector<chunk> slots_;   // chunk k in slot k % slots
    uint64_t taken_ = 0;         // chunks handed out
    bool stop_ = false;
    bool have_last_ = false;     // the last time handed out, for the order across chunks
    time_ps last_ = 0;
    std::exception_ptr pending_;  // a chunk's error, thrown by the next next()
    std::vector<std::thread> workers_;
};

}  // namespace pmonsim::trace
