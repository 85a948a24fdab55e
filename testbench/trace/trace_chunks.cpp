// A large text trace's rows parsed on two threads (trace_chunks.h).
#include "trace/trace_chunks.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <istream>
#include <system_error>
#include <utility>

#include "trace/trace_file_ranges.h"
#include "trace/trace_input.h"

namespace pmonsim::trace {

unsigned chunked_text_rows::default_workers() {
    const unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : std::min(n, max_workers);
}

std::unique_ptr<chunked_text_rows> chunked_text_rows::open(const std::string& path, const std::string& name,
                                                           const trace_context& ctx, std::atomic<uint64_t>* bytes,
                                                           unsigned workers, uint64_t from_bytes,
                                                           uint64_t chunk_bytes) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return nullptr;
    const uint64_t size = static_cast<uint64_t>(st.st_size);
    if (size < from_bytes || chunk_bytes == 0 || workers < 2) return nullptr;
    workers = std::min(workers, max_workers);
    detail::file_handle f(path);
    if (f.fd < 0) return nullptr;
    char head[detect_bytes] = {};
    if (!detail::read_at(f.fd, 0, head, sizeof head) ||
        detect_content(std::string_view(head, sizeof head)) != content_kind::text)
        return nullptr;
    const uint64_t rows = detail::text_rows_start(f.fd);
    if (rows == 0 || rows >= size) return nullptr;
    trace_kind kind;
    try {  // the header alone: its kind (a bad one is the whole reader's to report)
        detail::file_ranges buf(path, {{0, rows}});
        std::istream in(&buf);
        kind = trace_reader(in, name, ctx).kind();
    } catch (...) {
        return nullptr;
    }
    try {
        return std::unique_ptr<chunked_text_rows>(
            new chunked_text_rows(path, name, ctx, bytes, kind, rows, size, workers, chunk_bytes));
    } catch (const std::system_error&) {
        return nullptr;  // no threads to be had: one reader
    }
}

chunked_text_rows::chunked_text_rows(std::string path, std::string name, const trace_context& ctx,
                                     std::atomic<uint64_t>* bytes, trace_kind kind, uint64_t rows, uint64_t size,
                                     unsigned workers, uint64_t chunk_bytes)
    : path_(std::move(path)),
      name_(std::move(name)),
      ctx_(ctx),
      bytes_(bytes),
      kind_(kind),
      rows_(rows),
      size_(size),
      workers_n_(workers),
      chunk_bytes_(chunk_bytes),
      chunks_((size - rows + chunk_bytes - 1) / chunk_bytes),
      slots_(workers * ahead) {
    fd_ = ::open(path_.c_str(), O_RDONLY);
    if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "open");
    for (unsigned w = 0; w < workers; ++w) {
        try {
            workers_.emplace_back([this, w] { work(w); });
        } catch (...) {
            {
                std::lock_guard<std::mutex> lock(m_);
                stop_ = true;
            }
            cv_.notify_all();
            for (auto& t : workers_) t.join();
            ::close(fd_);
            throw;
        }
    }
}

chunked_text_rows::~chunked_text_rows() {
    {
        std::lock_guard<std::mutex> lock(m_);
        stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
    if (fd_ >= 0) ::close(fd_);
}

// Chunk k starts at the first line start at or after rows + k * chunk_bytes
// (the file's end if none): both workers compute the same boundaries.
uint64_t chunked_text_rows::chunk_start(uint64_t k) const {
    if (k == 0) return rows_;
    if (k >= chunks_) return size_;
    const uint64_t at = detail::next_line_start(fd_, rows_ + k * chunk_bytes_ - 1, size_);
    return at == 0 ? size_ : at;
}

void chunked_text_rows::parse(uint64_t k, chunk& c) {
    c.error = nullptr;
    std::size_t n = 0;  // records read
    // (The vectors only grow: records past n are stale, not made again for
    // each chunk, which cost a write of every record.)
    auto keep = [&] { c.count = n; };
    try {
        const uint64_t from = chunk_start(k), to = std::max(from, chunk_start(k + 1));
        detail::file_ranges buf(path_, {{0, rows_}, {from, to - from}});
        std::istream in(&buf);
        trace_reader r(in, name_, ctx_);
        constexpr std::size_t step = 4096;
        for (std::size_t got = 1; got != 0; n += got) {
            if (kind_ == trace_kind::packets) {
                if (c.packets.size() < n + step) c.packets.resize(n + step);
                got = r.read(c.packets.data() + n, step);
            } else {
                if (c.events.size() < n + step) c.events.resize(n + step);
                got = r.read(c.events.data() + n, step);
            }
        }
        if (bytes_) bytes_->fetch_add(to - from, std::memory_order_relaxed);
    } catch (...) {
        c.error = std::current_exception();  // after the records read before it
    }
    keep();
}

void chunked_text_rows::work(unsigned worker) {
    for (uint64_t k = worker; k < chunks_; k += workers_n_) {
        chunk c;
        {
            std::unique_lock<std::mutex> lock(m_);
            cv_.wait(lock, [&] { return stop_ || k < taken_ + slots_.size(); });
            if (stop_) return;
            // (The slot's last chunk was taken: reuse its buffers.)
            std::swap(c.packets, slots_[k % slots_.size()].packets);
            std::swap(c.events, slots_[k % slots_.size()].events);
        }
        parse(k, c);
        {
            std::lock_guard<std::mutex> lock(m_);
            chunk& s = slots_[k % slots_.size()];
            std::swap(s.packets, c.packets);
            std::swap(s.events, c.events);
            s.count = c.count;
            s.error = c.error;
            s.ready = true;
        }
        cv_.notify_all();
        if (c.error) return;  // (the reader stops at the error)
    }
}

template <class Record>
std::size_t chunked_text_rows::take(std::vector<Record> chunk::*member, std::vector<Record>& out) {
    if (pending_) std::rethrow_exception(std::exchange(pending_, nullptr));
    for (;;) {
        std::exception_ptr error;
        std::size_t n = 0;
        {
            std::unique_lock<std::mutex> lock(m_);
            if (taken_ >= chunks_) return 0;
            chunk& s = slots_[taken_ % slots_.size()];
            cv_.wait(lock, [&] { return s.ready; });
            s.ready = false;
            std::swap(out, s.*member);
            n = s.count;
            error = s.error;
            ++taken_;
        }
        cv_.notify_all();
        if (n != 0) {
            if (have_last_ && out.front().time < last_)
                throw trace_error(name_, 0, 0, "rows must be in time order (a chunk of the file starts before the "
                                               "one before it ends)");
            have_last_ = true;
            last_ = out[n - 1].time;
        }
        if (error) {
            if (n == 0) std::rethrow_exception(error);
            pending_ = error;
            return n;
        }
        if (n != 0) return n;
    }
}

std::size_t chunked_text_rows::next(std::vector<packet_record>& out) {
    if (kind_ != trace_kind::packets) throw std::logic_error("chunked_text_rows: packets of an event trace");
    return take(&chunk::packets, out);
}

std::size_t chunked_text_rows::next(std::vector<event_record>& out) {
    if (kind_ != trace_kind::events) throw std::logic_error("chunked_text_rows: events of a packet trace");
    return take(&chunk::events, out);
}

}  // namespace pmonsim::trace
