// The knowledge base checks itself: every built-in entry loads (schema, enums, patterns compile), every
// example line matches its own signature, and no example is claimed by an unrelated entry.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include <re2/re2.h>

#include "engine/knowledge.hpp"
#include "engine/matcher.hpp"

using namespace denpex;

namespace {
const KnowledgeBase& builtin(std::vector<std::string>* problems_out = nullptr) {
    static std::vector<std::string> problems;
    static const KnowledgeBase kb = KnowledgeBase::load_embedded(problems);
    if (problems_out) *problems_out = problems;
    return kb;
}
}  // namespace

TEST_CASE("knowledge: every built-in entry loads without problems") {
    std::vector<std::string> problems;
    const KnowledgeBase& kb = builtin(&problems);
    std::string all;
    for (const auto& p : problems) all += p + "\n";
    CHECK_MESSAGE(problems.empty(), all);
    CHECK(kb.entries().size() >= 20);
}

TEST_CASE("knowledge: the two seed entries are complete") {
    const KnowledgeBase& kb = builtin();
    const Entry* silent = kb.find("silent-oom-nccl-timeout");
    REQUIRE(silent);
    CHECK(silent->title.find("inside NCCL") != std::string::npos);
    const Entry* watchdog = kb.find("watchdog-timeout-silent-oom");
    REQUIRE(watchdog);
    CHECK(watchdog->title == "Watchdog timeout caused by silent single-rank OOM");
    for (const Entry* e : {silent, watchdog}) {
        bool has_async = false;
        for (const auto& f : e->fix)
            if (f.env.count("TORCH_NCCL_ASYNC_ERROR_HANDLING") && f.env.at("TORCH_NCCL_ASYNC_ERROR_HANDLING") == "1")
                has_async = true;
        CHECK_MESSAGE(has_async, e->id);
        CHECK(!e->verify.empty());
        CHECK(!e->confirm.empty());
        CHECK(!e->sources.empty());
    }
    bool every_worker = false;
    for (const auto& c : silent->confirm)
        if (c.find("CUDA out of memory") != std::string::npos && c.find("every") != std::string::npos) every_worker = true;
    CHECK(every_worker);
}

TEST_CASE("knowledge: every entry is complete and cites its sources") {
    for (const auto& e : builtin().entries()) {
        INFO(e->id);
        CHECK(!e->what.empty());
        CHECK(!e->mechanism.empty());
        CHECK(!e->confirm.empty());
        CHECK(!e->fix.empty());
        CHECK(!e->verify.empty());
        CHECK(!e->sources.empty());
        for (const auto& s : e->signatures) {
            INFO(s.id);
            CHECK(!s.source.empty());
            CHECK(!s.examples.empty());
        }
        for (const auto& r : e->related) CHECK_MESSAGE(builtin().find(r) != nullptr, "related id " << r);
        for (const auto& r : e->refines) CHECK_MESSAGE(builtin().find(r) != nullptr, "refined id " << r);
        if (e->scenario) {
            for (const auto& id : e->scenario->initiating) CHECK_MESSAGE(builtin().find(id), "scenario id " << id);
            for (const auto& id : e->scenario->collateral) CHECK_MESSAGE(builtin().find(id), "scenario id " << id);
        }
    }
}

TEST_CASE("knowledge: each example matches its own signature and no unrelated entry") {
    const KnowledgeBase& kb = builtin();
    Matcher matcher(kb);
    int examples = 0;
    for (const auto& e : kb.entries())
        for (const auto& s : e->signatures)
            for (const auto& line : s.examples) {
                ++examples;
                INFO(e->id << " / " << s.id << ": " << line);
                REQUIRE(s.regex);
                CHECK(RE2::PartialMatch(line, *s.regex));
                for (const Hit& h : matcher.match(line)) {
                    const Signature& hit = *h.signature;
                    // A plain context line names no failure (it only keeps fallbacks off the line): any entry may
                    // share it. Marked context lines change what follows them, so they count.
                    if (hit.role == Role::context && hit.mark == Mark::none) continue;
                    // A warning-line mark leaves a signature alone that says it counts on warning lines.
                    if (hit.mark == Mark::benign_line && s.on_warning_lines) continue;
                    const Entry& other = *hit.entry;
                    CHECK_MESSAGE(kb.related(*e, other), "also claimed by unrelated entry " << other.id << " ("
                                                                                           << h.signature->id << ")");
                }
            }
    CHECK(examples >= 60);
}

