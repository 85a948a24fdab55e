// Byte ranges of a trace file read as one stream, and where a text trace's
// lines are: what lets a large file be read as pieces on several threads
// (trace_validate.cpp's halves, trace_chunks.cpp's chunks), each piece
// read as the file's header followed by its rows.
#pragma once
#include <cstdint>
#include <streambuf>
#include <string>
#include <vector>

namespace pmonsim::trace::detail {

// A file descriptor, closed on destruction.
struct file_handle {
    int fd = -1;
    explicit file_handle(const std::string& path);
    ~file_handle();
    file_handle(const file_handle&) = delete;
    file_handle& operator=(const file_handle&) = delete;
};

// Some byte ranges of a file, one after the other, as a streambuf (read with
// pread, so several of these may read one file at once).
class file_ranges : public std::streambuf {
public:
    struct range {
        uint64_t offset, size;
    };
    file_ranges(const std::string& path, std::vector<range> ranges);
    bool good() const { return file_.fd >= 0; }

protected:
    int_type underflow() override;
    // Large reads (the binary decoder's blocks) go straight from the file
    // into the caller's memory: one copy instead of two.
    std::streamsize xsgetn(char* s, std::streamsize n) override;

private:
    file_handle file_;
    std::vector<range> ranges_;
    std::size_t at_ = 0;
    std::vector<char> buf_;
};

// Reads n bytes at offset; false if the file has fewer.
bool read_at(int fd, uint64_t offset, char* out, std::size_t n);
// Where the rows of a text trace start: just after the line end of its first
// line that is neither blank nor a comment (the header), by the rules of
// trace_lines.h. 0 when it is not found in the first 64 KiB.
uint64_t text_rows_start(int fd);
// Just after the first line end at or after `from` (reading the file from
// there), or 0 if there is none before `end`.
uint64_t next_line_start(int fd, uint64_t from, uint64_t end);

}  // namespace pmonsim::trace::detail
