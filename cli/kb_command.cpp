#include "cli/kb_command.hpp"

#include "cli/kb_export.hpp"
#include "cli/kb_fingerprints.hpp"

#include "engine/entry_markdown.hpp"

#include <nlohmann/json.hpp>
#include <re2/re2.h>

namespace denpex::cli {
using denpex::entry_markdown;

int kb_command(const KnowledgeBase& kb, const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    if (args.empty()) {
        err << "denpex: kb needs a subcommand: list, show ID, export DIR, patterns, fingerprints (see denpex --help)\n";
        return 2;
    }
    const std::string& sub = args.front();
    if (sub == "list") {
        bool json = args.size() > 1 && args[1] == "--json";
        if (args.size() > (json ? 2u : 1u)) {
            err << "denpex: unexpected argument '" << args.back() << "' for kb list (see denpex --help)\n";
            return 2;
        }
        if (json) {
            nlohmann::json list = nlohmann::json::array();
            for (const auto& e : kb.entries())
                list.push_back({{"id", e->id}, {"title", e->title}, {"category", e->category},
                                {"severity", e->severity}, {"tags", e->tags}, {"signatures", e->signatures.size()}});
            out << list.dump(2) << "\n";
        } else {
            for (const auto& e : kb.entries()) out << e->id << "\t" << e->category << "\t" << e->title << "\n";
        }
        return 0;
    }
    if (sub == "show") {
        if (args.size() != 2) {
            err << "denpex: kb show needs exactly one entry id (see denpex kb list)\n";
            return 2;
        }
        const Entry* e = kb.find(args[1]);
        if (!e) {
            err << "denpex: no knowledge entry '" << args[1] << "' (see denpex kb list)\n";
            return 1;
        }
        out << entry_markdown(*e);
        return 0;
    }
    if (sub == "patterns") {
        // --no-captures: named groups become plain groups, so tools that join the patterns into one
        // alternation (ripgrep -f) do not reject repeated group names; and `\"` (a quote RE2 lets one escape,
        // Rust's regex does not) becomes a plain quote. Matching is unchanged.
        bool plain = args.size() > 1 && args[1] == "--no-captures";
        static const RE2 named(R"(\(\?P<[A-Za-z_][A-Za-z0-9_]*>)");
        static const RE2 escaped_quote(R"(\\(["']))");
        for (const auto& e : kb.entries())
            for (const auto& s : e->signatures) {
                std::string p = s.pattern;
                if (plain) {
                    RE2::GlobalReplace(&p, named, "(?:");
                    RE2::GlobalReplace(&p, escaped_quote, "\\1");
                }
                out << p << "\n";
            }
        return 0;
    }
    if (sub == "fingerprints") return kb_fingerprints(kb, {args.begin() + 1, args.end()}, out, err);
    if (sub == "export") {
        if (args.size() != 2) {
            err << "denpex: kb export needs exactly one output directory (see denpex --help)\n";
            return 2;
        }
        return kb_export(kb, args[1], err);
    }
    err << "denpex: unknown kb subcommand '" << sub << "' (see denpex --help)\n";
    return 2;
}

}  // namespace denpex::cli
