// HardWrapJoiner: undoes a terminal's hard wrapping, so messages split mid-token become one line again.
//
// Contract. Wraps a LineReader. It first looks at up to 400 lines (at most 1 MiB) of the input to decide
// whether the text was hard-wrapped at a fixed width W: no line longer than W, W >= 60, at least 5 lines (and
// 30% of the non-empty ones) exactly W long, and at least 3 of those breaking mid-text: no space on either side
// of the break (a row ending on a table's border, '|' or '+', followed by one starting on it is a table's next row,
// not a break), and the row after it does not start the way a log line does (the shape of the input's own line
// starts, a timestamp, a bracketed prefix, a level word...). Equal lengths alone are no evidence: a log whose
// first 400 lines all have the same length passes through untouched. Only then it joins every line exactly W long (unless it ends in two or more spaces: padding,
// the line really ended there) with the line after it. Otherwise lines pass through untouched. Either way each
// logical line reports the physical line it starts on. Memory: the probe window plus one joined line.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

#include "engine/line_reader.hpp"

namespace denpex {

class HardWrapJoiner {
public:
    // The probe window: the first lines of an input, up to either limit, decide whether it is hard-wrapped.
    static constexpr std::size_t kProbeLines = 400;
    static constexpr std::size_t kProbeBytes = 1u << 20;

    explicit HardWrapJoiner(LineReader& reader) : reader_(reader) {}

    // The next logical line; `first_line` is its 1-based physical line number.
    bool next(std::string_view& line, bool& truncated, std::uint64_t& first_line);
    std::optional<std::size_t> width() const { return width_; }

private:
    void probe();
    bool physical(std::string& out, bool& truncated);

    LineReader& reader_;
    bool probed_ = false;
    std::optional<std::size_t> width_;
    std::deque<std::pair<std::string, bool>> buffered_;
    std::string current_, pending_;
    bool pending_valid_ = false, pending_truncated_ = false;
    std::uint64_t physical_line_ = 0, pending_line_ = 0;
};

}  // namespace denpex
