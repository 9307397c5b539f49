#include "engine/hard_wrap.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace denpex {
namespace {

constexpr std::size_t kProbeLines = HardWrapJoiner::kProbeLines;
constexpr std::size_t kProbeBytes = HardWrapJoiner::kProbeBytes;
constexpr std::size_t kMinWidth = 60;

std::string_view without_cr(std::string_view s) {
    if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
    return s;
}

bool table_border(char c) { return c == '|' || c == '+'; }

bool ends_in_padding(std::string_view s) { return s.size() >= 2 && s[s.size() - 1] == ' ' && s[s.size() - 2] == ' '; }

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_word(char c) { return is_digit(c) || is_upper(c) || is_lower(c) || c == '_'; }

// The shape of a line's first bytes: letters and digits by class, anything else as itself. Lines of one log start
// alike ("[rank0]: 2024-..." and "[rank1]: 2024-..."); a terminal's continuation rows start anywhere in the text.
std::string head_shape(std::string_view s) {
    std::string out;
    for (char c : s.substr(0, 6)) out += is_digit(c) ? '9' : is_upper(c) ? 'A' : is_lower(c) ? 'a' : c;
    return out;
}

// Whether a line starts the way a log record does: a bracketed or parenthesised prefix, a timestamp, glog's
// header, a level word, a traceback's or an exception's report line, a `name: ` prefix (srun, pdsh, NVRM).
bool generic_line_start(std::string_view b) {
    if (b.empty()) return true;
    const char c = b[0];
    if (c == '[' || c == '<' || c == '(') return true;
    std::size_t digits = 0;
    while (digits < b.size() && is_digit(b[digits])) ++digits;
    if (digits >= 2 && digits < b.size() && (b[digits] == '-' || b[digits] == ':' || b[digits] == '/' || b[digits] == '.'))
        return true;   // 2024-01-21, 02:10:00, 01/21, 1705803000.123
    if ((c == 'I' || c == 'W' || c == 'E' || c == 'F') && b.size() > 5 && is_digit(b[1]) && is_digit(b[2]) &&
        is_digit(b[3]) && is_digit(b[4]) && b[5] == ' ')
        return true;   // glog: I0121 02:10:00.005 ...
    for (std::string_view level : {"INFO", "WARNING", "WARN", "ERROR", "DEBUG", "CRITICAL", "FATAL", "TRACE",
                                   "Traceback ", "During handling", "The above exception"})
        if (b.starts_with(level) && (b.size() == level.size() || !is_word(b[level.size()]))) return true;
    // `name: ` / `pkg.ExceptionName: `: a word (dots, dashes allowed) right before ": ".
    std::size_t i = 0;
    while (i < b.size() && i < 64 && (is_word(b[i]) || b[i] == '.' || b[i] == '-')) ++i;
    return i >= 2 && i + 1 < b.size() && b[i] == ':' && b[i + 1] == ' ';
}

}  // namespace

void HardWrapJoiner::probe() {
    probed_ = true;
    std::size_t bytes = 0;
    std::string_view line;
    bool truncated = false;
    while (buffered_.size() < kProbeLines && bytes < kProbeBytes && reader_.next(line, truncated)) {
        bytes += line.size();
        buffered_.emplace_back(std::string(line), truncated);
    }
    std::map<std::size_t, std::size_t> lengths;
    std::size_t longest = 0, non_empty = 0;
    for (const auto& [text, cut] : buffered_) {
        std::size_t n = without_cr(text).size();
        if (cut) return;   // a cut line is not a wrapped one
        if (n == 0) continue;
        ++non_empty;
        ++lengths[n];
        longest = std::max(longest, n);
    }
    if (longest < kMinWidth) return;
    const std::size_t w = longest;
    const std::size_t at_width = lengths[w];
    if (at_width < 5 || at_width * 10 < non_empty * 3) return;
    // Evidence of wrapping: a row exactly W long, not ending in a space, followed by a row that starts mid-text:
    // not with a space, and not the way this input's lines start (the shape of the first line's head and of every
    // line that follows a shorter one, which certainly starts a line, nor a generic log record's start). A log whose
    // lines merely have equal lengths shows none: each of its rows starts like a line.
    std::set<std::string> start_shapes;
    for (std::size_t i = 0; i < buffered_.size(); ++i) {
        std::string_view b = without_cr(buffered_[i].first);
        if (b.empty()) continue;
        if (i == 0 || without_cr(buffered_[i - 1].first).size() < w) start_shapes.insert(head_shape(b));
    }
    std::size_t mid_text_breaks = 0;
    for (std::size_t i = 0; i + 1 < buffered_.size(); ++i) {
        std::string_view a = without_cr(buffered_[i].first), b = without_cr(buffered_[i + 1].first);
        if (a.size() != w || a.back() == ' ' || b.empty() || b.front() == ' ' || b.front() == '\t') continue;
        // A table's rows (nvidia-smi's device table) end on its right border and start on its left one: equal widths,
        // but each row is a line of its own.
        if (table_border(a.back()) && table_border(b.front())) continue;
        if (start_shapes.count(head_shape(b)) || generic_line_start(b)) continue;
        ++mid_text_breaks;
    }
    if (mid_text_breaks >= 3) width_ = w;
}

bool HardWrapJoiner::physical(std::string& out, bool& truncated) {
    if (!buffered_.empty()) {
        out = std::move(buffered_.front().first);
        truncated = buffered_.front().second;
        buffered_.pop_front();
        ++physical_line_;
        return true;
    }
    std::string_view line;
    if (!reader_.next(line, truncated)) return false;
    out.assign(line);
    ++physical_line_;
    return true;
}

bool HardWrapJoiner::next(std::string_view& line, bool& truncated, std::uint64_t& first_line) {
    if (!probed_) probe();
    // Past the probe window of an unwrapped input, lines pass straight through without a copy.
    if (!width_ && buffered_.empty()) {
        if (!reader_.next(line, truncated)) return false;
        first_line = ++physical_line_;
        return true;
    }
    std::uint64_t start;
    if (pending_valid_) {
        current_ = std::move(pending_);
        truncated = pending_truncated_;
        pending_valid_ = false;
        start = pending_line_;
    } else if (!physical(current_, truncated)) {
        return false;
    } else {
        start = physical_line_;
    }
    if (width_) {
        // Keep appending while the line fills the terminal exactly and was not padded out.
        std::string next_line;
        bool next_truncated = false;
        std::size_t last_row = without_cr(current_).size();   // the latest physical row decides, not the total
        bool last_padded = ends_in_padding(without_cr(current_));
        while (last_row == *width_ && !last_padded) {
            if (!physical(next_line, next_truncated)) break;
            if (next_line.empty()) {   // an empty line ends a paragraph; keep it for the next call
                pending_ = std::move(next_line);
                pending_truncated_ = next_truncated;
                pending_valid_ = true;
                pending_line_ = physical_line_;
                break;
            }
            if (!current_.empty() && current_.back() == '\r') current_.pop_back();
            last_row = without_cr(next_line).size();
            last_padded = ends_in_padding(without_cr(next_line));
            current_ += next_line;
            truncated = truncated || next_truncated;
        }
    }
    first_line = start;
    line = current_;
    return true;
}

}  // namespace denpex
