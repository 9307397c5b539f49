#include "server/launch_scripts/document_kind.hpp"

#include <string>

#include "server/protocol/uri.hpp"

namespace denpex::server {
namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

DocumentKind from_language(std::string_view id) {
    if (id == "log") return DocumentKind::log;
    if (id == "shellscript" || id == "sh" || id == "bash" || id == "zsh") return DocumentKind::shell;
    if (id == "python") return DocumentKind::python;
    if (id == "yaml") return DocumentKind::yaml;
    if (id == "dockerfile") return DocumentKind::dockerfile;
    return DocumentKind::other;
}

DocumentKind from_name(std::string_view uri) {
    const std::string name = lower(uri_basename(uri));
    if (name.empty()) return DocumentKind::other;
    if (name == "dockerfile" || name.rfind("dockerfile.", 0) == 0 || ends_with(name, ".dockerfile") ||
        name == "containerfile")
        return DocumentKind::dockerfile;
    for (std::string_view ext : {".sh", ".bash", ".zsh", ".sbatch", ".slurm"})
        if (ends_with(name, ext)) return DocumentKind::shell;
    if (ends_with(name, ".py")) return DocumentKind::python;
    if (ends_with(name, ".yaml") || ends_with(name, ".yml")) return DocumentKind::yaml;
    for (std::string_view ext : {".log", ".out", ".err"})
        if (ends_with(name, ext)) return DocumentKind::log;
    // Rotated logs: train.log.1, train.log.2 ...
    if (const std::size_t at = name.rfind(".log."); at != std::string::npos) {
        std::string_view rest = std::string_view(name).substr(at + 5);
        if (!rest.empty() && rest.find_first_not_of("0123456789") == std::string_view::npos) return DocumentKind::log;
    }
    return DocumentKind::other;
}

DocumentKind from_shebang(std::string_view text) {
    if (text.rfind("#!", 0) != 0) return DocumentKind::other;
    std::string_view first = text.substr(0, text.find('\n'));
    if (first.find("python") != std::string_view::npos) return DocumentKind::python;
    for (std::string_view sh : {"/sh", "bash", "zsh", "/ksh", " sh"})
        if (first.find(sh) != std::string_view::npos) return DocumentKind::shell;
    return DocumentKind::other;
}

}  // namespace

std::string_view to_string(DocumentKind kind) {
    switch (kind) {
        case DocumentKind::other: return "other";
        case DocumentKind::log: return "log";
        case DocumentKind::shell: return "shell";
        case DocumentKind::python: return "python";
        case DocumentKind::yaml: return "yaml";
        case DocumentKind::dockerfile: return "dockerfile";
    }
    return "other";
}

DocumentKind classify_document(std::string_view uri, std::string_view language_id, std::string_view text) {
    if (DocumentKind k = from_language(language_id); k != DocumentKind::other) return k;
    if (DocumentKind k = from_name(uri); k != DocumentKind::other) return k;
    return from_shebang(text);
}

}  // namespace denpex::server
