// Hostile team knowledge (issue 10): a team's entry that is well formed but unsafe is refused with a warning, never
// silently, and never switches off the built-in matching.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "engine/knowledge.hpp"
#include "engine/matcher.hpp"

using namespace denpex;

namespace {

std::string team_entry(const std::string& id, const std::string& pattern, const std::string& sig_id = "s",
                       const std::string& title = "Team entry") {
    return R"({"id":")" + id + R"(","title":")" + title + R"(","category":"Software","severity":"error",
      "what":"w","mechanism":"m","confirm":["c"],"fix":[{"text":"f"}],"verify":"v",
      "signatures":[{"id":")" + sig_id + R"(","role":"initiating","pattern":")" + pattern +
           R"(","examples":["x"],"source":"src"}]})";
}

const char* const kOomLine = "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB";

bool matches_entry(const Matcher& m, std::string_view line, std::string_view id) {
    for (const Hit& h : m.match(line))
        if (h.signature->entry->id == id) return true;
    return false;
}

}  // namespace

TEST_CASE("hostile knowledge: a duplicate id is refused with a warning; the first entry stays, built-ins are never replaced") {
    std::vector<std::string> problems;
    KnowledgeBase kb = KnowledgeBase::load_embedded(problems);
    REQUIRE(problems.empty());
    const Entry* builtin = kb.find("watchdog-timeout-silent-oom");
    REQUIRE(builtin);
    const std::string builtin_title = builtin->title;

    CHECK_FALSE(kb.add_json(team_entry("watchdog-timeout-silent-oom", "team boom", "s", "Hijacked"), "team/a.json", problems));
    CHECK(problems.empty());
    REQUIRE(kb.warnings().size() == 1);
    CHECK(kb.warnings()[0].find("team/a.json") != std::string::npos);
    CHECK(kb.warnings()[0].find("built-in") != std::string::npos);
    CHECK(kb.find("watchdog-timeout-silent-oom")->title == builtin_title);
    CHECK(kb.find("watchdog-timeout-silent-oom")->builtin);

    CHECK(kb.add_json(team_entry("team-disk", "No space left on device", "s", "First"), "team/b.json", problems));
    CHECK_FALSE(kb.add_json(team_entry("team-disk", "Disk quota exceeded", "s", "Second"), "team/c.json", problems));
    CHECK(problems.empty());
    REQUIRE(kb.warnings().size() == 2);
    CHECK(kb.warnings()[1].find("team/c.json") != std::string::npos);
    CHECK(kb.warnings()[1].find("team/b.json") != std::string::npos);   // names where the id was taken
    CHECK(kb.find("team-disk")->title == "First");
    std::size_t n = 0;
    for (const auto& e : kb.entries()) n += e->id == "team-disk";
    CHECK(n == 1);
}

TEST_CASE("hostile knowledge: an id too long or with bytes outside [a-z0-9-] is refused with a warning") {
    KnowledgeBase kb;
    std::vector<std::string> problems;
    const std::string long_id(300, 'a');
    CHECK_FALSE(kb.add_json(team_entry(long_id, "boom"), "team/long.json", problems));
    CHECK_FALSE(kb.add_json(team_entry("Team_Disk", "boom"), "team/upper.json", problems));
    CHECK_FALSE(kb.add_json(team_entry("../../etc/passwd", "boom"), "team/path.json", problems));
    CHECK_FALSE(kb.add_json(team_entry("ok-id", "boom", "bad sig id"), "team/sig.json", problems));
    CHECK(problems.empty());
    REQUIRE(kb.warnings().size() == 4);
    CHECK(kb.warnings()[0].find("team/long.json") != std::string::npos);
    CHECK(kb.warnings()[0].find("300 bytes") != std::string::npos);   // the warning does not print the whole id
    CHECK(kb.warnings()[0].size() < 300);
    CHECK(kb.warnings()[2].find("etc/passwd") == std::string::npos);   // the shown id has no '/'
    CHECK(kb.entries().empty());
    // The longest id allowed is still taken.
    CHECK(kb.add_json(team_entry(std::string(KnowledgeBase::kMaxIdBytes, 'b'), "boom"), "team/max.json", problems));
    CHECK(valid_knowledge_id("watchdog-timeout-silent-oom"));
    CHECK_FALSE(valid_knowledge_id(""));
    CHECK_FALSE(valid_knowledge_id(std::string(KnowledgeBase::kMaxIdBytes + 1, 'b')));
    // Every built-in id (entries and signatures) follows the rule.
    KnowledgeBase builtin = KnowledgeBase::load_embedded(problems);
    CHECK(problems.empty());
    for (const auto& e : builtin.entries()) {
        CHECK_MESSAGE(valid_knowledge_id(e->id), e->id);
        for (const auto& s : e->signatures) CHECK_MESSAGE(valid_knowledge_id(s.id), e->id << " / " << s.id);
    }
}

