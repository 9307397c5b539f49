#include "engine/matcher.hpp"

#include "engine/literal_prefilter.hpp"

#include <algorithm>

#include <re2/re2.h>
#include <re2/set.h>

namespace denpex {

namespace {

// One compiled RE2::Set and the signatures behind its indices. A part behind a gate (the prefilter) is matched only
// against the patterns the gate leaves as candidates for the line: none, nothing runs; a few, each its own RE2;
// more (or a non-ASCII line), the whole set. The patterns the gate cannot rule out are a part of their own.
struct Part {
    std::unique_ptr<RE2::Set> set;
    std::vector<std::size_t> index;   // set index -> index in Matcher::signatures_
    std::shared_ptr<const LiteralPrefilter> gate;
    std::size_t gate_first = 0;   // the gate's pattern i is signatures_[gate_first + i]
};

std::unique_ptr<RE2::Set> compile_set(const std::vector<const Signature*>& sigs, std::int64_t max_mem) {
    RE2::Options o;
    o.set_log_errors(false);
    o.set_max_mem(max_mem);
    auto set = std::make_unique<RE2::Set>(o, RE2::UNANCHORED);
    for (const Signature* s : sigs) {
        std::string err;
        if (set->Add(s->pattern, &err) < 0) return nullptr;   // compiled alone at load time; cannot happen
    }
    if (!set->Compile()) return nullptr;
    return set;
}

// The combined DFA of ~hundreds of built-in patterns needs room; past this RE2 reports an error instead of
// silently going slow.
constexpr std::int64_t kBuiltinSetMaxMem = 256 << 20;
// Up to this many candidates, each runs its own RE2 (a small DFA each); past it, one pass of the part's set is
// cheaper.
constexpr std::size_t kDirectCandidates = 4;

// Appends to `ids` the part's signatures that occur in the line: with `only` (indices into `signatures`), just
// those, each by its own RE2; else one pass of the part's set.
void match_part(const Part& part, const std::vector<const Signature*>& signatures, std::string_view text,
                const std::vector<std::size_t>* only, std::vector<int>& ids) {
    const re2::StringPiece piece(text.data(), text.size());
    if (only) {
        for (std::size_t sig : *only)
            if (RE2::PartialMatch(piece, *signatures[sig]->regex)) ids.push_back(static_cast<int>(sig));
        return;
    }
    thread_local std::vector<int> local;
    local.clear();
    RE2::Set::ErrorInfo info{};
    if (part.set->Match(piece, &local, &info)) {
        for (int i : local) ids.push_back(static_cast<int>(part.index[static_cast<std::size_t>(i)]));
    } else if (info.kind != RE2::Set::kNoError) {
        // The set's DFA gave up (out of memory): this line is matched pattern by pattern instead.
        for (std::size_t i : part.index)
            if (RE2::PartialMatch(piece, *signatures[i]->regex)) ids.push_back(static_cast<int>(i));
    }
}

}  // namespace

struct Matcher::Impl {
    std::vector<Part> parts;
};

// Adds `sigs` (already in signatures_ from `first` on) as parts: with the prefilter, the patterns it can rule out
// in one set behind it and the rest in a set that runs on every line; without, one set. Returns false when a set
// does not compile.
bool Matcher::add_parts(const std::vector<const Signature*>& sigs, std::size_t first, std::int64_t max_mem) {
    std::shared_ptr<const LiteralPrefilter> gate;
    if (prefilter_) gate = std::make_shared<LiteralPrefilter>(sigs);
    std::vector<const Signature*> gated_sigs, open_sigs;
    std::vector<std::size_t> gated_index, open_index;
    for (std::size_t i = 0; i < sigs.size(); ++i) {
        const bool gated = gate && gate->filtered(i);
        (gated ? gated_sigs : open_sigs).push_back(sigs[i]);
        (gated ? gated_index : open_index).push_back(first + i);
    }
    std::vector<Part> parts;
    for (auto* group : {&open_sigs, &gated_sigs}) {
        if (group->empty()) continue;
        Part p;
        p.set = compile_set(*group, max_mem);
        if (!p.set) return false;
        p.index = group == &open_sigs ? open_index : gated_index;
        if (group == &gated_sigs) {
            p.gate = gate;
            p.gate_first = first;
        }
        parts.push_back(std::move(p));
    }
    for (Part& p : parts) impl_->parts.push_back(std::move(p));
    return true;
}

// The team's entries: all of them when their set compiles, else the longest prefix that does (binary search: a
// handful of compilations, not one per entry). Returns how many entries are kept.
std::size_t Matcher::add_team(const std::vector<const Entry*>& team, std::int64_t team_max_mem) {
    auto team_signatures = [&](std::size_t entries) {
        std::vector<const Signature*> out;
        for (std::size_t i = 0; i < entries; ++i)
            for (const auto& s : team[i]->signatures)
                if (s.regex) out.push_back(&s);
        return out;
    };
    auto fits = [&](std::size_t entries) {
        const auto sigs = team_signatures(entries);
        return sigs.empty() || compile_set(sigs, team_max_mem) != nullptr;
    };
    std::size_t kept = team.size();
    if (!fits(kept)) {
        std::size_t lo = 0, hi = team.size() - 1;   // prefix of lo entries compiles; of hi+1 does not
        while (lo < hi) {
            const std::size_t mid = lo + (hi - lo + 1) / 2;
            if (fits(mid)) lo = mid;
            else hi = mid - 1;
        }
        kept = lo;
    }
    const auto sigs = team_signatures(kept);
    const std::size_t first = signatures_.size();
    signatures_.insert(signatures_.end(), sigs.begin(), sigs.end());
    if (!add_parts(sigs, first, team_max_mem)) {
        signatures_.resize(first);
        kept = 0;
    }
    return kept;
}

Matcher::Matcher(const KnowledgeBase& kb, std::int64_t team_max_mem, bool literal_prefilter)
    : impl_(std::make_unique<Impl>()), prefilter_(literal_prefilter) {
    std::vector<const Signature*> builtin;
    std::vector<const Entry*> team;
    for (const auto& e : kb.entries()) {
        if (!e->builtin) {
            team.push_back(e.get());
            continue;
        }
        for (const auto& s : e->signatures)
            if (s.regex) builtin.push_back(&s);
    }
    if (!builtin.empty()) {
        signatures_ = builtin;
        if (!add_parts(builtin, 0, kBuiltinSetMaxMem)) {
            signatures_.clear();
            warnings_.push_back("the built-in patterns do not compile into one matcher: nothing is matched by them");
        }
    }
    if (team.empty()) return;
    const std::size_t kept = add_team(team, team_max_mem);
    if (kept == team.size()) return;
    std::string names;
    constexpr std::size_t kListed = 5;
    for (std::size_t i = kept; i < team.size() && i < kept + kListed; ++i)
        names += (names.empty() ? "" : ", ") + team[i]->id;
    if (team.size() - kept > kListed) names += ", ...";
    warnings_.push_back(std::to_string(team.size() - kept) + " of " + std::to_string(team.size()) +
                        " team entr" + (team.size() - kept == 1 ? "y is" : "ies are") + " not matched (" + names +
                        "): together their patterns need more than " + std::to_string(team_max_mem >> 20) +
                        " MiB; the built-in knowledge and the first " + std::to_string(kept) + " team entr" +
                        (kept == 1 ? "y" : "ies") + " still are");
}

Matcher::~Matcher() = default;

// Indices (into signatures_) of every signature whose pattern occurs in the line, ascending.
std::vector<int> Matcher::matching_ids(std::string_view text) const {
    std::vector<int> ids;
    thread_local std::vector<std::uint32_t> candidates;
    thread_local std::vector<std::size_t> direct;
    for (const Part& part : impl_->parts) {
        const bool narrowed = part.gate && part.gate->candidates(text, candidates);
        if (narrowed && candidates.empty()) continue;
        if (!narrowed || candidates.size() > kDirectCandidates) {
            match_part(part, signatures_, text, nullptr, ids);
            continue;
        }
        direct.clear();
        for (std::uint32_t c : candidates) direct.push_back(part.gate_first + c);
        match_part(part, signatures_, text, &direct, ids);
    }
    std::sort(ids.begin(), ids.end());
    return ids;
}

std::vector<Hit> Matcher::match(std::string_view text) const {
    std::vector<Hit> hits;
    const std::vector<int> ids = matching_ids(text);
    if (ids.empty()) return hits;
    bool any_specific = std::any_of(ids.begin(), ids.end(), [&](int i) { return !signatures_[i]->fallback; });
    // A warning line quoting an error's words ("UserWarning: Plan failed with a cudnnException") is no failure.
    bool benign = std::any_of(ids.begin(), ids.end(), [&](int i) { return signatures_[i]->mark == Mark::benign_line; });
    // An entry that refines another (fragmentation OOM refines OOM) takes the line from it.
    auto refined = [&](const Entry* e) {
        return std::any_of(ids.begin(), ids.end(), [&](int j) {
            const auto& r = signatures_[static_cast<std::size_t>(j)]->entry->refines;
            return std::find(r.begin(), r.end(), e->id) != r.end();
        });
    };
    for (int i : ids) {
        const Signature* s = signatures_[static_cast<std::size_t>(i)];
        if (s->fallback && any_specific) continue;
        if (benign && s->role != Role::context && !s->on_warning_lines) continue;
        if (refined(s->entry)) continue;
        Hit h;
        h.signature = s;
        const RE2& re = *s->regex;
        int n = re.NumberOfCapturingGroups();
        if (n > 0) {
            std::vector<re2::StringPiece> groups(static_cast<std::size_t>(n) + 1);
            if (re.Match(re2::StringPiece(text.data(), text.size()), 0, text.size(), RE2::UNANCHORED, groups.data(),
                         n + 1)) {
                for (const auto& [name, index] : re.NamedCapturingGroups()) {
                    const auto& g = groups[static_cast<std::size_t>(index)];
                    if (g.data() != nullptr) h.captures[name] = std::string(g.data(), g.size());
                }
            }
        }
        hits.push_back(std::move(h));
    }
    return hits;
}

}  // namespace denpex
