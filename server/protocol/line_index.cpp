#include "server/protocol/line_index.hpp"

#include <algorithm>
#include <limits>

namespace denpex::server {
namespace {

std::uint32_t clamp32(std::size_t v) {
    return static_cast<std::uint32_t>(std::min<std::size_t>(v, std::numeric_limits<std::uint32_t>::max()));
}

}  // namespace

LineIndex::LineIndex(std::string_view text) : text_(text) {
    starts_.push_back(0);
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\n') {
            starts_.push_back(i + 1);
        } else if (c == '\r') {
            if (i + 1 < text.size() && text[i + 1] == '\n') {
                starts_.push_back(i + 2);
                ++i;
            } else {
                lone_cr_ = true;
                starts_.push_back(i + 1);
            }
        }
    }
    if (lone_cr_) {
        nl_starts_.push_back(0);
        for (std::size_t i = 0; i < text.size(); ++i)
            if (text[i] == '\n') nl_starts_.push_back(i + 1);
    }
}

std::string_view LineIndex::line(std::size_t i) const {
    if (i >= starts_.size()) return {};
    const std::size_t b = starts_[i];
    std::size_t e = i + 1 < starts_.size() ? starts_[i + 1] : text_.size();
    if (e > b && text_[e - 1] == '\n') --e;
    if (e > b && text_[e - 1] == '\r') --e;
    return text_.substr(b, e - b);
}

std::size_t LineIndex::line_of(std::size_t offset) const {
    auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
    return static_cast<std::size_t>(it - starts_.begin()) - 1;
}

std::size_t LineIndex::offset_of(const Position& p, PositionEncoding e) const {
    if (p.line >= starts_.size()) return text_.size();
    return starts_[p.line] + byte_of_column(line(p.line), p.character, e);
}

Position LineIndex::position_of(std::size_t offset, PositionEncoding e) const {
    offset = std::min(offset, text_.size());
    const std::size_t l = line_of(offset);
    const std::string_view ln = line(l);
    const std::size_t in_line = std::min(offset - starts_[l], ln.size());
    return {clamp32(l), clamp32(column_of_byte(ln, in_line, e))};
}

std::size_t LineIndex::engine_line_start(std::uint64_t line) const {
    if (line == 0) return std::string_view::npos;
    const std::vector<std::size_t>& starts = lone_cr_ ? nl_starts_ : starts_;
    if (line - 1 >= starts.size()) return std::string_view::npos;
    const std::size_t b = starts[static_cast<std::size_t>(line - 1)];
    // A final empty "line" after the last newline is not a line the engine read.
    if (b == text_.size() && line > 1) return std::string_view::npos;
    return b;
}

std::string_view LineIndex::engine_line_text(std::uint64_t line) const {
    const std::size_t b = engine_line_start(line);
    if (b == std::string_view::npos) return {};
    std::size_t e = text_.find('\n', b);
    if (e == std::string_view::npos) e = text_.size();
    return text_.substr(b, e - b);
}

std::optional<Range> LineIndex::engine_line_range(std::uint64_t line, PositionEncoding e) const {
    const std::size_t b = engine_line_start(line);
    if (b == std::string_view::npos) return std::nullopt;
    if (!lone_cr_) {
        const std::size_t l = static_cast<std::size_t>(line - 1);
        return Range{{clamp32(l), 0}, {clamp32(l), clamp32(line_length(this->line(l), e))}};
    }
    std::size_t end = text_.find('\n', b);
    if (end == std::string_view::npos) end = text_.size();
    if (end > b && text_[end - 1] == '\r') --end;
    Position s = position_of(b, e);
    Position t = position_of(end, e);
    return Range{s, t};
}

std::uint64_t LineIndex::engine_line_of(std::size_t editor_line) const {
    if (!lone_cr_) return editor_line + 1;
    const std::size_t off = line_start(editor_line);
    auto it = std::upper_bound(nl_starts_.begin(), nl_starts_.end(), off);
    return static_cast<std::uint64_t>(it - nl_starts_.begin());
}

}  // namespace denpex::server
