#include "engine/entry_markdown.hpp"

namespace denpex {
namespace {

// "Hardware", "Software" ...: the discriminator's kind as a heading word.
std::string capitalized(std::string_view word) {
    std::string s(word);
    if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
    return s;
}

// The on-call answers right under the title: which kind of cause, and the one fastest check.
void oncall_lead(std::string& s, const Entry& e) {
    if (e.depth.discriminator)
        s += "**" + capitalized(to_string(e.depth.discriminator->kind)) + ".** " + e.depth.discriminator->tells_apart +
             "\n\n";
    if (e.depth.cheapest_confirmation) {
        s += "## Cheapest confirmation\n\n" + e.depth.cheapest_confirmation->text + "\n\n";
        if (!e.depth.cheapest_confirmation->command.empty())
            s += "```sh\n" + e.depth.cheapest_confirmation->command + "\n```\n\n";
    }
}

// One subsection per stack, in schema order, each fix's snippet as a code block with its versions and source.
void stack_fixes(std::string& s, const Entry& e) {
    if (!e.depth.stack_fixes || e.depth.stack_fixes->empty()) return;
    s += "## Fix in your stack\n\n";
    for (Stack stack : all_stacks()) {
        const auto fixes = e.depth.fixes_for(stack);
        if (fixes.empty()) continue;
        s += "### " + std::string(display_name(stack)) + "\n\n";
        for (const StackFix* f : fixes) {
            s += "`" + f->names + "`";
            if (!f->versions.empty()) s += " (" + f->versions + ")";
            s += " — " + f->source + "\n\n```\n" + f->snippet + "\n```\n\n";
        }
    }
}

void fingerprint(std::string& s, const Entry& e) {
    if (!e.depth.fingerprint) return;
    s += "## Fingerprint (alert on it in a running job)\n\n";
    s += "RE2:\n\n```\n" + e.depth.fingerprint->re2 + "\n```\n\n";
    s += "grep -E:\n\n```sh\ngrep -E '" + e.depth.fingerprint->grep + "'\n```\n\n";
}

}  // namespace

std::string entry_markdown(const Entry& e) {
    std::string s = "# " + e.title + "\n\n`" + e.id + "` · " + e.category + " · " + e.severity;
    if (e.depth.discriminator) s += " · " + std::string(to_string(e.depth.discriminator->kind));
    s += "\n\n";
    oncall_lead(s, e);
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
    stack_fixes(s, e);
    if (!e.verify.empty()) s += "## Verify\n\n```sh\n" + e.verify + "\n```\n\n";
    fingerprint(s, e);
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
