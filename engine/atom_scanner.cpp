#include "engine/atom_scanner.hpp"

#include <algorithm>
#include <cstring>

namespace denpex {
namespace {

unsigned char fold(unsigned char c) { return static_cast<unsigned char>(c | 0x20); }

std::uint32_t gram_at(const unsigned char* p) {
    std::uint32_t g;
    std::memcpy(&g, p, sizeof g);
    return g | 0x20202020u;
}

// How common a folded byte is in logs: the anchor is the gram with the lowest sum.
int commonness(unsigned char c) {
    if (c == ' ' || (c >= '0' && c <= '9')) return 4;
    if (std::string_view("etaoinsrlcd").find(static_cast<char>(c)) != std::string_view::npos) return 3;
    if (c >= 'a' && c <= 'z') return 1;
    if (std::string_view(":.-,/=}{)(|").find(static_cast<char>(c)) != std::string_view::npos) return 2;
    return 0;
}

}  // namespace

AtomScanner::AtomScanner(const std::vector<std::string>& atoms) : bitmap_((1u << kHashBits) / 64, 0) {
    for (std::size_t i = 0; i < atoms.size(); ++i) {
        std::string f;
        bool ascii = true;
        for (char ch : atoms[i]) {
            const auto c = static_cast<unsigned char>(ch);
            ascii &= c < 0x80;
            f.push_back(static_cast<char>(fold(c)));
        }
        folded_.push_back(f);
        if (!ascii || f.size() < kGram) {
            always_.push_back(static_cast<int>(i));
            continue;
        }
        std::size_t best = 0;
        int best_score = 1 << 30;
        for (std::size_t k = 0; k + kGram <= f.size(); ++k) {
            int score = 0;
            for (std::size_t j = 0; j < kGram; ++j) score += commonness(static_cast<unsigned char>(f[k + j]));
            if (score < best_score) best = k, best_score = score;
        }
        const std::uint32_t g = gram_at(reinterpret_cast<const unsigned char*>(f.data() + best));
        anchors_.push_back({g, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(best)});
        const std::uint32_t h = hash(g);
        bitmap_[h >> 6] |= std::uint64_t{1} << (h & 63);
    }
    std::sort(anchors_.begin(), anchors_.end(), [](const Anchor& a, const Anchor& b) { return a.gram < b.gram; });
}

// The gram at `at` passed the bitmap: every atom anchored on it that the text holds around `at`.
void AtomScanner::verify(std::string_view text, std::size_t at, std::uint32_t gram, std::vector<int>& found) const {
    auto it = std::lower_bound(anchors_.begin(), anchors_.end(), gram,
                               [](const Anchor& a, std::uint32_t g) { return a.gram < g; });
    for (; it != anchors_.end() && it->gram == gram; ++it) {
        const std::string& atom = folded_[it->atom];
        if (at < it->offset || at - it->offset + atom.size() > text.size()) continue;
        const std::size_t start = at - it->offset;
        bool same = true;
        for (std::size_t k = 0; k < atom.size() && same; ++k)
            same = fold(static_cast<unsigned char>(text[start + k])) == static_cast<unsigned char>(atom[k]);
        if (same) found.push_back(static_cast<int>(it->atom));
    }
}

bool AtomScanner::scan(std::string_view text, std::vector<int>& found) const {
    found.assign(always_.begin(), always_.end());
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const std::size_t n = text.size();
    std::uint32_t seen = 0;
    const std::uint64_t* bits = bitmap_.data();
    std::size_t i = 0;
    for (; i + kGram <= n; ++i) {
        std::uint32_t raw;
        std::memcpy(&raw, p + i, sizeof raw);
        seen |= raw;
        const std::uint32_t g = raw | 0x20202020u;
        const std::uint32_t h = hash(g);
        if ((bits[h >> 6] >> (h & 63)) & 1u) [[unlikely]] verify(text, i, g, found);
    }
    for (; i < n; ++i) seen |= p[i];
    if (seen & 0x80808080u) return false;
    if (found.size() > 1) {
        std::sort(found.begin(), found.end());
        found.erase(std::unique(found.begin(), found.end()), found.end());
    }
    return true;
}

}  // namespace denpex
