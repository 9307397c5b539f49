// LineReader: streams a byte source as lines, in bounded memory.
//
// Contract. Reads a file descriptor (file, pipe, stdin) or an in-memory buffer in fixed-size chunks and
// hands out one line at a time, without its terminator ("\n"; a "\r" before it is left for the
// normaliser). Memory is bounded by the chunk size plus the longest line kept: a line longer than
// `max_line_bytes` is cut there (`truncated` is set) and the rest of it is skipped, never buffered. NUL bytes
// and invalid UTF-8 pass through untouched; the last line need not end in "\n". I/O errors end the stream
// and are reported by `error()`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace denpex {

class LineReader {
public:
    static constexpr std::size_t kDefaultMaxLine = 16u << 20;   // lines up to 10 MB are common in dumps

    // Reads `fd` (not owned, not closed).
    explicit LineReader(int fd, std::size_t max_line_bytes = kDefaultMaxLine);
    // Reads an in-memory buffer that must outlive the reader.
    explicit LineReader(std::string_view buffer, std::size_t max_line_bytes = kDefaultMaxLine);

    // The next line, or false at the end. The view stays valid until the next call.
    bool next(std::string_view& line, bool& truncated);
    std::uint64_t bytes_read() const { return bytes_; }
    const std::string& error() const { return error_; }

private:
    bool fill();

    int fd_ = -1;
    std::string_view memory_;
    bool from_memory_ = false;
    std::size_t max_line_;
    std::string buf_;         // chunk buffer (file mode)
    std::size_t pos_ = 0, end_ = 0;
    std::string line_;        // a line that spans chunks
    bool eof_ = false;
    std::uint64_t bytes_ = 0;
    std::string error_;
};

}  // namespace denpex
