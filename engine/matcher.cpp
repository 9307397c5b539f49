#include "engine/matcher.hpp"

#include <algorithm>

#include <re2/re2.h>
#include <re2/set.h>

namespace denpex {

struct Matcher::Impl {
    Impl() : set(make_options(), RE2::UNANCHORED) {}
    static RE2::Options make_options() {
        RE2::Options o;
        o.set_log_errors(false);
        // The combined DFA of ~hundreds of patterns needs room; past this RE2 reports an error instead of
        // silently going slow.
        o.set_max_mem(256 << 20);
        return o;
    }
    RE2::Set set;
    bool ok = false;
};

Matcher::Matcher(const KnowledgeBase& kb) : impl_(std::make_unique<Impl>()) {
    for (const auto& e : kb.entries())
        for (const auto& s : e->signatures) {
            if (!s.regex) continue;
            std::string err;
            if (impl_->set.Add(s.pattern, &err) >= 0) signatures_.push_back(&s);
        }
    impl_->ok = impl_->set.Compile();
}

Matcher::~Matcher() = default;

std::vector<Hit> Matcher::match(std::string_view text) const {
    std::vector<Hit> hits;
    if (!impl_->ok || signatures_.empty()) return hits;
    std::vector<int> ids;
    if (!impl_->set.Match(text, &ids)) return hits;
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
