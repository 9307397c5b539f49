// Literal: a fixed string searched for in log text by its rarest byte.
//
// Contract. `Literal(needle).in(text)` is exactly `text.find(needle) != npos`: true when `needle` occurs in `text`
// (byte for byte, case-sensitive; an empty needle occurs everywhere). It reads only `text`, allocates nothing and
// runs in time linear in `text.size() * needle.size()` at worst, like string_view::find.
//
// Why. string_view::find runs memchr for the needle's first byte and compares at every occurrence of it; for needles
// that start with a common byte (' ', 'a', 'r', '-') that is a stop every few bytes of an ordinary log line. The
// scans before matching (in-body markers, stack banners) test a dozen needles per line, which made these searches
// ~11% of a run (bench/results.md). A Literal instead runs memchr for the needle's rarest byte (by a fixed ranking:
// upper case, punctuation and uncommon letters before digits, spaces and e/t/a/o/...), chosen once when the Literal
// is built (constexpr), so most lines are passed over in one memchr per needle.
#pragma once

#include <cstddef>
#include <cstring>
#include <string_view>

namespace denpex {

class Literal {
public:
    constexpr explicit Literal(std::string_view needle) : needle_(needle), anchor_(rarest(needle)) {}

    bool in(std::string_view text) const {
        if (needle_.empty()) return true;
        if (text.size() < needle_.size()) return false;
        const char c = needle_[anchor_];
        const char* p = text.data() + anchor_;
        // The last place the anchor byte can be with the whole needle inside `text`.
        const char* end = text.data() + (text.size() - needle_.size()) + anchor_ + 1;
        while (p < end) {
            const void* hit = std::memchr(p, c, static_cast<std::size_t>(end - p));
            if (hit == nullptr) return false;
            const char* start = static_cast<const char*>(hit) - anchor_;
            if (std::memcmp(start, needle_.data(), needle_.size()) == 0) return true;
            p = static_cast<const char*>(hit) + 1;
        }
        return false;
    }

    std::string_view text() const { return needle_; }

private:
    // Higher is rarer in log text.
    static constexpr int rarity(char c) {
        if (c >= 'A' && c <= 'Z') return 3;
        if (c >= 'a' && c <= 'z') return std::string_view("etaoinsrhldcu").find(c) == std::string_view::npos ? 2 : 0;
        if (c == ' ' || (c >= '0' && c <= '9')) return 0;
        if (c == '[' || c == ']' || c == ':' || c == '-' || c == '.' || c == ',' || c == '_' || c == '/') return 1;
        return 4;
    }
    static constexpr std::size_t rarest(std::string_view needle) {
        std::size_t best = 0;
        for (std::size_t i = 1; i < needle.size(); ++i)
            if (rarity(needle[i]) > rarity(needle[best])) best = i;
        return best;
    }

    std::string_view needle_;
    std::size_t anchor_;
};

}  // namespace denpex
