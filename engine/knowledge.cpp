#include "engine/knowledge.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <re2/re2.h>

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

}  // namespace

std::string_view to_string(Role role) {
    switch (role) {
        case Role::initiating: return "initiating";
        case Role::collateral: return "collateral";
        case Role::context: return "context";
    }
    return "context";
}

KnowledgeBase KnowledgeBase::load_embedded(std::vector<std::string>& problems) {
    KnowledgeBase kb;
    for (const auto& file : embedded_knowledge()) kb.add_json(file.content, std::string(file.name), problems);
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
            e->fix.push_back(std::move(item));
        }
    } else {
        r.problem("missing \"fix\" array");
    }

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
            if (auto m = s.find("marks"); m != s.end()) {
                static const std::pair<const char*, Mark> kMarks[] = {
                    {"failure-start", Mark::failure_start},     {"survived-report", Mark::survived_report},
                    {"names-next-report", Mark::names_next_report}, {"benign-line", Mark::benign_line},
                    {"handled-record", Mark::handled_record},   {"chain-link", Mark::chain_link},
                    {"ends-attempt", Mark::ends_attempt},       {"reached-exit", Mark::reached_exit}};
                std::string known;
                for (const auto& [name, mark] : kMarks) {
                    if (m->is_string() && m->get<std::string>() == name) sig.mark = mark;
                    known += std::string(known.empty() ? "" : ", ") + "\"" + name + "\"";
                }
                if (sig.mark == Mark::none) r.problem("signature " + sig.id + ": \"marks\" must be one of " + known);
            }
            sig.examples = r.strings(s, "examples", true);
            sig.source = r.str(s, "source");
            if (sig.examples.empty()) r.problem("signature " + sig.id + ": needs at least one example line");
            RE2::Options opts;
            opts.set_log_errors(false);
            opts.set_max_mem(8 << 20);
            auto re = std::make_shared<RE2>(sig.pattern, opts);
            if (!re->ok()) r.problem("signature " + sig.id + ": pattern does not compile: " + re->error());
            else sig.regex = std::move(re);
            e->signatures.push_back(std::move(sig));
        }
    }
    if (e->signatures.empty() && !e->scenario && e->verdicts.empty())
        r.problem("an entry needs signatures, a scenario or verdicts");

    if (r.count() > 0) return false;
    Entry* raw = e.get();
    for (auto& sig : raw->signatures) sig.entry = raw;
    auto same = std::find_if(entries_.begin(), entries_.end(), [&](const auto& x) { return x->id == raw->id; });
    if (same != entries_.end()) *same = std::move(e);   // a team's entry replaces the built-in one of that id
    else entries_.push_back(std::move(e));
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
