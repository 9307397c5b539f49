#include "engine/literal_prefilter.hpp"

#include <re2/filtered_re2.h>
#include <re2/re2.h>

#include <algorithm>
#include <set>

#include "engine/atom_scanner.hpp"

namespace denpex {
namespace {

// Per thread, per line: which clauses an atom of the line satisfied, and how many of each pattern's.
struct Scratch {
    std::vector<int> found;
    std::vector<std::uint32_t> clause_seen;    // clause -> the line (generation) it was last satisfied on
    std::vector<std::uint32_t> pattern_seen;   // pattern -> the line it was last touched on
    std::vector<int> satisfied;                // pattern -> clauses satisfied on that line
    std::vector<std::uint32_t> touched;
    std::uint32_t generation = 0;
};

// Patterns with more atoms than this keep one clause of all their atoms (any one must be there) plus the atoms
// that are clauses alone: finding every clause costs a probe per atom pair.
constexpr std::size_t kClauseSearchAtoms = 48;

// The clauses of one pattern's tree over atoms 0..n-1: for each atom, minimal sets holding it that the tree cannot
// do without (a set S such that the tree, given every atom but S's, lets nothing through).
std::set<std::vector<int>> clauses(const re2::FilteredRE2& tree, std::size_t n) {
    std::vector<int> passed;
    auto blocks = [&](const std::vector<bool>& removed) {
        std::vector<int> given;
        for (std::size_t k = 0; k < n; ++k)
            if (!removed[k]) given.push_back(static_cast<int>(k));
        tree.AllPotentials(given, &passed);
        return passed.empty();
    };
    std::set<std::vector<int>> out;
    std::vector<int> all(n);
    for (std::size_t k = 0; k < n; ++k) all[k] = static_cast<int>(k);
    out.insert(all);   // some atom is always needed: the pattern is filtered
    const bool search = n <= kClauseSearchAtoms;
    for (std::size_t a = 0; a < n; ++a) {
        // Searching: start with every atom removed and give back each the tree can do without, in both orders (which
        // atoms a greedy pass gives back first decides which clause it ends with). Not searching: is atom a a
        // clause alone?
        for (const bool ascending : {true, false}) {
            std::vector<bool> removed(n, search);
            removed[a] = true;
            for (std::size_t i = 0; search && i < n; ++i) {
                const std::size_t b = ascending ? i : n - 1 - i;
                if (b == a) continue;
                removed[b] = false;
                if (!blocks(removed)) removed[b] = true;
            }
            if (!blocks(removed)) break;
            std::vector<int> clause;
            for (std::size_t k = 0; k < n; ++k)
                if (removed[k]) clause.push_back(static_cast<int>(k));
            out.insert(clause);
            if (!search) break;
        }
    }
    // A clause that holds another is implied by it: only the smallest are kept (fewer clauses per atom to count).
    std::set<std::vector<int>> minimal;
    for (const auto& c : out) {
        const bool implied = std::any_of(out.begin(), out.end(), [&](const std::vector<int>& d) {
            return d.size() < c.size() && std::includes(c.begin(), c.end(), d.begin(), d.end());
        });
        if (!implied) minimal.insert(c);
    }
    return minimal;
}

}  // namespace

LiteralPrefilter::LiteralPrefilter(const std::vector<const Signature*>& signatures) {
    need_.assign(signatures.size(), -1);
    std::vector<std::string> atoms;
    std::unordered_map<std::string, std::size_t> atom_ids;
    for (std::size_t i = 0; i < signatures.size(); ++i)
        if (signatures[i]->regex) add_pattern(static_cast<std::uint32_t>(i), *signatures[i], atoms, atom_ids);
    scanner_ = std::make_unique<AtomScanner>(atoms);
}

LiteralPrefilter::~LiteralPrefilter() = default;

// One pattern alone in a FilteredRE2: its atoms and clauses. Leaves the pattern unfiltered when the tree lets it
// through with no atom at all.
void LiteralPrefilter::add_pattern(std::uint32_t index, const Signature& s, std::vector<std::string>& atoms,
                                   std::unordered_map<std::string, std::size_t>& atom_ids) {
    re2::FilteredRE2 tree(kMinAtomLength);
    int id = -1;
    if (tree.Add(s.pattern, s.regex->options(), &id) != RE2::NoError) return;
    std::vector<std::string> own;
    tree.Compile(&own);
    std::vector<int> passed;
    tree.AllPotentials({}, &passed);
    if (!passed.empty() || own.empty()) return;
    const auto found = clauses(tree, own.size());
    for (const std::vector<int>& clause : found) {
        const auto c = static_cast<std::uint32_t>(clause_pattern_.size());
        clause_pattern_.push_back(index);
        for (int k : clause) {
            const auto [at, added] = atom_ids.try_emplace(own[static_cast<std::size_t>(k)], atoms.size());
            if (added) {
                atoms.push_back(own[static_cast<std::size_t>(k)]);
                users_.emplace_back();
            }
            users_[at->second].push_back(c);
        }
    }
    need_[index] = static_cast<int>(found.size());
}

bool LiteralPrefilter::candidates(std::string_view text, std::vector<std::uint32_t>& out) const {
    thread_local Scratch s;
    out.clear();
    if (!scanner_->scan(text, s.found)) return false;
    if (s.found.empty()) return true;
    if (s.clause_seen.size() < clause_pattern_.size() || s.pattern_seen.size() < need_.size()) {
        s.clause_seen.assign(clause_pattern_.size(), 0);
        s.pattern_seen.assign(need_.size(), 0);
        s.satisfied.assign(need_.size(), 0);
        s.generation = 0;
    }
    if (++s.generation == 0) {   // wrapped: forget every mark
        std::fill(s.clause_seen.begin(), s.clause_seen.end(), 0);
        std::fill(s.pattern_seen.begin(), s.pattern_seen.end(), 0);
        s.generation = 1;
    }
    s.touched.clear();
    for (int atom : s.found) {
        for (std::uint32_t c : users_[static_cast<std::size_t>(atom)]) {
            if (s.clause_seen[c] == s.generation) continue;
            s.clause_seen[c] = s.generation;
            const std::uint32_t p = clause_pattern_[c];
            if (s.pattern_seen[p] != s.generation) {
                s.pattern_seen[p] = s.generation;
                s.satisfied[p] = 0;
                s.touched.push_back(p);
            }
            ++s.satisfied[p];
        }
    }
    for (std::uint32_t p : s.touched)
        if (s.satisfied[p] == need_[p]) out.push_back(p);
    std::sort(out.begin(), out.end());
    return true;
}

bool LiteralPrefilter::may_match(std::string_view text) const {
    thread_local std::vector<std::uint32_t> out;
    return !candidates(text, out) || !out.empty();
}

}  // namespace denpex
