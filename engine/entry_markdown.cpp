#include "engine/entry_markdown.hpp"

namespace denpex {

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

}  // namespace denpex
