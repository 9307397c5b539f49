#include "server/handlers/knowledge_links.hpp"

#include <algorithm>

#include "engine/knowledge.hpp"

namespace denpex::server {
namespace {

bool url_char(char c) {
    return static_cast<unsigned char>(c) > 0x20 && c != '"' && c != '<' && c != '>' && c != '`' && c != ')' &&
           c != '\'';
}

bool repo_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.';
}

}  // namespace

std::optional<std::string> source_url(std::string_view s) {
    for (std::string_view scheme : {"https://", "http://"}) {
        const std::size_t at = s.find(scheme);
        if (at == std::string_view::npos) continue;
        std::size_t e = at;
        while (e < s.size() && url_char(s[e])) ++e;
        std::string url(s.substr(at, e - at));
        while (!url.empty() && (url.back() == '.' || url.back() == ',' || url.back() == ';')) url.pop_back();
        return url;
    }
    // "owner/repo path/file ..." : two leading words, the first exactly one slash.
    const std::size_t sp = s.find(' ');
    if (sp == std::string_view::npos) return std::nullopt;
    const std::string_view repo = s.substr(0, sp);
    const std::size_t slash = repo.find('/');
    if (slash == std::string_view::npos || slash == 0 || slash + 1 == repo.size() ||
        repo.find('/', slash + 1) != std::string_view::npos || !std::all_of(repo.begin(), repo.end(), [](char c) {
            return repo_char(c) || c == '/';
        }))
        return std::nullopt;
    std::string_view rest = s.substr(sp + 1);
    std::size_t e = 0;
    while (e < rest.size() && rest[e] != ' ' && url_char(rest[e])) ++e;
    const std::string_view path = rest.substr(0, e);
    if (path.empty() || path.find('.') == std::string_view::npos) return std::nullopt;   // a file, not a word
    return "https://github.com/" + std::string(repo) + "/blob/HEAD/" + std::string(path);
}

std::optional<std::string> entry_reference(const Entry& entry) {
    for (const auto& s : entry.sources)
        if (s.find("://") != std::string::npos)
            if (auto u = source_url(s)) return u;
    for (const auto& s : entry.sources)
        if (auto u = source_url(s)) return u;
    for (const auto& sig : entry.signatures)
        if (auto u = source_url(sig.source)) return u;
    return std::nullopt;
}

}  // namespace denpex::server
