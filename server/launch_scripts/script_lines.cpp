#include "server/launch_scripts/script_lines.hpp"

namespace denpex::server {

ScriptLines::ScriptLines(std::string_view text) : text_(text) {
    std::size_t b = 0;
    while (b < text.size()) {
        std::size_t e = text.find('\n', b);
        const std::size_t next = e == std::string_view::npos ? text.size() : e + 1;
        if (e == std::string_view::npos) e = text.size();
        std::string_view line = text.substr(b, e - b);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        lines_.push_back(line);
        starts_.push_back(b);
        b = next;
    }
}

std::string_view ScriptLines::indentation(std::size_t i) const {
    std::string_view l = lines_[i];
    std::size_t n = 0;
    while (n < l.size() && (l[n] == ' ' || l[n] == '\t')) ++n;
    return l.substr(0, n);
}

bool ScriptLines::blank(std::size_t i) const { return indent(i) == lines_[i].size(); }

bool ScriptLines::blank_or_comment(std::size_t i, char comment) const {
    std::string_view t = trimmed(i);
    return t.empty() || t.front() == comment;
}

std::string_view ScriptLines::trimmed(std::size_t i) const {
    std::string_view l = lines_[i].substr(indent(i));
    while (!l.empty() && (l.back() == ' ' || l.back() == '\t')) l.remove_suffix(1);
    return l;
}

std::size_t ScriptLines::after(std::size_t i, std::string& prefix) const {
    prefix.clear();
    if (i + 1 < starts_.size()) return starts_[i + 1];
    if (!text_.empty() && text_.back() != '\n') prefix.push_back('\n');   // (not `= "\n"`: g++ 12 -Wrestrict false positive)
    return text_.size();
}

bool contains_word(std::string_view s, std::string_view word) {
    auto is_word = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    };
    for (std::size_t at = s.find(word); at != std::string_view::npos; at = s.find(word, at + 1)) {
        const bool left = at == 0 || !is_word(s[at - 1]);
        const bool right = at + word.size() >= s.size() || !is_word(s[at + word.size()]);
        if (left && right) return true;
    }
    return false;
}

}  // namespace denpex::server
