// FileTail: follows one growing file by offset, the way `tail -F` does, and never reads a byte twice.
//
// Contract. `poll` reads what was appended since the last call and hands on each new complete line (an
// unfinished last line waits for its "\n"). It notices the two ways a log starts over:
//   - truncated: the open file is now shorter than what was read (copytruncate, `: > log`): reading restarts
//     at offset 0;
//   - rotated: the path now names another file (another inode or device; logrotate's rename, a new attempt's
//     file at the same path): the rest of the old file is read first, then the new file from its start.
// Either way `restart` is called before the first line of the new content, so that the caller can treat it as
// a new input. A path that disappears keeps its open file (its last lines are still read) until a file appears
// there again. Memory: one read buffer and at most one unfinished line (follow/line_splitter.hpp).
// Linux/POSIX only; never throws for I/O errors (they are returned as text).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "follow/line_splitter.hpp"

namespace denpex {

enum class Restart { truncated, rotated };

class FileTail {
public:
    // `from_end`: start at the file's current end (what it holds already is skipped).
    FileTail(std::string path, std::string display, bool from_end);
    ~FileTail();
    FileTail(const FileTail&) = delete;
    FileTail& operator=(const FileTail&) = delete;

    const std::string& path() const { return path_; }
    const std::string& display() const { return display_; }
    std::uint64_t offset() const { return offset_; }

    // Reads what is new. Returns an error text when the file cannot be read (it is tried again next time).
    std::optional<std::string> poll(const LineSplitter::Sink& line, const std::function<void(Restart)>& restart);

private:
    bool open_current();
    bool read_to_end(const LineSplitter::Sink& line, std::string& error);
    bool path_names_another_file() const;

    std::string path_, display_;
    bool from_end_;
    int fd_ = -1;
    dev_t dev_ = 0;
    ino_t ino_ = 0;
    std::uint64_t offset_ = 0;
    LineSplitter splitter_;
};

}  // namespace denpex
