// The literal prefilter never loses a match: every knowledge example line (as written, upper-cased and
// lower-cased) and every line of every corpus case is matched with the prefilter on and off, and the signatures
// found must be the same, line for line. A few hand-made patterns check the hard cases directly: (?i), character
// classes, alternations, patterns with no literal at all, and non-ASCII text.
#include <doctest/doctest.h>

#include <re2/re2.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "corpus_lines.hpp"
#include "engine/knowledge.hpp"
#include "engine/literal_prefilter.hpp"
#include "engine/matcher.hpp"
#include "engine/normalize.hpp"

using namespace denpex;
namespace fs = std::filesystem;

namespace {

const KnowledgeBase& kb() {
    static std::vector<std::string> problems;
    static const KnowledgeBase k = KnowledgeBase::load_embedded(problems);
    return k;
}

std::string ascii_case(std::string s, bool upper) {
    for (char& c : s) {
        if (upper && c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
        if (!upper && c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    }
    return s;
}


// Number of lines whose hits differ between the two matchers; the first few are reported.
std::size_t differences(const Matcher& on, const Matcher& off, const std::vector<std::string>& lines) {
    std::size_t diff = 0;
    std::string scratch;
    for (const std::string& raw : lines) {
        for (std::string_view text : {std::string_view(raw), normalized(raw, scratch)}) {
            if (on.matching_ids(text) == off.matching_ids(text)) continue;
            if (++diff <= 5) FAIL_CHECK("prefilter changes the hits of: " << text);
        }
    }
    return diff;
}

Signature signature(const std::string& pattern) {
    Signature s;
    s.pattern = pattern;
    s.regex = std::make_shared<RE2>(pattern);
    return s;
}

}  // namespace

TEST_CASE("prefilter: knowledge examples match the same signatures with and without it") {
    const Matcher on(kb()), off(kb(), Matcher::kTeamSetMaxMem, false);
    std::vector<std::string> lines;
    for (const auto& e : kb().entries())
        for (const auto& s : e->signatures)
            for (const auto& x : s.examples)
                for (const std::string& v : {x, ascii_case(x, true), ascii_case(x, false)}) lines.push_back(v);
    REQUIRE(lines.size() > 300);
    CHECK(differences(on, off, lines) == 0);
}

TEST_CASE("prefilter: every corpus line matches the same signatures with and without it") {
    const Matcher on(kb()), off(kb(), Matcher::kTeamSetMaxMem, false);
    const std::vector<std::string> lines = corpus_lines();
    REQUIRE(lines.size() > 10000);
    CHECK(differences(on, off, lines) == 0);
}

TEST_CASE("prefilter: case folding, classes, alternations and non-ASCII never rule out a matching line") {
    const std::vector<std::string> patterns = {
        R"((?i)cuda error: out of memory)", R"([Ee]rror code: [0-9]+)", R"(NCCL (?:WARN|ERROR) .*timeout)",
        R"(\bKilled process (?P<pid>\d+))", R"([A-Z][a-z]+Error: )", R"(^\s*\S+$)", R"((?i)straße)",
        R"((?i)ſignal)", R"(x{3,}y)", R"(a|bc|Def)"};
    const std::vector<std::string> lines = {
        "CUDA ERROR: OUT OF MEMORY", "cuda error: out of memory", "Error code: 12", "error code: 1",
        "NCCL WARN socket timeout", "nccl warn timeout", "Killed process 77", "ValueError: x", "single",
        "STRASSE", "STRAẞE", "Straße", "SIGNAL", "signal", "xxxy", "xxy", "Def", "DEF", "bc", "plain text",
        "caf\xc3\xa9 Error code: 7"};
    std::vector<Signature> sigs;
    for (const auto& p : patterns) sigs.push_back(signature(p));
    std::vector<const Signature*> ptrs;
    for (const auto& s : sigs) ptrs.push_back(&s);
    const LiteralPrefilter filter(ptrs);
    CHECK(filter.atoms() > 0);
    CHECK_FALSE(filter.filtered(5));   // ^\s*\S+$ has no literal: it runs on every line
    for (const auto& line : lines) {
        for (std::size_t i = 0; i < sigs.size(); ++i) {
            if (!filter.filtered(i) || !RE2::PartialMatch(line, *sigs[i].regex)) continue;
            CHECK_MESSAGE(filter.may_match(line), "pattern " << patterns[i] << " matches but is ruled out: " << line);
        }
    }
    // Atoms with non-ASCII bytes (straße) count as found in every line; without those patterns, a line with none
    // of the literals is ruled out and one with them is not.
    const std::vector<const Signature*> ascii_only(ptrs.begin(), ptrs.begin() + 4);
    const LiteralPrefilter ascii_filter(ascii_only);
    CHECK_FALSE(ascii_filter.may_match("plain text with nothing in it"));
    CHECK(ascii_filter.may_match("NCCL WARN ring timeout"));
    CHECK(ascii_filter.may_match("caf\xc3\xa9 nothing"));   // non-ASCII: never ruled out
}

TEST_CASE("prefilter: no built-in pattern runs on every line") {
    // A pattern the literals cannot rule out is run on every line of every log; two such patterns were ~15% of a
    // run (bench/results.md). A new pattern must carry a literal of kMinAtomLength bytes in each alternative.
    std::vector<const Signature*> sigs;
    for (const auto& e : kb().entries())
        for (const auto& s : e->signatures)
            if (s.regex) sigs.push_back(&s);
    const LiteralPrefilter filter(sigs);
    for (std::size_t i = 0; i < sigs.size(); ++i) {
        CAPTURE(sigs[i]->id);
        CHECK(filter.filtered(i));
    }
}
