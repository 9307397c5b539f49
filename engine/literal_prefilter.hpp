// LiteralPrefilter: which of a set of patterns can match a line, decided from literals alone.
//
// Contract. Built once from signatures (their patterns, compiled with each signature's own RE2 options, so `(?i)`
// and case-sensitive patterns are both handled). For each pattern RE2's FilteredRE2 derives the literals ("atoms",
// lowercased, at least kMinAtomLength bytes) any match must contain, as an AND/OR tree. From that tree, probed
// through FilteredRE2's public API, each pattern keeps clauses: sets of atoms of which a matching line holds at
// least one (`(?:CUDA|HIP) out of memory.*(?:GiB|MiB)` gives {cuda out of memory, hip out of memory} and
// {gib, mib}). A line is a candidate for the pattern when every clause has an atom in it. A pattern with no atom
// (a bare character class, `.+`) is `filtered() == false`: the caller runs it on every line.
//
// `candidates(text, out)` scans the line once for every atom (AtomScanner: Aho–Corasick, ASCII case-insensitive)
// and fills `out` with the filtered patterns whose condition holds, ascending. It returns false, leaving `out`
// unspecified, for a line with a byte >= 0x80 (atoms are ASCII-lowercased; Unicode case folding is not): such a
// line must be matched against every pattern. A pattern left out of `out` cannot match the line: exact by
// construction: a clause is only kept when the tree, given every atom but the clause's, lets nothing through, so
// by the tree's monotonicity a line without any of them cannot satisfy it, and the tree is a necessary condition. Allocates nothing per line once its per-thread buffers have grown. Thread-safe after construction.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/knowledge.hpp"

namespace denpex {

class AtomScanner;

class LiteralPrefilter {
public:
    // Shorter literals (" in", "info") occur on most lines and filter nothing: a pattern whose only literals are
    // that short is run on every line instead. Five keeps "error" and "info:" (Python's exception line, logging's
    // `INFO:name:` record), so no built-in pattern runs on every line: at 6 those two did, on every line, and were
    // ~15% of a run (bench/results.md, third pass).
    static constexpr int kMinAtomLength = 5;

    explicit LiteralPrefilter(const std::vector<const Signature*>& signatures);
    ~LiteralPrefilter();
    LiteralPrefilter(const LiteralPrefilter&) = delete;
    LiteralPrefilter& operator=(const LiteralPrefilter&) = delete;

    // Whether signature i (in the constructor's order) can be ruled out by literals.
    bool filtered(std::size_t i) const { return i < need_.size() && need_[i] >= 0; }
    bool candidates(std::string_view text, std::vector<std::uint32_t>& out) const;
    // Whether any filtered pattern can match (true for a non-ASCII line).
    bool may_match(std::string_view text) const;
    std::size_t atoms() const { return users_.size(); }

private:
    void add_pattern(std::uint32_t index, const Signature& s, std::vector<std::string>& atoms,
                     std::unordered_map<std::string, std::size_t>& atom_ids);

    std::unique_ptr<AtomScanner> scanner_;
    std::vector<std::vector<std::uint32_t>> users_;   // atom -> the clauses it is in
    std::vector<std::uint32_t> clause_pattern_;       // clause -> its pattern
    std::vector<int> need_;                           // pattern -> its number of clauses; -1: not filtered
};

}  // namespace denpex
