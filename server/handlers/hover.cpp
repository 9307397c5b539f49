#include "server/handlers/hover.hpp"

#include <set>

#include "engine/knowledge.hpp"
#include "engine/matcher.hpp"
#include "engine/normalize.hpp"
#include "server/handlers/knowledge_links.hpp"

namespace denpex::server {

namespace {

std::string role_sentence(Role role) {
    switch (role) {
        case Role::initiating:
            return "a line of this kind is **initiating**: a failure a rank has on its own, which then makes the "
                   "other ranks fail.";
        case Role::collateral:
            return "a line of this kind is **collateral**: what a rank shows because another rank failed first — "
                   "look for the initiating failure on another rank.";
        case Role::context: return "a line of this kind is **context**: it helps attribution, it is not a failure.";
    }
    return "";
}

// The first sentence of a paragraph, for a card: up to the first ". " past a short lead, cut at a word near
// kMaxSentence bytes when the sentence runs on.
std::string first_sentence(std::string_view text) {
    constexpr std::size_t kMinLead = 20, kMaxSentence = 240;
    std::size_t end = text.find(". ", kMinLead);
    end = end == std::string_view::npos ? text.size() : end + 1;
    if (end <= kMaxSentence) return std::string(text.substr(0, end));
    std::size_t cut = text.rfind(' ', kMaxSentence);
    if (cut == std::string_view::npos) cut = kMaxSentence;
    return std::string(text.substr(0, cut)) + "…";
}

std::string card(const Entry& e, const Signature& s, const std::string* note) {
    std::string out = "**denpex: " + e.title + "** (`" + e.id + "`, signature `" + s.id + "`) — " +
                      role_sentence(s.role) + "\n\n";
    if (note && !note->empty()) out += *note + "\n\n";
    if (!e.what.empty()) out += "**What it is.** " + first_sentence(e.what) + "\n\n";
    // The on-call answer in one line: which kind of cause, and the fastest check (the full entry has the rest).
    if (e.depth.cheapest_confirmation) {
        out += "**Check first";
        if (e.depth.discriminator) out += " (" + std::string(to_string(e.depth.discriminator->kind)) + ")";
        out += ".** " + first_sentence(e.depth.cheapest_confirmation->text) + "\n\n";
    }
    if (!e.fix.empty()) out += "**Fix.** " + first_sentence(e.fix.front().text) + "\n\n";
    out += "Full entry: `denpex kb show " + e.id + "`";
    if (auto ref = entry_reference(e)) out += " · [reference](" + *ref + ")";
    return out + "\n";
}

}  // namespace

std::optional<std::string> hover_text(const Matcher& matcher, std::string_view raw_line, const std::string* note) {
    std::string text;
    normalize(raw_line, text);
    if (text.empty()) return std::nullopt;
    const std::vector<Hit> hits = matcher.match(text);
    std::string out;
    std::set<const Entry*> shown;
    for (const Hit& h : hits) {
        if (!h.signature || !h.signature->entry || shown.size() >= kMaxHoverEntries ||
            !shown.insert(h.signature->entry).second)
            continue;
        if (!out.empty()) out += "\n---\n\n";
        out += card(*h.signature->entry, *h.signature, note);
    }
    if (out.empty()) return std::nullopt;
    return out;
}

}  // namespace denpex::server
