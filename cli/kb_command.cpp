#include "cli/kb_command.hpp"

#include <nlohmann/json.hpp>

namespace denpex::cli {

std::string entry_markdown(const Entry& e) {
    std::string s = "# " + e.title + "\n\n`" + e.id + "` · " + e.category + " · " + e.severity + "\n\n";
    s += "## What it is\n\n" + e.what + "\n\n## Why it happens\n\n" + e.mechanism + "\n\n";
    if (!e.confirm.empty()) {
        s += "## How to confirm\n\n";
        for (const auto& c : e.confirm) s += "- [ ] " + c + "\n";
        s += "\n";
    }
    if (!e.fix.empty()) {
        s += "## Fix\n\n";
        for (const auto& f : e.fix) {
            s += "- " + f.text;
            if (f.has_condition) {
                std::string cond;
                if (f.when.torch) cond += "PyTorch " + f.when.torch->str();
                if (f.when.launcher) cond += (cond.empty() ? "" : ", ") + std::string("launcher ") + *f.when.launcher;
                s += " *(when " + cond + ")*";
            }
            if (!f.why.empty()) s += " — " + f.why;
            s += "\n";
        }
        s += "\n";
    }
    if (!e.verify.empty()) s += "## Verify\n\n```sh\n" + e.verify + "\n```\n\n";
    if (!e.prevention.empty()) {
        s += "## Prevention\n\n";
        for (const auto& p : e.prevention) s += "- " + p + "\n";
        s += "\n";
    }
    if (!e.signatures.empty()) {
        s += "## Signatures\n\n";
        for (const auto& sig : e.signatures) {
            s += "- **" + std::string(to_string(sig.role)) + "** `" + sig.id + "` — " + sig.source + "\n";
            if (!sig.examples.empty()) s += "  `" + sig.examples.front() + "`\n";
        }
        s += "\n";
    }
    if (!e.related.empty()) {
        s += "## Related\n\n";
        for (const auto& r : e.related) s += "- `" + r + "`\n";
        s += "\n";
    }
    if (!e.sources.empty()) {
        s += "## Sources\n\n";
        for (const auto& src : e.sources) s += "- " + src + "\n";
    }
    return s;
}

int kb_command(const KnowledgeBase& kb, const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    if (args.empty()) {
        err << "denpex: kb needs a subcommand: list, show ID, patterns (see denpex --help)\n";
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
        for (const auto& e : kb.entries())
            for (const auto& s : e->signatures) out << s.pattern << "\n";
        return 0;
    }
    err << "denpex: unknown kb subcommand '" << sub << "' (see denpex --help)\n";
    return 2;
}

}  // namespace denpex::cli
