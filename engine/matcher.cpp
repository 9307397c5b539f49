#include "engine/matcher.hpp"

#include <algorithm>

#include <re2/re2.h>
#include <re2/set.h>

namespace denpex {

namespace {

// One compiled RE2::Set and the signatures behind its indices.
struct Part {
    std::unique_ptr<RE2::Set> set;
    std::size_t offset = 0;   // index of its first signature in Matcher::signatures_
    std::size_t count = 0;
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

}  // namespace

struct Matcher::Impl {
    std::vector<Part> parts;
};

Matcher::Matcher(const KnowledgeBase& kb, std::int64_t team_max_mem) : impl_(std::make_unique<Impl>()) {
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
    auto team_signatures = [&](std::size_t entries) {
        std::vector<const Signature*> out;
        for (std::size_t i = 0; i < entries; ++i)
            for (const auto& s : team[i]->signatures)
                if (s.regex) out.push_back(&s);
        return out;
    };
    auto add_part = [&](std::unique_ptr<RE2::Set> set, const std::vector<const Signature*>& sigs) {
        if (!set || sigs.empty()) return;
        Part p;
        p.set = std::move(set);
        p.offset = signatures_.size();
        p.count = sigs.size();
        signatures_.insert(signatures_.end(), sigs.begin(), sigs.end());
        impl_->parts.push_back(std::move(p));
    };
    if (!builtin.empty()) {
        auto set = compile_set(builtin, kBuiltinSetMaxMem);
        if (!set) warnings_.push_back("the built-in patterns do not compile into one matcher: nothing is matched by them");
        add_part(std::move(set), builtin);
    }
    if (team.empty()) return;
    // The team's set: all of it when it compiles, else the longest prefix that does (binary search: a handful of
    // compilations, not one per entry).
    std::size_t kept = team.size();
    auto set = compile_set(team_signatures(kept), team_max_mem);
    if (!set) {
        std::size_t lo = 0, hi = team.size() - 1;   // prefix of lo entries compiles; of hi+1 does not
        std::unique_ptr<RE2::Set> best;
        while (lo < hi) {
            const std::size_t mid = lo + (hi - lo + 1) / 2;
            if (auto s = compile_set(team_signatures(mid), team_max_mem)) {
                lo = mid;
                best = std::move(s);
            } else {
                hi = mid - 1;
            }
        }
        kept = lo;
        set = std::move(best);
        if (kept > 0 && !set) set = compile_set(team_signatures(kept), team_max_mem);
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
    add_part(std::move(set), team_signatures(kept));
}

Matcher::~Matcher() = default;

std::vector<Hit> Matcher::match(std::string_view text) const {
    std::vector<Hit> hits;
    std::vector<int> ids;
    const re2::StringPiece piece(text.data(), text.size());
    for (const Part& part : impl_->parts) {
        std::vector<int> local;
        RE2::Set::ErrorInfo info{};
        if (part.set->Match(piece, &local, &info)) {
            for (int i : local) ids.push_back(static_cast<int>(part.offset) + i);
        } else if (info.kind != RE2::Set::kNoError) {
            // The set's DFA gave up (out of memory): this line is matched pattern by pattern instead.
            for (std::size_t i = 0; i < part.count; ++i)
                if (RE2::PartialMatch(piece, *signatures_[part.offset + i]->regex))
                    ids.push_back(static_cast<int>(part.offset + i));
        }
    }
    if (ids.empty()) return hits;
    std::sort(ids.begin(), ids.end());
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
