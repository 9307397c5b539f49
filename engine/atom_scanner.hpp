// AtomScanner: which of a fixed set of literal strings ("atoms") occur in a line, in one pass.
//
// Contract. Built once from atoms (FilteredRE2's required literals, lowercased). `scan(text, found)` fills `found`
// with the index of every atom that occurs in the text compared under `fold` (each index once, ascending), and
// possibly a few more: `fold` (byte | 0x20) lowercases letters and merges a few punctuation bytes ('[' with '{',
// '_' with DEL, ...), applied alike to text and atoms, so an atom that occurs case-insensitively is always found;
// the caller's condition stays a necessary one. It returns false when the text holds a byte >= 0x80, and then
// `found` is not to be trusted (the caller treats the line as one that may match anything). Atoms with a byte
// >= 0x80 or shorter than kGram are reported as found in every line (never a lost match).
//
// How. Each atom is anchored on one of its 4-byte grams, the one likeliest to be rare in logs (digits, spaces and
// common letters count against a gram). The scan hashes the folded gram at every position into a 64 Kibit bitmap
// (fits in L1; no dependency between positions, unlike an automaton); only on a set bit does it look the gram up and
// compare the atoms anchored on it. Linear in the text's length; allocates nothing once `found` has grown.
// Thread-safe after construction.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace denpex {

class AtomScanner {
public:
    static constexpr std::size_t kGram = 4;

    explicit AtomScanner(const std::vector<std::string>& atoms);

    bool scan(std::string_view text, std::vector<int>& found) const;

private:
    struct Anchor {
        std::uint32_t gram;
        std::uint32_t atom;
        std::uint32_t offset;   // where the gram starts in the atom
    };
    static constexpr unsigned kHashBits = 16;
    static std::uint32_t hash(std::uint32_t gram) { return (gram * 0x9E3779B1u) >> (32 - kHashBits); }
    void verify(std::string_view text, std::size_t at, std::uint32_t gram, std::vector<int>& found) const;

    std::vector<std::string> folded_;      // the atoms, folded
    std::vector<Anchor> anchors_;          // sorted by gram
    std::vector<std::uint64_t> bitmap_;    // hash(gram) of every anchor
    std::vector<int> always_;              // atoms the scan cannot see: found in every line
};

}  // namespace denpex
