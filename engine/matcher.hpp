// Matcher: which knowledge signatures a line carries.
//
// Contract. Built once from a KnowledgeBase. `match(text)` runs ONE RE2::Set pass over the line (linear in
// its length, no backtracking) to learn which signatures hit; only those then run their own pattern, to
// extract named captures. A signature marked `fallback` is dropped when any non-fallback signature hit the
// same line, so a generic "uncaught Python exception" never competes with the specific message it wraps; and an
// entry that `refines` another takes the line from it (a fragmentation OOM is reported as that, not as an OOM).
// Thread-safe after construction.
//
// The literal prefilter. Most lines match nothing, so each set's patterns are split: those a LiteralPrefilter can
// rule out by their required literals sit in a set that runs only on lines holding them (one Aho-Corasick pass
// decides), the others in a set that runs on every line. The hits are the same as without it, line for line.
//
// Two sets. Built-in signatures and a team's (`--knowledge DIR`) are compiled into separate sets, the team's under
// its own memory limit (kTeamSetMaxMem), so no team entry can switch off built-in matching. When the team's set
// does not compile, the longest run of team entries (in load order) that does is kept and the others are left
// unmatched, which `warnings()` says. Should a set's DFA still run out of memory on a line, that line is matched
// pattern by pattern (each RE2 falls back to its NFA): slower, never silently without hits.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/knowledge.hpp"

namespace re2 { class RE2; }

namespace denpex {

struct Hit {
    const Signature* signature = nullptr;
    std::map<std::string, std::string> captures;
};

class Matcher {
public:
    static constexpr std::int64_t kTeamSetMaxMem = 64 << 20;

    // `team_max_mem`: the team set's RE2 memory limit (tests lower it). `literal_prefilter`: off only to check
    // that the prefilter changes no line's hits (tests/unit/prefilter_test.cpp).
    explicit Matcher(const KnowledgeBase& kb, std::int64_t team_max_mem = kTeamSetMaxMem,
                     bool literal_prefilter = true);
    ~Matcher();
    Matcher(const Matcher&) = delete;
    Matcher& operator=(const Matcher&) = delete;

    std::vector<Hit> match(std::string_view text) const;
    // Indices (into signatures()) of every signature whose pattern occurs in the line, ascending, before
    // `match` weighs fallbacks, warnings and refinements (tests compare it with the prefilter on and off).
    std::vector<int> matching_ids(std::string_view text) const;
    const std::vector<const Signature*>& signatures() const { return signatures_; }
    // What of the team's knowledge is not matched, and why (one line each).
    const std::vector<std::string>& warnings() const { return warnings_; }

private:
    bool add_parts(const std::vector<const Signature*>& sigs, std::size_t first, std::int64_t max_mem);
    std::size_t add_team(const std::vector<const Entry*>& team, std::int64_t team_max_mem);

    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::vector<const Signature*> signatures_;
    std::vector<std::string> warnings_;
    bool prefilter_ = true;
};

}  // namespace denpex