TEST_CASE("knowledge: a team's directory adds entries and bad entries are reported, not ignored") {
    KnowledgeBase kb;
    std::vector<std::string> problems;
    CHECK_FALSE(kb.add_json("{", "broken.json", problems));
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].find("broken.json") != std::string::npos);
    problems.clear();
    const char* bad_pattern = R"({"id":"x","title":"t","category":"Memory","severity":"error","what":"w","mechanism":"m",
      "confirm":["c"],"fix":[{"text":"f"}],"verify":"v","signatures":[{"id":"s","role":"initiating",
      "pattern":"(unclosed","examples":["e"],"source":"src"}]})";
    CHECK_FALSE(kb.add_json(bad_pattern, "team/x.json", problems));
    REQUIRE(!problems.empty());
    CHECK(problems[0].find("does not compile") != std::string::npos);
    problems.clear();
    const char* bad_category = R"({"id":"y","title":"t","category":"Weather","severity":"error","what":"w","mechanism":"m",
      "confirm":["c"],"fix":[{"text":"f"}],"verify":"v","signatures":[{"id":"s","role":"initiating",
      "pattern":"boom","examples":["boom"],"source":"src"}]})";
    CHECK_FALSE(kb.add_json(bad_category, "team/y.json", problems));
    CHECK(!problems.empty());
    problems.clear();
    const char* good = R"({"id":"team-disk","title":"Scratch disk full","category":"Software","severity":"error",
      "what":"w","mechanism":"m","confirm":["c"],"fix":[{"text":"f"}],"verify":"df -h",
      "signatures":[{"id":"s","role":"initiating","pattern":"No space left on device","examples":["OSError: [Errno 28] No space left on device"],"source":"man 3 errno"}]})";
    CHECK(kb.add_json(good, "team/disk.json", problems));
    CHECK(problems.empty());
    REQUIRE(kb.find("team-disk"));
    Matcher m(kb);
    auto hits = m.match("[rank3]: OSError: [Errno 28] No space left on device: '/ckpt/step_100'");
    REQUIRE(hits.size() == 1);
    CHECK(hits[0].signature->entry->id == "team-disk");
}

namespace {

std::string joined(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
    return out;
}
}  // namespace

TEST_CASE("knowledge: every built-in entry has the on-call fields (discriminator, confirmation, fingerprint, stack fixes)") {
    int converted = 0;
    for (const auto& e : builtin().entries()) {
        INFO(e->id);
        const auto missing = e->depth.missing();
        CHECK_MESSAGE(missing.empty(), "lacks " << joined(missing));
        if (!missing.empty()) continue;
        ++converted;
        CHECK(!e->depth.discriminator->tells_apart.empty());
        CHECK(!e->depth.cheapest_confirmation->text.empty());
        // Each stack fix's knob is in its snippet and its source among the entry's (the loader checks both; this
        // says so where the requirement is stated).
        for (const auto& f : *e->depth.stack_fixes) {
            CHECK(f.snippet.find(f.names) != std::string::npos);
            CHECK(std::find(e->sources.begin(), e->sources.end(), f.source) != e->sources.end());
        }
    }
    CHECK(converted == static_cast<int>(builtin().entries().size()));
    CHECK(converted >= 150);
}