TEST_CASE("hostile knowledge: a pattern whose automaton grows with the text is refused; ordinary ones are kept") {
    KnowledgeBase kb;
    std::vector<std::string> problems;
    CHECK_FALSE(kb.add_json(team_entry("team-slow", "[a-z].{30}[0-9]{3}z"), "team/slow.json", problems));
    CHECK(problems.empty());
    REQUIRE(kb.warnings().size() == 1);
    CHECK(kb.warnings()[0].find("team/slow.json") != std::string::npos);
    CHECK(kb.warnings()[0].find("too costly") != std::string::npos);
    CHECK(costly_pattern("[a-z].{30}[0-9]{3}z"));
    for (const char* ok : {"No space left on device", R"(CUDA out of memory\. Tried to allocate (?P<size>[0-9.]+ [GMK]iB))",
                           "(?i)error.*(?:nccl|cuda).*(?:timeout|failed)", R"(SeqNum=(?P<seq>\d+))", R"(\pL{80})"})
        CHECK_MESSAGE(!costly_pattern(ok), ok);
    CHECK(kb.add_json(team_entry("team-disk", "No space left on device"), "team/disk.json", problems));
    CHECK(kb.warnings().size() == 1);
}

TEST_CASE("hostile knowledge: team patterns too big for one matcher degrade with a warning; built-in matching keeps working") {
    std::vector<std::string> problems;
    KnowledgeBase kb = KnowledgeBase::load_embedded(problems);
    REQUIRE(problems.empty());
    // Each entry compiles on its own (~12k RE2 instructions); three of them do not fit a 1 MiB team set.
    for (int i = 0; i < 4; ++i)
        REQUIRE(kb.add_json(team_entry("team-big-" + std::to_string(i), "big" + std::to_string(i) + R"( \\pL{10})"),
                            "team/big" + std::to_string(i) + ".json", problems));
    REQUIRE(problems.empty());
    CHECK(kb.warnings().empty());
    Matcher m(kb, 1 << 20);
    REQUIRE(m.warnings().size() == 1);
    CHECK(m.warnings()[0].find("not matched") != std::string::npos);
    CHECK(m.warnings()[0].find("team-big-3") != std::string::npos);
    // Built-in matching is untouched, and the team entries that fit are still matched.
    CHECK(matches_entry(m, kOomLine, "cuda-oom"));
    CHECK(matches_entry(m, "big0 abcdefghijkl", "team-big-0"));
    CHECK_FALSE(matches_entry(m, "big3 abcdefghijkl", "team-big-3"));

    // With the default limit they all fit, and nothing is said.
    Matcher roomy(kb);
    CHECK(roomy.warnings().empty());
    CHECK(matches_entry(roomy, "big3 abcdefghijkl", "team-big-3"));
    CHECK(matches_entry(roomy, kOomLine, "cuda-oom"));
}

TEST_CASE("hostile knowledge: the engine lists refused team entries first in the report's warnings and still diagnoses") {
    std::vector<std::string> problems;
    KnowledgeBase kb = KnowledgeBase::load_embedded(problems);
    kb.add_json(team_entry("team-slow", "[a-z].{30}[0-9]{3}z"), "team/slow.json", problems);
    kb.add_json(team_entry("cuda-oom", "hijack"), "team/dup.json", problems);
    REQUIRE(problems.empty());
    Engine engine(std::move(kb));
    REQUIRE(engine.knowledge_warnings().size() == 2);
    DiagnoseInput input;
    input.texts.emplace_back("rank3.log", std::string(kOomLine) + "\n");
    Report r = engine.diagnose(input);
    REQUIRE(r.warnings.size() >= 2);
    CHECK(r.warnings[0].rfind("knowledge: team/slow.json", 0) == 0);
    CHECK(r.warnings[1].rfind("knowledge: team/dup.json", 0) == 0);
    REQUIRE_FALSE(r.diagnoses.empty());
}
