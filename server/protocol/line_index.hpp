// LineIndex: where each line of a text starts, so LSP positions (line + column in the negotiated encoding)
// and byte offsets convert both ways, and so the engine's line numbers map onto the editor's lines.
//
// Contract. Lines are split the LSP way: "\r\n", "\n" and a lone "\r" each end a line. The engine splits on
// "\n" only (a lone "\r" is a progress-bar redraw inside one log line), so `engine_line_range(n)` maps the
// engine's 1-based line n to the editor range that covers it: the whole line, from column 0 to the line's
// length in the encoding — several editor lines when the log line contains redraws. The index keeps a view
// of the text: the text must outlive it and stay where it is (Document owns both). Positions past the end
// clamp: a line past the last means the end of the text, a column past the line's end means the line's end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "server/protocol/lsp_types.hpp"
#include "server/protocol/position_encoding.hpp"

namespace denpex::server {

class LineIndex {
public:
    explicit LineIndex(std::string_view text);

    std::size_t line_count() const { return starts_.size(); }
    // Line i without its terminator; empty past the end.
    std::string_view line(std::size_t i) const;
    std::size_t line_start(std::size_t i) const { return i < starts_.size() ? starts_[i] : text_.size(); }

    std::size_t offset_of(const Position& p, PositionEncoding e) const;
    Position position_of(std::size_t offset, PositionEncoding e) const;
    // The editor line holding `offset`.
    std::size_t line_of(std::size_t offset) const;

    // Whole-line range of the engine's line `line` (1-based, "\n"-split); nullopt past the end.
    std::optional<Range> engine_line_range(std::uint64_t line, PositionEncoding e) const;
    // Editor line -> the engine's 1-based line number that contains it.
    std::uint64_t engine_line_of(std::size_t editor_line) const;
    // The engine's line `line` (1-based) as raw bytes without "\n" (a trailing "\r" is kept, as the engine sees
    // it); empty past the end.
    std::string_view engine_line_text(std::uint64_t line) const;

private:
    std::size_t engine_line_start(std::uint64_t line) const;   // npos past the end

    std::string_view text_;
    std::vector<std::size_t> starts_;      // editor line starts
    bool lone_cr_ = false;                 // editor and engine lines differ only when a lone "\r" occurs
    std::vector<std::size_t> nl_starts_;   // engine line starts, built only when lone_cr_
};

}  // namespace denpex::server