TEST_CASE("knowledge: every built-in stack fix names a knob found in its cited source (evidence records)") {
    // knowledge/sources/stack_fix_evidence.json holds, for each stack fix, where upstream was seen to define its
    // `names`: repository, commit, path and line (identifiers and locations only, no upstream text).
    // knowledge/tools/check_stack_fix_sources.py re-checks the records against local git mirrors.
    using nlohmann::json;
    std::ifstream in(std::string(DENPEX_SOURCE_DIR) + "/knowledge/sources/stack_fix_evidence.json");
    REQUIRE(in);
    const json doc = json::parse(in);
    REQUIRE(doc.contains("records"));
    REQUIRE(doc["records"].is_array());
    auto is_hex40 = [](const std::string& s) {
        return s.size() == 40 && std::all_of(s.begin(), s.end(), [](unsigned char c) {
                   return std::isdigit(c) || (c >= 'a' && c <= 'f');
               });
    };
    std::map<std::pair<std::string, std::size_t>, const json*> by_fix;
    for (const auto& r : doc["records"]) {
        INFO(r.dump());
        REQUIRE(r.is_object());
        for (const char* key : {"entry", "stack", "source", "identifier", "repo", "commit", "path"})
            REQUIRE_MESSAGE((r.contains(key) && r[key].is_string() && !r[key].get<std::string>().empty()),
                            "record lacks \"" << key << "\"");
        REQUIRE(r.contains("fix"));
        REQUIRE(r["fix"].is_number_unsigned());
        CHECK_MESSAGE(is_hex40(r["commit"].get<std::string>()), "commit must be a full 40-digit hash");
        CHECK(r["repo"].get<std::string>().find('/') != std::string::npos);
        if (r.contains("line")) CHECK((r["line"].is_number_unsigned() && r["line"].get<unsigned>() > 0));
        // git-mirror: found with git grep in a full clone (the line is exact); file-index: read in a stored copy of the
        // file at that commit (no line).
        const std::string checked = r.value("checked", std::string());
        CHECK_MESSAGE((checked == "git-mirror" || checked == "file-index"), "\"checked\" is git-mirror or file-index");
        if (checked == "git-mirror") CHECK_MESSAGE(r.contains("line"), "a git-mirror record has a line");
        if (r.contains("spelled")) CHECK((r["spelled"].is_string() && !r["spelled"].get<std::string>().empty()));
        const bool fresh = by_fix.emplace(std::make_pair(r["entry"].get<std::string>(), r["fix"].get<std::size_t>()), &r).second;
        CHECK_MESSAGE(fresh, "two records for one stack fix");
    }
    std::size_t fixes = 0;
    std::set<std::pair<std::string, std::size_t>> used;
    for (const auto& e : builtin().entries()) {
        if (!e->depth.stack_fixes) continue;
        for (std::size_t i = 0; i < e->depth.stack_fixes->size(); ++i) {
            const StackFix& f = (*e->depth.stack_fixes)[i];
            ++fixes;
            INFO(e->id << " stack_fixes[" << i << "] " << f.names);
            const auto it = by_fix.find({e->id, i});
            CHECK_MESSAGE(it != by_fix.end(), "no evidence record in knowledge/sources/stack_fix_evidence.json");
            if (it == by_fix.end()) continue;
            used.insert(it->first);
            const json& r = *it->second;
            CHECK(r["stack"].get<std::string>() == std::string(to_string(f.stack)));
            CHECK_MESSAGE(r["source"].get<std::string>() == f.source, "the record's source is not the fix's cited source");
            CHECK_MESSAGE(r["identifier"].get<std::string>() == f.names, "the record's identifier is not the fix's names");
        }
    }
    CHECK(fixes >= 200);
    for (const auto& kv : by_fix) {
        INFO(kv.first.first << " stack_fixes[" << kv.first.second << "]");
        CHECK_MESSAGE(used.count(kv.first), "evidence record for a stack fix that does not exist");
    }
}

