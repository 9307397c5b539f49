#include "engine/knowledge.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <time.h>

#include <nlohmann/json.hpp>
#include <re2/re2.h>
#include <re2/set.h>

#include "engine/embedded_knowledge.hpp"

namespace denpex {
namespace {

using nlohmann::json;

const char* const kCategories[] = {"Memory", "Hardware", "Network", "Collective",
                                   "Launcher", "Data", "Numerics", "Software"};
const char* const kSeverities[] = {"critical", "error", "warning", "info"};

// Reads fields with type checks; every problem is recorded with the entry's origin and the field's path.
class Reader {
public:
    Reader(const std::string& origin, std::vector<std::string>& problems) : origin_(origin), problems_(problems) {}

    void problem(const std::string& what) { problems_.push_back(origin_ + ": " + what); ++count_; }
    int count() const { return count_; }

    std::string str(const json& j, const char* key, bool required = true) {
        auto it = j.find(key);
        if (it == j.end()) {
            if (required) problem(std::string("missing \"") + key + "\"");
            return {};
        }
        if (!it->is_string()) {
            problem(std::string("\"") + key + "\" must be a string");
            return {};
        }
        return it->get<std::string>();
    }

    std::vector<std::string> strings(const json& j, const char* key, bool required = false) {
        std::vector<std::string> out;
        auto it = j.find(key);
        if (it == j.end()) {
            if (required) problem(std::string("missing \"") + key + "\"");
            return out;
        }
        if (!it->is_array()) {
            problem(std::string("\"") + key + "\" must be an array of strings");
            return out;
        }
        for (const auto& v : *it) {
            if (v.is_string()) out.push_back(v.get<std::string>());
            else problem(std::string("\"") + key + "\" must hold only strings");
        }
        return out;
    }

