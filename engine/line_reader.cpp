#include "engine/line_reader.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace denpex {
namespace {
// Reads start small and double while they fill the buffer: most inputs of a many-file job are a few KiB, and a
// 1 MiB buffer zeroed for each of them cost more than reading them.
constexpr std::size_t kFirstChunk = 64u << 10;
constexpr std::size_t kChunk = 1u << 20;
}

LineReader::LineReader(int fd, std::size_t max_line_bytes) : fd_(fd), max_line_(max_line_bytes) {
    buf_.resize(kFirstChunk);
}

LineReader::LineReader(std::string_view buffer, std::size_t max_line_bytes)
    : memory_(buffer), from_memory_(true), max_line_(max_line_bytes) {
    end_ = buffer.size();
    bytes_ = buffer.size();
}

bool LineReader::fill() {
    if (from_memory_ || eof_) return false;
    if (end_ == buf_.size() && buf_.size() < kChunk) buf_.resize(std::min(kChunk, 2 * buf_.size()));
    for (;;) {
        ssize_t n = ::read(fd_, buf_.data(), buf_.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            error_ = std::strerror(errno);
            eof_ = true;
            return false;
        }
        if (n == 0) {
            eof_ = true;
            return false;
        }
        pos_ = 0;
        end_ = static_cast<std::size_t>(n);
        bytes_ += static_cast<std::uint64_t>(n);
        return true;
    }
}

bool LineReader::next(std::string_view& out, bool& truncated) {
    truncated = false;
    const char* data = from_memory_ ? memory_.data() : buf_.data();
    // Fast path: the whole line is inside the current chunk.
    if (pos_ < end_) {
        const void* nl = std::memchr(data + pos_, '\n', end_ - pos_);
        if (nl != nullptr) {
            std::size_t stop = static_cast<std::size_t>(static_cast<const char*>(nl) - data);
            std::size_t len = stop - pos_;
            out = std::string_view(data + pos_, len > max_line_ ? max_line_ : len);
            truncated = len > max_line_;
            pos_ = stop + 1;
            return true;
        }
    }
    if (from_memory_) {
        if (pos_ >= end_) return false;
        std::size_t len = end_ - pos_;
        out = std::string_view(data + pos_, len > max_line_ ? max_line_ : len);
        truncated = len > max_line_;
        pos_ = end_;
        return true;
    }
    // Slow path: the line spans chunks; gather it into line_, up to the cap.
    line_.clear();
    bool any = false;
    for (;;) {
        if (pos_ >= end_ && !fill()) break;
        any = true;
        const void* nl = std::memchr(buf_.data() + pos_, '\n', end_ - pos_);
        std::size_t stop = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - buf_.data()) : end_;
        std::size_t take = stop - pos_;
        if (line_.size() < max_line_) {
            std::size_t room = max_line_ - line_.size();
            line_.append(buf_.data() + pos_, take < room ? take : room);
            if (take > room) truncated = true;
        } else if (take > 0) {
            truncated = true;
        }
        pos_ = stop;
        if (nl) {
            ++pos_;
            out = line_;
            return true;
        }
    }
    if (!any && line_.empty()) return false;
    out = line_;
    return !line_.empty() || any;
}

}  // namespace denpex