TEST_CASE("knowledge: the on-call fields are validated when present, and a team's entry may omit them") {
    const std::string head = R"J({"id":"team-x","title":"t","category":"Software","severity":"error","what":"w",
      "mechanism":"m","confirm":["c"],"fix":[{"text":"f"}],"verify":"v","sources":["doc A"],
      "signatures":[{"id":"s","role":"initiating","pattern":"boom","examples":["boom"],"source":"src"}])J";
    auto load = [&](const std::string& extra, std::vector<std::string>& problems) {
        KnowledgeBase kb;
        return kb.add_json(head + extra + "}", "team/x.json", problems);
    };
    auto problem_with = [&](const std::string& extra, const std::string& expected) {
        std::vector<std::string> problems;
        CHECK_FALSE(load(extra, problems));
        INFO(extra);
        CHECK_MESSAGE(std::any_of(problems.begin(), problems.end(),
                                  [&](const std::string& p) { return p.find(expected) != std::string::npos; }),
                      joined(problems));
    };
    std::vector<std::string> problems;
    CHECK(load("", problems));   // a team's entry without the fields is accepted as it is
    CHECK(problems.empty());
    const std::string good = R"J(,"discriminator":{"kind":"configuration","tells_apart":"x"},
      "cheapest_confirmation":{"text":"look","command":"true"},
      "fingerprint":{"re2":"bo+m","grep":"bo+m"},
      "stack_fixes":[{"stack":"hf-trainer","names":"ddp_timeout","snippet":"TrainingArguments(ddp_timeout=600)",
                      "versions":">=4.30","source":"doc A"}])J";
    problems.clear();
    CHECK(load(good, problems));
    CHECK_MESSAGE(problems.empty(), joined(problems));
    {
        KnowledgeBase kb;
        REQUIRE(kb.add_json(head + good + "}", "team/x.json", problems));
        const Entry& e = *kb.find("team-x");
        CHECK(e.depth.missing().empty());
        CHECK(e.depth.discriminator->kind == CauseKind::configuration);
        REQUIRE(e.depth.stack_fixes->size() == 1);
        CHECK(e.depth.stack_fixes->front().stack == Stack::hf_trainer);
        CHECK(e.depth.fixes_for(Stack::hf_trainer).size() == 1);
        CHECK(e.depth.fixes_for(Stack::deepspeed).empty());
    }
    problem_with(R"J(,"discriminator":{"kind":"cosmic","tells_apart":"x"})J", "\"kind\" must be");
    problem_with(R"J(,"discriminator":{"kind":"hardware"})J", "missing \"tells_apart\"");
    problem_with(R"J(,"cheapest_confirmation":{"command":"true"})J", "missing \"text\"");
    problem_with(R"J(,"fingerprint":{"re2":"(unclosed","grep":"x"})J", "\"re2\" does not compile");
    problem_with(R"J(,"fingerprint":{"re2":"x\\d","grep":"x\\d"})J", "not POSIX ERE");
    problem_with(R"J(,"stack_fixes":[{"stack":"keras","names":"a","snippet":"a","source":"doc A"}])J", "unknown stack");
    problem_with(R"J(,"stack_fixes":[{"stack":"deepspeed","names":"timeout","snippet":"init()","source":"doc A"}])J",
                 "does not contain \"names\"");
    problem_with(R"J(,"stack_fixes":[{"stack":"deepspeed","names":"timeout","snippet":"init(timeout=t)","source":"doc B"}])J",
                 "not one of the entry's \"sources\"");
    problem_with(R"J(,"stack_fixes":{})J", "must be an array");
}

TEST_CASE("knowledge: grep fingerprints are POSIX ERE") {
    for (const char* ok : {"CUDA out of memory\\. Tried", "Xid[[:space:]]*\\(PCI:[0-9a-f:.]+\\): (48|63|64)",
                           "a{2,3}b", "[]a]", "[^]a]x", "(a|b)*c", "\\[rank[0-9]+\\]", "x[[:alpha:]_]+"})
        CHECK_MESSAGE(!non_posix_construct(ok), ok);
    for (const char* bad : {"\\d+", "a\\s+b", "(?:a|b)", "(?i)x", "a.*?b", "a+?", "[\\d]", "\\bword", "(a)\\1",
                            "*x", "[unclosed", "trailing\\"})
        CHECK_MESSAGE(non_posix_construct(bad).has_value(), bad);
}