    std::optional<VersionRange> range(const json& j, const char* key, const std::string& where) {
        auto it = j.find(key);
        if (it == j.end()) return std::nullopt;
        if (!it->is_string()) { problem(where + "\"" + key + "\" must be a string"); return std::nullopt; }
        auto r = VersionRange::parse(it->get<std::string>());
        if (!r) problem(where + "\"" + key + "\" is not a version range: " + it->get<std::string>());
        return r;
    }

private:
    const std::string& origin_;
    std::vector<std::string>& problems_;
    int count_ = 0;
};

bool one_of(const std::string& v, const char* const* first, const char* const* last) {
    return std::any_of(first, last, [&](const char* s) { return v == s; });
}

// An id as a warning may show it: at most 60 bytes, anything but [a-zA-Z0-9._-] as '?'.
std::string shown_id(std::string_view id) {
    std::string out;
    for (unsigned char c : id.substr(0, 60)) out += (std::isalnum(c) || c == '-' || c == '_' || c == '.') ? char(c) : '?';
    if (id.size() > 60) out += "... (" + std::to_string(id.size()) + " bytes)";
    return out;
}

double thread_cpu_ms() {
    timespec ts{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// Deterministic pseudo-random text over `alphabet`.
std::string probe_text(const std::string& alphabet, std::size_t n, std::uint32_t seed) {
    std::string s;
    s.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        seed = seed * 1103515245u + 12345u;
        s += alphabet[(seed >> 16) % alphabet.size()];
    }
    return s;
}

// A signature's "marks": one of the names below, each a Mark the engine reads.
Mark read_mark(Reader& r, const json& m, const std::string& sig_id) {
    static const std::pair<const char*, Mark> kMarks[] = {
        {"failure-start", Mark::failure_start},     {"survived-report", Mark::survived_report},
        {"names-next-report", Mark::names_next_report}, {"benign-line", Mark::benign_line},
        {"handled-record", Mark::handled_record},   {"chain-link", Mark::chain_link},
        {"ends-attempt", Mark::ends_attempt},       {"reached-exit", Mark::reached_exit},
        {"no-store", Mark::no_store},               {"compares-ranks", Mark::compares_ranks},
        {"rendezvous-incomplete", Mark::rendezvous_incomplete},
        {"interleaved-frame", Mark::interleaved_frame}, {"announces-rank", Mark::announces_rank},
        {"step-teardown", Mark::step_teardown},
        {"transport-on-loopback", Mark::transport_on_loopback},
        {"own-watchdog-stuck", Mark::own_watchdog_stuck},
        {"size-from-peers", Mark::size_from_peers},
        {"death-without-cause", Mark::death_without_cause}};
    std::string known;
    for (const auto& [name, mark] : kMarks) {
        if (m.is_string() && m.get<std::string>() == name) return mark;
        known += std::string(known.empty() ? "" : ", ") + "\"" + name + "\"";
    }
    r.problem("signature " + sig_id + ": \"marks\" must be one of " + known);
    return Mark::none;
}

// One signature: its role, pattern (compiled here), versions, launcher, mark and example lines.
Signature read_signature(Reader& r, const json& s) {
    Signature sig;
    sig.id = r.str(s, "id");
    std::string role = r.str(s, "role");
    if (role == "initiating") sig.role = Role::initiating;
    else if (role == "collateral") sig.role = Role::collateral;
    else if (role == "context") sig.role = Role::context;
    else r.problem("signature " + sig.id + ": unknown role \"" + role + "\"");
    sig.pattern = r.str(s, "pattern");
    sig.torch = r.range(s, "torch", "signature " + sig.id + ": ");
    if (auto l = s.find("launcher"); l != s.end() && l->is_string()) sig.launcher = l->get<std::string>();
    if (auto fb = s.find("fallback"); fb != s.end() && fb->is_boolean()) sig.fallback = fb->get<bool>();
    if (auto w = s.find("on_warning_lines"); w != s.end() && w->is_boolean()) sig.on_warning_lines = w->get<bool>();
    if (auto m = s.find("marks"); m != s.end()) sig.mark = read_mark(r, *m, sig.id);
    sig.examples = r.strings(s, "examples", true);
    sig.source = r.str(s, "source");
    if (sig.examples.empty()) r.problem("signature " + sig.id + ": needs at least one example line");
    RE2::Options opts;
    opts.set_log_errors(false);
    opts.set_max_mem(8 << 20);
    auto re = std::make_shared<RE2>(sig.pattern, opts);
    if (!re->ok()) r.problem("signature " + sig.id + ": pattern does not compile: " + re->error());
    else sig.regex = std::move(re);
    return sig;
}

// One fix item: its text, why, the env it sets and the versions and launcher it applies to.
FixItem read_fix_item(Reader& r, const json& f) {
    FixItem item;
    item.text = r.str(f, "text");
    item.why = r.str(f, "why", false);
    if (auto env = f.find("env"); env != f.end()) {
        if (!env->is_object()) r.problem("fix \"env\" must be an object");
        else
            for (auto& [k, v] : env->items())
                if (v.is_string()) item.env[k] = v.get<std::string>();
                else r.problem("fix env values must be strings");
    }
    if (auto when = f.find("when"); when != f.end()) {
        if (!when->is_object()) r.problem("fix \"when\" must be an object");
        else {
            item.has_condition = true;
            item.when.torch = r.range(*when, "torch", "fix when: ");
            if (auto l = when->find("launcher"); l != when->end() && l->is_string())
                item.when.launcher = l->get<std::string>();
        }
    }
    return item;
}

}  // namespace

std::string_view to_string(Role role) {
    switch (role) {
        case Role::initiating: return "initiating";
        case Role::collateral: return "collateral";
        case Role::context: return "context";
    }
    return "context";
}

bool valid_knowledge_id(std::string_view id) {
    return !id.empty() && id.size() <= KnowledgeBase::kMaxIdBytes &&
           std::all_of(id.begin(), id.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
}

std::optional<std::string> costly_pattern(const std::string& pattern) {
    // The probe: the pattern alone in an RE2::Set (the matcher's kind of automaton: a DFA that never falls back to
    // the NFA, and only resets its cache when full) under the team's memory limit, run over 96 KiB of text in
    // 4 KiB lines: random text over the pattern's own characters, over lowercase letters and digits, and over all
    // of printable ASCII. A normal pattern's DFA settles in a few dozen states (~1 ms); one that grows a state per
    // byte, or needs more states than its memory holds, rebuilds them all the time.
    constexpr double kBudgetMs = 50;
    constexpr std::size_t kProbeBytes = 32u << 10, kLine = 4u << 10;
    RE2::Options o;
    o.set_log_errors(false);
    o.set_max_mem(KnowledgeBase::kTeamPatternMaxMem);
    RE2::Set set(o, RE2::UNANCHORED);
    std::string err;
    if (set.Add(pattern, &err) < 0) return "its pattern does not compile: " + err;
    if (!set.Compile()) return "its pattern's automaton needs more than " +
                               std::to_string(KnowledgeBase::kTeamPatternMaxMem >> 20) + " MiB";
    std::string own;
    for (char c : pattern)
        if (c > ' ' && c < 127 && own.find(c) == std::string::npos) own += c;
    own += " 0123456789az";
    std::string printable;
    for (char c = ' '; c < 127; ++c) printable += c;
    const std::string alphabets[] = {own, "abcdefghijklmnopqrstuvwxyz0123456789 ", printable};
    const double start = thread_cpu_ms();
    std::vector<int> hits;
    std::uint32_t seed = 7;
    for (const auto& alphabet : alphabets) {
        const std::string text = probe_text(alphabet, kProbeBytes, seed++);
        for (std::size_t at = 0; at < text.size(); at += kLine) {
            RE2::Set::ErrorInfo info{};
            hits.clear();
            if (!set.Match(re2::StringPiece(text.data() + at, std::min(kLine, text.size() - at)), &hits, &info) &&
                info.kind == RE2::Set::kOutOfMemory)
                return "its pattern's automaton outgrows " + std::to_string(KnowledgeBase::kTeamPatternMaxMem >> 20) +
                       " MiB on log-like text";
            if (thread_cpu_ms() - start > kBudgetMs)
                return "its pattern is too costly to match: its automaton grows with the text (96 KiB of log-like "
                       "text took over " + std::to_string(static_cast<int>(kBudgetMs)) + " ms; a normal pattern takes ~1 ms)";
        }
    }
    return std::nullopt;
}

KnowledgeBase KnowledgeBase::load_embedded(std::vector<std::string>& problems) {
    KnowledgeBase kb;
    for (const auto& file : embedded_knowledge()) kb.add(file.content, std::string(file.name), true, problems);
    for (auto& e : kb.entries_) e->origin = "builtin";
    return kb;
}

bool KnowledgeBase::add_directory(const std::string& dir, std::vector<std::string>& problems) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        problems.push_back(dir + ": not a readable directory");
        return false;
    }
    std::vector<fs::path> files;
    for (const auto& de : fs::directory_iterator(dir, ec))
        if (de.path().extension() == ".json") files.push_back(de.path());
    if (ec) {
        problems.push_back(dir + ": " + ec.message());
        return false;
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        std::ifstream in(f, std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        add_json(ss.str(), f.string(), problems);
    }
    return true;
}

bool KnowledgeBase::add_json(std::string_view text, const std::string& origin, std::vector<std::string>& problems) {
    return add(text, origin, false, problems);
}

bool KnowledgeBase::add(std::string_view text, const std::string& origin, bool builtin, std::vector<std::string>& problems) {
    json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) {
        problems.push_back(origin + ": not a JSON object");
        return false;
    }
    Reader r(origin, problems);
    auto e = std::make_unique<Entry>();
    e->origin = origin;
    e->id = r.str(j, "id");
    e->title = r.str(j, "title");
    e->category = r.str(j, "category");
    e->severity = r.str(j, "severity");
    e->what = r.str(j, "what");
    e->mechanism = r.str(j, "mechanism");
    e->verify = r.str(j, "verify");
    e->tags = r.strings(j, "tags");
    e->affects = r.strings(j, "affects");
    e->confirm = r.strings(j, "confirm", true);
    e->prevention = r.strings(j, "prevention");
    e->related = r.strings(j, "related");
    e->look_for = r.strings(j, "look_for");
    e->sources = r.strings(j, "sources");
    e->verdicts = r.strings(j, "verdicts");
    e->refines = r.strings(j, "refines");
    if (j.contains("scope")) {
        e->scope = r.str(j, "scope");
        if (e->scope != "rank" && e->scope != "job") r.problem("\"scope\" must be \"rank\" or \"job\"");
    }
    if (j.contains("ends_from_outside")) {
        const std::string v = r.str(j, "ends_from_outside");
        if (v == "reason-stated") e->ends_from_outside = Entry::OutsideEnd::reason_stated;
        else if (v == "reason-unknown") e->ends_from_outside = Entry::OutsideEnd::reason_unknown;
        else r.problem("\"ends_from_outside\" must be \"reason-stated\" or \"reason-unknown\"");
    }
    if (!e->category.empty() && !one_of(e->category, std::begin(kCategories), std::end(kCategories)))
        r.problem("unknown category \"" + e->category + "\"");
    if (!e->severity.empty() && !one_of(e->severity, std::begin(kSeverities), std::end(kSeverities)))
        r.problem("unknown severity \"" + e->severity + "\"");

