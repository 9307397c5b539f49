#include "server/handlers/hover.hpp"

#include <set>

#include "engine/entry_markdown.hpp"
#include "engine/matcher.hpp"
#include "engine/normalize.hpp"

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

}  // namespace

std::optional<std::string> hover_text(const Matcher& matcher, std::string_view raw_line, const std::string* note) {
    std::string text;
    normalize(raw_line, text);
    if (text.empty()) return std::nullopt;
    const std::vector<Hit> hits = matcher.match(text);
    std::string out;
    std::set<const Entry*> shown;
    for (const Hit& h : hits) {
        if (!h.signature || !h.signature->entry || !shown.insert(h.signature->entry).second) continue;
        const Entry& e = *h.signature->entry;
        if (!out.empty()) out += "\n---\n\n";
        out += "**denpex: " + e.title + "** (`" + e.id + "`, signature `" + h.signature->id + "`) — " +
               role_sentence(h.signature->role) + "\n\n";
        if (note && !note->empty()) out += *note + "\n\n";
        out += entry_markdown(e);
    }
    if (out.empty()) return std::nullopt;
    return out;
}

}  // namespace denpex::server
