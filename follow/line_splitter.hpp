// LineSplitter: cuts a stream that arrives in pieces (a growing file, a pipe) into complete lines.
//
// Contract. `append` takes the next bytes and hands every line they complete to the sink, without its "\n"
// (a "\r" stays for the normaliser). Only the unfinished tail is kept, and at most `max_line` bytes of it: a
// longer line is handed on cut there (truncated = true) and the rest of it, up to its "\n", is dropped. So the
// memory held is bounded by `max_line`, whatever the stream. `finish` hands on an unfinished last line (EOF).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace denpex {

class LineSplitter {
public:
    using Sink = std::function<void(std::string_view line, bool truncated)>;
    static constexpr std::size_t kDefaultMaxLine = 16u << 20;   // as the engine's LineReader

    explicit LineSplitter(std::size_t max_line = kDefaultMaxLine) : max_line_(max_line) {}

    void append(std::string_view bytes, const Sink& sink);
    void finish(const Sink& sink);
    void reset();
    std::size_t pending() const { return partial_.size(); }

private:
    void take_partial(std::string_view piece, const Sink& sink);

    std::size_t max_line_;
    std::string partial_;
    bool skipping_ = false;   // the current line was cut: drop bytes up to its end
};

}  // namespace denpex