    if (auto it = j.find("fix"); it != j.end() && it->is_array()) {
        for (const auto& f : *it) {
            if (!f.is_object()) { r.problem("\"fix\" items must be objects"); continue; }
            e->fix.push_back(read_fix_item(r, f));
        }
    } else {
        r.problem("missing \"fix\" array");
    }

    parse_entry_depth(j, e->sources, e->depth, [&](const std::string& what) { r.problem(what); });

    if (auto it = j.find("scenario"); it != j.end()) {
        Scenario s;
        s.initiating = r.strings(*it, "initiating", true);
        s.collateral = r.strings(*it, "collateral", true);
        e->scenario = std::move(s);
    }

    auto sigs = j.find("signatures");
    if (sigs == j.end() || !sigs->is_array()) {
        r.problem("missing \"signatures\" array");
    } else {
        for (const auto& s : *sigs) {
            if (!s.is_object()) { r.problem("signatures must be objects"); continue; }
            e->signatures.push_back(read_signature(r, s));
        }
    }
    if (e->signatures.empty() && !e->scenario && e->verdicts.empty())
        r.problem("an entry needs signatures, a scenario or verdicts");

    if (r.count() > 0) return false;

    // Well formed; now whether it is safe to use. A built-in entry that is not is a programming error (a problem);
    // a team's is refused with a warning, and the rest of the knowledge goes on working.
    auto refuse = [&](const std::string& why) {
        if (builtin) problems.push_back(origin + ": " + why);
        else warnings_.push_back(origin + ": entry \"" + shown_id(e->id) + "\" refused: " + why);
        return false;
    };
    if (!valid_knowledge_id(e->id))
        return refuse("an id must be 1 to " + std::to_string(kMaxIdBytes) + " bytes of a-z, 0-9 and '-'");
    for (const auto& sig : e->signatures)
        if (!valid_knowledge_id(sig.id))
            return refuse("signature \"" + shown_id(sig.id) + "\": an id must be 1 to " + std::to_string(kMaxIdBytes) +
                          " bytes of a-z, 0-9 and '-'");
    if (const Entry* same = find(e->id))
        return refuse(same->builtin ? "a built-in entry has this id (built-in entries are never replaced)"
                                    : "an entry of this id was already loaded from " + same->origin);
    if (!builtin)
        for (const auto& sig : e->signatures)
            if (auto why = costly_pattern(sig.pattern)) return refuse("signature \"" + sig.id + "\": " + *why);

    Entry* raw = e.get();
    raw->builtin = builtin;
    for (auto& sig : raw->signatures) sig.entry = raw;
    entries_.push_back(std::move(e));
    return true;
}

const Entry* KnowledgeBase::find(std::string_view id) const {
    for (const auto& e : entries_)
        if (e->id == id) return e.get();
    return nullptr;
}

bool KnowledgeBase::related(const Entry& a, const Entry& b) const {
    if (&a == &b || a.id == b.id) return true;
    auto lists = [](const Entry& x, const std::string& id) {
        return std::find(x.related.begin(), x.related.end(), id) != x.related.end();
    };
    return lists(a, b.id) || lists(b, a.id);
}

}  // namespace denpex
