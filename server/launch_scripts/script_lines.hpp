// ScriptLines: a script split into "\n"-terminated lines with their byte offsets — the common ground of the
// four launch-script checkers, which all work line by line and insert whole lines.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace denpex::server {

class ScriptLines {
public:
    explicit ScriptLines(std::string_view text);

    std::size_t size() const { return lines_.size(); }
    // Line i without "\n" and without a trailing "\r".
    std::string_view operator[](std::size_t i) const { return lines_[i]; }
    std::size_t start(std::size_t i) const { return i < starts_.size() ? starts_[i] : text_.size(); }
    std::string_view text() const { return text_; }

    // Leading spaces and tabs of line i, as written.
    std::string_view indentation(std::size_t i) const;
    // Column of the first non-blank character (a tab counts as one).
    std::size_t indent(std::size_t i) const { return indentation(i).size(); }
    bool blank(std::size_t i) const;
    // Blank, or its first non-blank character is `comment`.
    bool blank_or_comment(std::size_t i, char comment = '#') const;
    std::string_view trimmed(std::size_t i) const;

    // Offset where a new line inserted after line i begins, and the prefix the inserted text needs there
    // ("\n" when line i is the last one and has no terminator).
    std::size_t after(std::size_t i, std::string& prefix) const;

private:
    std::string_view text_;
    std::vector<std::string_view> lines_;
    std::vector<std::size_t> starts_;
};

// Whether `word` occurs in `s` as a whole word (letters, digits, '_' around it do not count as boundaries).
bool contains_word(std::string_view s, std::string_view word);

}  // namespace denpex::server
