// Every entry's `fingerprint.grep` is run through the real `grep -E` (posix_spawn of /bin/grep, the lines on its
// stdin) against the example lines the fingerprint stands for, and must agree with `fingerprint.re2` line by line:
// the two forms are one alert for two kinds of monitoring system. At least one initiating or collateral example
// must match, so a fingerprint never alerts on context lines alone (an entry whose signatures are all context, such
// as a clock slowdown, needs one of its lines to match).
//
// Which lines: the entry's own signature examples; an entry without signatures (a scenario, a verdict) stands for
// the lines of the entries it names: its scenario's initiating and collateral entries, else its related entries.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <re2/re2.h>

#include "engine/knowledge.hpp"

extern char** environ;

using namespace denpex;

namespace {

const KnowledgeBase& builtin() {
    static std::vector<std::string> problems;
    static const KnowledgeBase kb = KnowledgeBase::load_embedded(problems);
    return kb;
}

struct ExampleLine {
    std::string text;
    bool failure = false;   // from an initiating or collateral signature
};

std::vector<ExampleLine> lines_of(const Entry& e) {
    std::vector<ExampleLine> out;
    for (const auto& s : e.signatures)
        for (const auto& x : s.examples) out.push_back({x, s.role != Role::context});
    return out;
}

std::vector<ExampleLine> fingerprint_lines(const KnowledgeBase& kb, const Entry& e) {
    if (!e.signatures.empty()) return lines_of(e);
    std::vector<std::string> named;
    if (e.scenario) {
        named = e.scenario->initiating;
        named.insert(named.end(), e.scenario->collateral.begin(), e.scenario->collateral.end());
    } else {
        named = e.related;
    }
    std::vector<ExampleLine> out;
    for (const auto& id : named)
        if (const Entry* other = kb.find(id))
            for (auto& l : lines_of(*other)) out.push_back(std::move(l));
    return out;
}

struct GrepResult {
    int status = -1;             // grep's exit status: 0 some line matched, 1 none, 2 an error
    std::set<std::size_t> matched;   // 0-based indices of the matching input lines
    std::string stderr_text;
};

// `grep -n -E -e PATTERN` with `lines` on stdin (a temporary file, so no pipe can fill while we write), in the
// C.UTF-8 locale so that `.` is one character, as in RE2.
GrepResult run_grep(const std::string& pattern, const std::vector<ExampleLine>& lines) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path();
    const std::string input = (dir / ("denpex-fp-in-" + std::to_string(::getpid()))).string();
    const std::string out_path = (dir / ("denpex-fp-out-" + std::to_string(::getpid()))).string();
    const std::string err_path = (dir / ("denpex-fp-err-" + std::to_string(::getpid()))).string();
    {
        std::ofstream in(input, std::ios::binary | std::ios::trunc);
        for (const auto& l : lines) in << l.text << "\n";
    }
    const char* grep = ::access("/bin/grep", X_OK) == 0 ? "/bin/grep" : "/usr/bin/grep";
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, input.c_str(), O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    std::vector<std::string> args = {grep, "-n", "-E", "-e", pattern};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_store = {"LC_ALL=C.UTF-8", "PATH=/usr/bin:/bin"};
    std::vector<char*> envp;
    for (auto& v : env_store) envp.push_back(v.data());
    envp.push_back(nullptr);
    GrepResult r;
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, grep, &fa, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&fa);
    if (spawned == 0) {
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0) {}
        r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    std::ifstream out(out_path);
    for (std::string l; std::getline(out, l);) {
        const std::size_t colon = l.find(':');
        if (colon != std::string::npos) r.matched.insert(std::stoul(l.substr(0, colon)) - 1);
    }
    std::ifstream err(err_path);
    std::stringstream ss;
    ss << err.rdbuf();
    r.stderr_text = ss.str();
    std::remove(input.c_str());
    std::remove(out_path.c_str());
    std::remove(err_path.c_str());
    return r;
}

}  // namespace

TEST_CASE("fingerprint: grep -E and RE2 agree on every example line, and some failure line matches") {
    const KnowledgeBase& kb = builtin();
    int checked = 0;
    for (const auto& e : kb.entries()) {
        if (!e->depth.fingerprint) continue;   // a missing field is the knowledge test's to report
        const Fingerprint& fp = *e->depth.fingerprint;
        INFO(e->id << "\n  re2:  " << fp.re2 << "\n  grep: " << fp.grep);
        const auto lines = fingerprint_lines(kb, *e);
        REQUIRE_MESSAGE(!lines.empty(), "no example lines to test the fingerprint against");
        REQUIRE(fp.regex);
        const GrepResult g = run_grep(fp.grep, lines);
        REQUIRE_MESSAGE(g.status >= 0, "could not run grep");
        CHECK_MESSAGE(g.status != 2, "grep -E rejected the pattern: " << g.stderr_text);
        bool failure_line = false;
        for (std::size_t i = 0; i < lines.size(); ++i) {
            const bool by_grep = g.matched.count(i) > 0;
            const bool by_re2 = RE2::PartialMatch(lines[i].text, *fp.regex);
            CHECK_MESSAGE(by_grep == by_re2, (by_grep ? "grep matches, RE2 does not: " : "RE2 matches, grep does not: ")
                                                 << lines[i].text);
            if (by_grep && by_re2 && lines[i].failure) failure_line = true;
        }
        // An entry of context lines only (a slowdown, a restart notice) has no failure line to match: any line counts.
        const bool has_failure_line = std::any_of(lines.begin(), lines.end(), [](const ExampleLine& l) { return l.failure; });
        if (!has_failure_line) failure_line = !g.matched.empty();
        CHECK_MESSAGE(failure_line, "the fingerprint matches no initiating or collateral example line");
        ++checked;
    }
    MESSAGE(checked << " fingerprints run through grep -E");
    CHECK(checked > 0);
}

TEST_CASE("fingerprint: the grep runner sees what grep sees") {
    const std::vector<ExampleLine> lines = {{"CUDA out of memory. Tried", true}, {"all fine", false}};
    GrepResult g = run_grep("out of memory\\. Tried", lines);
    CHECK(g.status == 0);
    CHECK(g.matched == std::set<std::size_t>{0});
    g = run_grep("nothing[[:space:]]here", lines);
    CHECK(g.status == 1);
    CHECK(g.matched.empty());
    g = run_grep("(unclosed", lines);
    CHECK(g.status == 2);
}
