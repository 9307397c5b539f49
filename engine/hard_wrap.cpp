#include "engine/hard_wrap.hpp"

#include <algorithm>
#include <map>

namespace denpex {
namespace {

constexpr std::size_t kProbeLines = 400;
constexpr std::size_t kProbeBytes = 1u << 20;
constexpr std::size_t kMinWidth = 60;

std::string_view without_cr(std::string_view s) {
    if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
    return s;
}

bool ends_in_padding(std::string_view s) { return s.size() >= 2 && s[s.size() - 1] == ' ' && s[s.size() - 2] == ' '; }

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
    std::size_t mid_text_breaks = 0;
    for (std::size_t i = 0; i + 1 < buffered_.size(); ++i) {
        std::string_view a = without_cr(buffered_[i].first), b = without_cr(buffered_[i + 1].first);
        if (a.size() == w && a.back() != ' ' && !b.empty() && b.front() != ' ') ++mid_text_breaks;
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
