#include "cli/kb_export.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string_view>
#include <system_error>
#include <vector>

namespace denpex::cli {
namespace {

namespace fs = std::filesystem;

// ---- text helpers ----------------------------------------------------------------------------------------

const char* const kCategoryOrder[] = {"Memory", "Hardware", "Network", "Collective",
                                      "Launcher", "Data", "Numerics", "Software"};

int severity_rank(const std::string& s) {
    if (s == "critical") return 0;
    if (s == "error") return 1;
    if (s == "warning") return 2;
    if (s == "info") return 3;
    return 4;
}

// The file name of an entry's page. Built-in ids are lowercase with dashes; a team's id may hold anything, so
// every other byte becomes '_' (and a clash with another entry gets a numeric suffix, see PageNames).
std::string safe_name(const std::string& id) {
    std::string out;
    for (unsigned char c : id) out += (std::isalnum(c) || c == '-' || c == '_' || c == '.') ? static_cast<char>(c) : '_';
    if (out.empty() || out.front() == '.') out.insert(out.begin(), '_');
    return out;
}

class PageNames {
public:
    explicit PageNames(const KnowledgeBase& kb) {
        std::set<std::string> used;
        for (const auto& e : kb.entries()) {
            std::string base = safe_name(e->id), name = base;
            for (int i = 2; used.count(name); ++i) name = base + "-" + std::to_string(i);
            used.insert(name);
            names_[e->id] = name + ".html";
        }
    }
    // Path of the entry page relative to the export root; empty for an id that is not in the knowledge base.
    std::string path(const std::string& id) const {
        auto it = names_.find(id);
        return it == names_.end() ? std::string() : "entries/" + it->second;
    }

private:
    std::map<std::string, std::string> names_;
};

// The first sentence of a paragraph (up to ". " before a capital, or the whole text), for one-line summaries.
std::string first_sentence(const std::string& text, std::size_t max_len = 240) {
    for (std::size_t i = 0; i + 2 < text.size(); ++i) {
        if (text[i] == '.' && text[i + 1] == ' ' && std::isupper(static_cast<unsigned char>(text[i + 2]))) {
            // "e.g. Foo" / "i.e. Foo" are not sentence ends.
            if (i >= 3 && (text.compare(i - 3, 3, "e.g") == 0 || text.compare(i - 3, 3, "i.e") == 0)) continue;
            return text.substr(0, i + 1);
        }
    }
    if (text.size() <= max_len) return text;
    std::size_t cut = text.rfind(' ', max_len);
    return text.substr(0, cut == std::string::npos ? max_len : cut) + " …";
}

// Environment variables an entry's prose names (NCCL_*, TORCH_NCCL_*, TORCH_DISTRIBUTED_DEBUG, CUDA_LAUNCH_BLOCKING...).
void collect_env_names(const std::string& text, std::set<std::string>& out) {
    static const std::vector<std::string_view> prefixes = {"TORCH_NCCL_", "NCCL_", "TORCH_DISTRIBUTED_DEBUG",
                                                           "CUDA_LAUNCH_BLOCKING", "TORCH_SHOW_CPP_STACKTRACES",
                                                           "PYTORCH_CUDA_ALLOC_CONF"};
    auto is_word = [](char c) { return std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_'; };
    for (std::size_t i = 0; i < text.size();) {
        if (!is_word(text[i]) || (i > 0 && is_word(text[i - 1]))) { ++i; continue; }
        std::size_t j = i;
        while (j < text.size() && is_word(text[j])) ++j;
        std::string_view w(text.data() + i, j - i);
        for (auto p : prefixes)
            if (w.size() >= p.size() && w.substr(0, p.size()) == p && w.back() != '_') { out.insert(std::string(w)); break; }
        i = j;
    }
}

std::set<std::string> env_names_of(const Entry& e) {
    std::set<std::string> out;
    collect_env_names(e.what, out);
    collect_env_names(e.mechanism, out);
    collect_env_names(e.verify, out);
    for (const auto& c : e.confirm) collect_env_names(c, out);
    for (const auto& p : e.prevention) collect_env_names(p, out);
    for (const auto& f : e.fix) {
        collect_env_names(f.text, out);
        collect_env_names(f.why, out);
        for (const auto& [k, v] : f.env) collect_env_names(k, out);
    }
    return out;
}

std::string role_summary(const Entry& e) {
    std::set<std::string> roles;
    for (const auto& s : e.signatures) roles.insert(std::string(to_string(s.role)));
    if (e.signatures.empty()) {
        if (!e.verdicts.empty()) return "verdict";
        if (e.scenario) return "scenario";
        return "reference";
    }
    bool init = roles.count("initiating"), coll = roles.count("collateral");
    if (init && coll) return "initiating + collateral";
    if (init) return "initiating";
    if (coll) return "collateral";
    return "context";
}

std::string condition_text(const FixItem& f) {
    std::string cond;
    if (f.when.torch) cond += "PyTorch " + f.when.torch->str();
    if (f.when.launcher) {
        const std::string& l = *f.when.launcher;
        cond += (cond.empty() ? "" : ", ") + (l.rfind('!', 0) == 0 ? "not launched by " + l.substr(1) : "launched by " + l);
    }
    return cond;
}

// ---- HTML building --------------------------------------------------------------------------------------

class Html {
public:
    Html& raw(std::string_view s) { out_.append(s); return *this; }
    Html& text(std::string_view s) { out_ += html_escape(s); return *this; }
    const std::string& str() const { return out_; }

private:
    std::string out_;
};

const char* const kCss = R"CSS(
:root { --fg:#1d232b; --muted:#5b6573; --line:#d9dee5; --bg:#ffffff; --panel:#f5f7fa; --link:#0b57b8;
        --crit:#b3261e; --err:#c2590a; --warn:#8a6d00; --info:#2f6f8f; --init:#7a1f9c; --coll:#2e6b3f; --ctx:#5b6573; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       color: var(--fg); background: var(--bg); }
header.top { background: #14213d; color: #fff; padding: 18px 32px; }
header.top a { color: #cfe0ff; }
header.top h1 { margin: 0 0 4px; font-size: 24px; }
header.top p { margin: 0; color: #c8d2e0; }
nav.crumbs { font-size: 14px; margin-top: 6px; }
main { max-width: 1180px; margin: 0 auto; padding: 20px 32px 48px; }
h2 { font-size: 19px; margin: 28px 0 10px; padding-bottom: 4px; border-bottom: 2px solid var(--line); }
h3 { font-size: 16px; margin: 18px 0 6px; }
a { color: var(--link); text-decoration: none; }
a:hover { text-decoration: underline; }
table { width: 100%; border-collapse: collapse; margin: 8px 0 16px; font-size: 14px; }
th, td { border: 1px solid var(--line); padding: 6px 8px; vertical-align: top; text-align: left; }
th { background: var(--panel); font-weight: 600; }
tr:nth-child(even) td { background: #fbfcfd; }
table.cmp { table-layout: fixed; }
table.cmp td code { overflow-wrap: anywhere; word-break: break-word; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 13px; }
code { background: var(--panel); border: 1px solid var(--line); border-radius: 4px; padding: 0 4px; word-break: break-word; }
pre { background: #0f1720; color: #e6edf3; padding: 10px 12px; border-radius: 6px; white-space: pre-wrap; word-break: break-all; margin: 6px 0; }
.badge { display: inline-block; border-radius: 10px; padding: 0 8px; font-size: 12px; font-weight: 600; color: #fff; white-space: nowrap; }
.sev-critical { background: var(--crit); } .sev-error { background: var(--err); } .sev-warning { background: var(--warn); }
.sev-info { background: var(--info); } .sev-other { background: var(--muted); }
.role-initiating { background: var(--init); } .role-collateral { background: var(--coll); } .role-context { background: var(--ctx); }
.role-mixed { background: #6a4c93; } .role-other { background: var(--muted); }
.scope-job { background: #37474f; }
.kind-hardware { background: #8d2a2a; } .kind-software { background: #3d5a99; } .kind-configuration { background: #7a5c00; }
.kind-environment { background: #2f6f6f; }
.discriminator { background: var(--panel); border-left: 4px solid var(--line); padding: 6px 10px; }
.stackfix { margin: 6px 0 10px; }
.cond { display: inline-block; border: 1px solid #b7c3d3; background: #eef3f9; border-radius: 4px; padding: 0 6px; font-size: 12px; margin-left: 4px; }
.meta { color: var(--muted); font-size: 14px; }
.summary { display: flex; flex-wrap: wrap; gap: 10px; margin: 12px 0 4px; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 8px 14px; min-width: 120px; }
.card b { display: block; font-size: 22px; }
ul.check { list-style: none; padding-left: 4px; } ul.check li::before { content: "\2610\00a0\00a0"; color: var(--muted); }
ol.fix li { margin-bottom: 8px; }
.why { color: var(--muted); display: block; font-size: 14px; }
.sig { border: 1px solid var(--line); border-radius: 8px; padding: 8px 12px; margin: 10px 0; background: #fcfdfe; }
.sig .head { margin-bottom: 4px; }
.toc a { margin-right: 12px; }
.yes { text-align: center; color: var(--coll); font-weight: 700; }
footer { color: var(--muted); font-size: 13px; border-top: 1px solid var(--line); margin-top: 32px; padding-top: 10px; }
)CSS";

void page_start(Html& h, const std::string& title, const std::string& root, const std::string& subtitle) {
    h.raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>")
        .text(title)
        .raw(" · denpex knowledge base</title>\n<style>")
        .raw(kCss)
        .raw("</style>\n</head>\n<body>\n<header class=\"top\"><h1>")
        .text(title)
        .raw("</h1><p>")
        .text(subtitle)
        .raw("</p><nav class=\"crumbs\"><a href=\"")
        .text(root)
        .raw("index.html\">All failures</a> · <a href=\"")
        .text(root)
        .raw("nccl-errors.html\">NCCL errors compared</a></nav></header>\n<main>\n");
}

void page_end(Html& h) {
    h.raw("<footer>Generated by <code>denpex kb export</code> from the knowledge base compiled into denpex (and any "
          "<code>--knowledge</code> directories). Static page: no scripts, no external resources.</footer>\n"
          "</main>\n</body>\n</html>\n");
}

void severity_badge(Html& h, const std::string& sev) {
    std::string cls = severity_rank(sev) < 4 ? "sev-" + sev : "sev-other";
    h.raw("<span class=\"badge ").raw(cls).raw("\">").text(sev).raw("</span>");
}

void role_badge(Html& h, const std::string& role) {
    std::string cls = role == "initiating" ? "role-initiating"
                      : role == "collateral" ? "role-collateral"
                      : role == "context" ? "role-context"
                      : role.find('+') != std::string::npos ? "role-mixed" : "role-other";
    h.raw("<span class=\"badge ").raw(cls).raw("\">").text(role).raw("</span>");
}

void entry_link(Html& h, const PageNames& names, const std::string& id, const std::string& root,
                const std::string& label) {
    std::string p = names.path(id);
    if (p.empty()) {
        h.raw("<code>").text(id).raw("</code>");
        return;
    }
    h.raw("<a href=\"").text(root + p).raw("\">").text(label).raw("</a>");
}

void string_list(Html& h, const std::vector<std::string>& items, const char* cls = nullptr) {
    h.raw(cls ? std::string("<ul class=\"") + cls + "\">" : std::string("<ul>"));
    for (const auto& i : items) h.raw("<li>").text(i).raw("</li>");
    h.raw("</ul>\n");
}

// ---- the on-call fields (engine/entry_depth.hpp) -----------------------------------------------------------

void oncall_lead(Html& h, const Entry& e) {
    if (e.depth.discriminator)
        h.raw("<p class=\"discriminator\"><span class=\"badge kind-").text(to_string(e.depth.discriminator->kind))
            .raw("\">").text(to_string(e.depth.discriminator->kind)).raw("</span> ")
            .text(e.depth.discriminator->tells_apart).raw("</p>\n");
    if (e.depth.cheapest_confirmation) {
        h.raw("<h2>Cheapest confirmation</h2>\n<p>").text(e.depth.cheapest_confirmation->text).raw("</p>\n");
        if (!e.depth.cheapest_confirmation->command.empty())
            h.raw("<pre>").text(e.depth.cheapest_confirmation->command).raw("</pre>\n");
    }
}

void stack_fixes(Html& h, const Entry& e) {
    if (!e.depth.stack_fixes || e.depth.stack_fixes->empty()) return;
    h.raw("<h2>Fix in your stack</h2>\n");
    for (Stack stack : all_stacks()) {
        const auto fixes = e.depth.fixes_for(stack);
        if (fixes.empty()) continue;
        h.raw("<h3 id=\"stack-").text(to_string(stack)).raw("\">").text(display_name(stack)).raw("</h3>\n");
        for (const StackFix* f : fixes) {
            h.raw("<div class=\"stackfix\"><code>").text(f->names).raw("</code>");
            if (!f->versions.empty()) h.raw(" <span class=\"cond\">").text(f->versions).raw("</span>");
            h.raw(" <span class=\"meta\">").text(f->source).raw("</span>\n<pre>").text(f->snippet).raw("</pre></div>\n");
        }
    }
}

void fingerprint(Html& h, const Entry& e) {
    if (!e.depth.fingerprint) return;
    h.raw("<h2>Fingerprint</h2>\n<p class=\"meta\">What to alert on in a running job's logs.</p>\n")
        .raw("<div>RE2:</div><pre>").text(e.depth.fingerprint->re2).raw("</pre>\n")
        .raw("<div>grep -E (POSIX ERE):</div><pre>").text(e.depth.fingerprint->grep).raw("</pre>\n");
}

// ---- pages ------------------------------------------------------------------------------------------------

std::vector<const Entry*> sorted_entries(const KnowledgeBase& kb) {
    std::vector<const Entry*> v;
    for (const auto& e : kb.entries()) v.push_back(e.get());
    std::sort(v.begin(), v.end(), [](const Entry* a, const Entry* b) {
        int sa = severity_rank(a->severity), sb = severity_rank(b->severity);
        return sa != sb ? sa < sb : a->id < b->id;
    });
    return v;
}

std::vector<std::string> category_order(const KnowledgeBase& kb) {
    std::vector<std::string> cats(std::begin(kCategoryOrder), std::end(kCategoryOrder));
    std::set<std::string> extra;
    for (const auto& e : kb.entries())
        if (std::find(cats.begin(), cats.end(), e->category) == cats.end()) extra.insert(e->category);
    cats.insert(cats.end(), extra.begin(), extra.end());
    return cats;
}

bool is_nccl_entry(const Entry& e) {
    if (e.id.rfind("nccl-", 0) == 0) return true;
    return std::find(e.tags.begin(), e.tags.end(), "nccl") != e.tags.end();
}

std::string index_page(const KnowledgeBase& kb, const PageNames& names) {
    Html h;
    page_start(h, "Distributed training failures", "",
               "Every failure denpex knows: what it is, why it happens, how to confirm and fix it, and the log lines "
               "that identify it.");
    auto entries = sorted_entries(kb);
    std::map<std::string, int> by_sev;
    int sigs = 0, nccl = 0;
    for (const Entry* e : entries) {
        ++by_sev[e->severity];
        sigs += static_cast<int>(e->signatures.size());
        if (is_nccl_entry(*e)) ++nccl;
    }
    h.raw("<div class=\"summary\">");
    h.raw("<div class=\"card\"><b>").text(std::to_string(entries.size())).raw("</b>failure entries</div>");
    h.raw("<div class=\"card\"><b>").text(std::to_string(sigs)).raw("</b>log signatures</div>");
    for (const char* s : {"critical", "error", "warning", "info"})
        h.raw("<div class=\"card\"><b>").text(std::to_string(by_sev[s])).raw("</b>").text(s).raw("</div>");
    h.raw("<div class=\"card\"><b>").text(std::to_string(nccl)).raw("</b><a href=\"nccl-errors.html\">NCCL-related</a></div>");
    h.raw("</div>\n");
    h.raw("<p class=\"meta\">Roles: <b>initiating</b> signatures are failures a rank can have on its own (the "
          "first-failing rank shows them); <b>collateral</b> ones are what the other ranks show because of it; "
          "<b>context</b> lines only help attribution. Entries marked <b>job</b> are never one rank's failure.</p>\n");

    auto cats = category_order(kb);
    h.raw("<p class=\"toc\">");
    for (const auto& c : cats) {
        bool any = std::any_of(entries.begin(), entries.end(), [&](const Entry* e) { return e->category == c; });
        if (any) h.raw("<a href=\"#cat-").text(safe_name(c)).raw("\">").text(c).raw("</a>");
    }
    h.raw("</p>\n");
    for (const auto& c : cats) {
        std::vector<const Entry*> in;
        for (const Entry* e : entries)
            if (e->category == c) in.push_back(e);
        if (in.empty()) continue;
        h.raw("<h2 id=\"cat-").text(safe_name(c)).raw("\">").text(c).raw(" <span class=\"meta\">(")
            .text(std::to_string(in.size())).raw(")</span></h2>\n");
        h.raw("<table><thead><tr><th style=\"width:30%\">Failure</th><th style=\"width:9%\">Severity</th>"
              "<th style=\"width:13%\">Role of its lines</th><th>Summary</th></tr></thead><tbody>\n");
        for (const Entry* e : in) {
            h.raw("<tr><td>");
            entry_link(h, names, e->id, "", e->title);
            h.raw("<br><code>").text(e->id).raw("</code>");
            if (e->scope == "job") h.raw(" <span class=\"badge scope-job\">job</span>");
            h.raw("</td><td>");
            severity_badge(h, e->severity);
            h.raw("</td><td>");
            role_badge(h, role_summary(*e));
            h.raw("</td><td>").text(first_sentence(e->what)).raw("</td></tr>\n");
        }
        h.raw("</tbody></table>\n");
    }
    page_end(h);
    return h.str();
}

std::string entry_page(const KnowledgeBase& kb, const PageNames& names, const Entry& e) {
    const std::string root = "../";
    Html h;
    page_start(h, e.title, root, e.id + " · " + e.category + " · " + e.severity);
    h.raw("<p class=\"meta\">");
    severity_badge(h, e.severity);
    h.raw(" ");
    role_badge(h, role_summary(e));
    if (e.scope == "job") h.raw(" <span class=\"badge scope-job\">job: never one rank's failure</span>");
    h.raw(" &nbsp;Category: <b>").text(e.category).raw("</b> &nbsp;Id: <code>").text(e.id).raw("</code>");
    if (e.origin != "builtin" && !e.origin.empty()) h.raw(" &nbsp;From: <code>").text(e.origin).raw("</code>");
    h.raw("</p>\n");
    if (!e.tags.empty()) {
        h.raw("<p class=\"meta\">Tags: ");
        for (std::size_t i = 0; i < e.tags.size(); ++i) h.raw(i ? ", " : "").raw("<code>").text(e.tags[i]).raw("</code>");
        h.raw("</p>\n");
    }
    if (!e.affects.empty()) {
        h.raw("<h3>Affects</h3>\n");
        string_list(h, e.affects);
    }
    oncall_lead(h, e);
    h.raw("<h2>What it is</h2>\n<p>").text(e.what).raw("</p>\n");
    h.raw("<h2>Why it happens</h2>\n<p>").text(e.mechanism).raw("</p>\n");
    if (!e.confirm.empty()) {
        h.raw("<h2>How to confirm</h2>\n");
        string_list(h, e.confirm, "check");
    }
    if (!e.fix.empty()) {
        h.raw("<h2>Fix</h2>\n<ol class=\"fix\">\n");
        for (const auto& f : e.fix) {
            h.raw("<li>").text(f.text);
            if (f.has_condition) h.raw(" <span class=\"cond\">when ").text(condition_text(f)).raw("</span>");
            if (!f.env.empty()) {
                h.raw("<br>");
                for (const auto& [k, v] : f.env) h.raw("<code>").text(k + "=" + v).raw("</code> ");
            }
            if (!f.why.empty()) h.raw("<span class=\"why\">").text(f.why).raw("</span>");
            h.raw("</li>\n");
        }
        h.raw("</ol>\n");
    }
    stack_fixes(h, e);
    if (!e.verify.empty()) h.raw("<h2>Verify</h2>\n<pre>").text(e.verify).raw("</pre>\n");
    fingerprint(h, e);
    if (!e.prevention.empty()) {
        h.raw("<h2>Prevention</h2>\n");
        string_list(h, e.prevention);
    }
    if (e.scenario) {
        h.raw("<h2>Composite failure</h2>\n<p>Chosen over its parts when the initiating event is one of ");
        for (std::size_t i = 0; i < e.scenario->initiating.size(); ++i) {
            h.raw(i ? ", " : "");
            entry_link(h, names, e.scenario->initiating[i], root, e.scenario->initiating[i]);
        }
        h.raw(" and some collateral event is one of ");
        for (std::size_t i = 0; i < e.scenario->collateral.size(); ++i) {
            h.raw(i ? ", " : "");
            entry_link(h, names, e.scenario->collateral[i], root, e.scenario->collateral[i]);
        }
        h.raw(".</p>\n");
    }
    if (!e.verdicts.empty()) {
        h.raw("<h2>Named by the reasoning strategies</h2>\n<p>This entry is the verdict of: ");
        for (std::size_t i = 0; i < e.verdicts.size(); ++i) h.raw(i ? ", " : "").raw("<code>").text(e.verdicts[i]).raw("</code>");
        h.raw(".</p>\n");
    }
    h.raw("<h2>Signatures</h2>\n");
    if (e.signatures.empty()) h.raw("<p class=\"meta\">No log line of its own: the reasoner names this entry from the pattern of the other ranks' errors.</p>\n");
    for (const auto& s : e.signatures) {
        h.raw("<div class=\"sig\"><div class=\"head\">");
        role_badge(h, std::string(to_string(s.role)));
        h.raw(" <code>").text(s.id).raw("</code>");
        if (s.torch) h.raw(" <span class=\"cond\">implies PyTorch ").text(s.torch->str()).raw("</span>");
        if (s.launcher) h.raw(" <span class=\"cond\">launcher ").text(*s.launcher).raw("</span>");
        if (s.fallback) h.raw(" <span class=\"cond\">fallback: only when no specific signature matches</span>");
        if (s.mark == Mark::failure_start) h.raw(" <span class=\"cond\">marks the start of a failure report</span>");
        h.raw("</div>\n<div>Pattern (RE2): <code>").text(s.pattern).raw("</code></div>\n");
        h.raw("<div>Source: ").text(s.source).raw("</div>\n");
        if (!s.examples.empty()) {
            h.raw("<div>Example lines:</div>\n");
            for (const auto& x : s.examples) h.raw("<pre>").text(x).raw("</pre>\n");
        }
        h.raw("</div>\n");
    }
    if (!e.look_for.empty()) {
        h.raw("<h2>Search the missing logs for</h2>\n<p>");
        for (std::size_t i = 0; i < e.look_for.size(); ++i) h.raw(i ? " " : "").raw("<code>").text(e.look_for[i]).raw("</code>");
        h.raw("</p>\n");
    }
    // Related, in both directions (an entry listed by another counts as related too).
    std::vector<std::string> related = e.related;
    for (const auto& other : kb.entries())
        if (other->id != e.id && std::find(other->related.begin(), other->related.end(), e.id) != other->related.end() &&
            std::find(related.begin(), related.end(), other->id) == related.end())
            related.push_back(other->id);
    if (!related.empty()) {
        h.raw("<h2>Related</h2>\n<ul>");
        for (const auto& r : related) {
            const Entry* re = kb.find(r);
            h.raw("<li>");
            entry_link(h, names, r, root, re ? re->title : r);
            if (re) h.raw(" <span class=\"meta\">(").text(r).raw(")</span>");
            h.raw("</li>");
        }
        h.raw("</ul>\n");
    }
    if (!e.sources.empty()) {
        h.raw("<h2>Sources</h2>\n");
        string_list(h, e.sources);
    }
    page_end(h);
    return h.str();
}

struct EnvVar {
    const char* label;            // column / row heading
    std::vector<const char*> names;
    const char* shows;            // what it reveals or changes
};

const std::vector<EnvVar>& env_vars() {
    static const std::vector<EnvVar> v = {
        {"NCCL_DEBUG=WARN / INFO", {"NCCL_DEBUG"},
         "WARN prints the reason of every NCCL error on the rank that hit it (the initiating side: Cuda failure, "
         "NET/IB completion error, ibv_* failures, Duplicate GPU); INFO adds start-up lines, including 'Init COMPLETE' "
         "(rank, host, pid, busId: the map from an Xid or a pid to a rank) and the transports chosen."},
        {"NCCL_DEBUG_SUBSYS", {"NCCL_DEBUG_SUBSYS"},
         "Limits INFO output to subsystems: INIT (communicator creation), NET (sockets, IB devices, GID index), "
         "GRAPH (topology), ENV, COLL. NET tells interface and RDMA set-up problems apart."},
        {"TORCH_NCCL_ASYNC_ERROR_HANDLING", {"TORCH_NCCL_ASYNC_ERROR_HANDLING", "NCCL_ASYNC_ERROR_HANDLING"},
         "How ranks react to a failed or timed-out collective: 0 hang forever, 1 abort and tear down, 2 clean up only, "
         "3 tear down without abort (default from 2.2). With it on, ranks waiting for a dead peer die at the timeout "
         "(collateral timeouts and SIGABRT) instead of hanging silently. NCCL_ASYNC_ERROR_HANDLING before 2.2."},
        {"TORCH_NCCL_BLOCKING_WAIT", {"TORCH_NCCL_BLOCKING_WAIT", "NCCL_BLOCKING_WAIT"},
         "wait() raises the timeout on the calling thread ('timed out in blocking wait') instead of the watchdog: every "
         "waiting rank gets a Python traceback of where it waited."},
        {"NCCL_SOCKET_IFNAME", {"NCCL_SOCKET_IFNAME"},
         "Network interface for bootstrap and the socket transport. A wrong or missing interface gives 'no socket "
         "interface found' / connect retries at start-up, not mid-run errors."},
        {"NCCL_IB_*", {"NCCL_IB_HCA", "NCCL_IB_GID_INDEX", "NCCL_IB_TIMEOUT", "NCCL_IB_RETRY_CNT", "NCCL_IB_DISABLE",
                       "NCCL_CROSS_NIC", "NCCL_NET_GDR_LEVEL"},
         "InfiniBand/RoCE selection and tolerance: NCCL_IB_HCA (which NICs/ports), NCCL_IB_GID_INDEX (RoCE GID), "
         "NCCL_IB_TIMEOUT / NCCL_IB_RETRY_CNT (how long before 'completion error 12'), NCCL_IB_DISABLE=1 (force "
         "sockets to isolate the fabric)."},
        {"TORCH_NCCL_TRACE_BUFFER_SIZE / DUMP_ON_TIMEOUT", {"TORCH_NCCL_TRACE_BUFFER_SIZE", "TORCH_NCCL_DUMP_ON_TIMEOUT"},
         "Flight Recorder (2.2+): every rank records its last collectives and dumps them when a timeout fires. The rank "
         "whose dump is missing, or which never enqueued the timed-out sequence number, is the one that failed or "
         "stalled (torchfrtrace compares the dumps)."},
        {"TORCH_NCCL_DESYNC_DEBUG", {"TORCH_NCCL_DESYNC_DEBUG", "NCCL_DESYNC_DEBUG"},
         "At a timeout, asks the store which ranks joined the collective and prints the lagging ranks."},
        {"TORCH_NCCL_ENABLE_MONITORING / HEARTBEAT", {"TORCH_NCCL_ENABLE_MONITORING", "TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC"},
         "Heartbeat monitor: kills a process whose watchdog itself is stuck (in a CUDA or NCCL call), after dumping "
         "debug info."},
        {"CUDA_LAUNCH_BLOCKING", {"CUDA_LAUNCH_BLOCKING"},
         "Makes CUDA errors report at the faulting kernel instead of the next synchronising call (NCCL 'Cuda failure', "
         "unhandled cuda error)."},
    };
    return v;
}

std::string nccl_page(const KnowledgeBase& kb, const PageNames& names) {
    Html h;
    page_start(h, "NCCL errors compared", "",
               "Every NCCL-related entry side by side: what it indicates, whether the rank printing it failed on its own "
               "or because of another rank, and the environment variables that tell them apart.");
    std::vector<const Entry*> nccl;
    for (const Entry* e : sorted_entries(kb))
        if (is_nccl_entry(*e)) nccl.push_back(e);
    std::sort(nccl.begin(), nccl.end(), [](const Entry* a, const Entry* b) { return a->id < b->id; });

    h.raw("<p>An NCCL error on one rank is often only the echo of another rank's failure: a rank that crashed, ran out "
          "of memory or stalled leaves its peers with timeouts and remote errors. Entries whose lines are "
          "<b>initiating</b> are failures the printing rank had itself; <b>collateral</b> ones are what ranks print "
          "because a peer failed — look for the initiator in the other ranks' logs.</p>\n");

    h.raw("<h2>Comparison</h2>\n<table class=\"cmp\"><thead><tr><th style=\"width:22%\">Entry</th><th>What it indicates</th>"
          "<th style=\"width:11%\">Rank printing it</th><th style=\"width:26%\">Typical line</th>"
          "<th style=\"width:16%\">Environment variables that tell it apart</th></tr></thead><tbody>\n");
    for (const Entry* e : nccl) {
        std::string role = role_summary(*e);
        h.raw("<tr><td>");
        entry_link(h, names, e->id, "", e->title);
        h.raw("<br><code>").text(e->id).raw("</code> ");
        severity_badge(h, e->severity);
        h.raw("</td><td>").text(first_sentence(e->what)).raw("</td><td>");
        role_badge(h, role);
        h.raw("<br><span class=\"meta\">")
            .text(role == "initiating"   ? "failed on its own: the likely initiator"
                  : role == "collateral" ? "waited for or lost a peer: look at the other ranks"
                  : role == "context"    ? "information only"
                  : role == "verdict"    ? "named from the other ranks' errors"
                  : role == "scenario"   ? "composite: initiator plus collateral"
                                         : "depends on the line: see the entry")
            .raw("</span></td><td>");
        if (!e->signatures.empty() && !e->signatures.front().examples.empty())
            h.raw("<code>").text(e->signatures.front().examples.front()).raw("</code>");
        h.raw("</td><td>");
        auto env = env_names_of(*e);
        bool first = true;
        for (const auto& n : env) {
            h.raw(first ? "" : " ").raw("<code>").text(n).raw("</code>");
            first = false;
        }
        if (env.empty()) h.raw("<span class=\"meta\">NCCL_DEBUG=WARN</span>");
        h.raw("</td></tr>\n");
    }
    h.raw("</tbody></table>\n");

    const auto& vars = env_vars();
    h.raw("<h2>Which variable helps with which entry</h2>\n<table><thead><tr><th>Entry</th>");
    for (const auto& v : vars) h.raw("<th class=\"mono\" style=\"font-size:11px\">").text(v.label).raw("</th>");
    h.raw("</tr></thead><tbody>\n");
    for (const Entry* e : nccl) {
        auto env = env_names_of(*e);
        h.raw("<tr><td>");
        entry_link(h, names, e->id, "", e->id);
        h.raw("</td>");
        for (const auto& v : vars) {
            bool yes = std::any_of(v.names.begin(), v.names.end(), [&](const char* n) { return env.count(n) > 0; });
            h.raw(yes ? "<td class=\"yes\">&#10003;</td>" : "<td></td>");
        }
        h.raw("</tr>\n");
    }
    h.raw("</tbody></table>\n<p class=\"meta\">A mark means the entry's confirmation steps or fixes use the variable.</p>\n");

    h.raw("<h2>The variables</h2>\n<table><thead><tr><th style=\"width:26%\">Variable</th><th>What it shows or changes</th>"
          "</tr></thead><tbody>\n");
    for (const auto& v : vars) {
        h.raw("<tr><td>");
        for (std::size_t i = 0; i < v.names.size(); ++i) h.raw(i ? "<br>" : "").raw("<code>").text(v.names[i]).raw("</code>");
        h.raw("</td><td>").text(v.shows).raw("</td></tr>\n");
    }
    h.raw("</tbody></table>\n");
    page_end(h);
    return h.str();
}

bool write_file(const fs::path& path, const std::string& content, std::ostream& err) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) {
        err << "denpex: kb export: cannot write " << path.string() << "\n";
        return false;
    }
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.close();
    if (!out) {
        err << "denpex: kb export: error writing " << path.string() << "\n";
        return false;
    }
    return true;
}

}  // namespace

std::string html_escape(std::string_view text) {
    std::string out;
    out.reserve(text.size() + text.size() / 8);
    for (char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return out;
}

int kb_export(const denpex::KnowledgeBase& kb, const std::string& dir, std::ostream& err) {
    if (dir.empty()) {
        err << "denpex: kb export needs an output directory\n";
        return 2;
    }
    const fs::path root(dir);
    std::error_code ec;
    fs::create_directories(root / "entries", ec);
    if (ec || !fs::is_directory(root / "entries")) {
        err << "denpex: kb export: cannot create " << (root / "entries").string()
            << (ec ? ": " + ec.message() : std::string()) << "\n";
        return 1;
    }
    const PageNames names(kb);
    if (!write_file(root / "index.html", index_page(kb, names), err)) return 1;
    if (!write_file(root / "nccl-errors.html", nccl_page(kb, names), err)) return 1;
    for (const auto& e : kb.entries())
        if (!write_file(root / names.path(e->id), entry_page(kb, names, *e), err)) return 1;
    return 0;
}

}  // namespace denpex::cli
