#include "cli/kb_fingerprints.hpp"

#include <optional>

#include <nlohmann/json.hpp>

namespace denpex::cli {
namespace {

enum class Format { grep, re2, json };

std::optional<Format> parse_format(const std::string& v) {
    if (v == "grep") return Format::grep;
    if (v == "re2") return Format::re2;
    if (v == "json") return Format::json;
    return std::nullopt;
}

}  // namespace

int kb_fingerprints(const KnowledgeBase& kb, const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    Format format = Format::grep;
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string value;
        if (args[i] == "--format") {
            if (i + 1 >= args.size()) {
                err << "denpex: kb fingerprints: --format needs grep, re2 or json\n";
                return 2;
            }
            value = args[++i];
        } else if (args[i].rfind("--format=", 0) == 0) {
            value = args[i].substr(9);
        } else {
            err << "denpex: unexpected argument '" << args[i] << "' for kb fingerprints (see denpex kb --help)\n";
            return 2;
        }
        const auto f = parse_format(value);
        if (!f) {
            err << "denpex: kb fingerprints: unknown --format '" << value << "' (grep, re2 or json)\n";
            return 2;
        }
        format = *f;
    }
    if (format == Format::json) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& e : kb.entries()) {
            if (!e->depth.fingerprint) continue;
            const auto& fp = *e->depth.fingerprint;
            list.push_back({{"id", e->id}, {"title", e->title},
                            {"kind", e->depth.discriminator ? nlohmann::json(std::string(to_string(e->depth.discriminator->kind)))
                                                            : nlohmann::json(nullptr)},
                            {"re2", fp.re2}, {"grep", fp.grep}});
        }
        out << list.dump(2) << "\n";
        return 0;
    }
    for (const auto& e : kb.entries())
        if (e->depth.fingerprint)
            out << e->id << "\t" << (format == Format::grep ? e->depth.fingerprint->grep : e->depth.fingerprint->re2) << "\n";
    return 0;
}

}  // namespace denpex::cli
