// GrowingText (engine/growing_text.hpp): a text read in two steps, its first lines and then the lines appended,
// gives the Report Engine::read gives for the whole text read at once, on every corpus log; a changed prefix, an
// unfinished last line and a hard-wrapped text are declined, never read wrongly.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "engine/growing_text.hpp"
#include "engine/report.hpp"
#include "embedded_engine.hpp"
#include "wrapped_terminal_text.hpp"

using namespace denpex;

namespace {

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string report_of(Timeline t) { return to_json(engine().reason_over_parts({std::move(t)}, {})).dump(); }

// n numbered lines of job output (a rank prefix, a step), each ending in "\n".
std::string steps(int from, int n) {
    std::string s;
    for (int i = from; i < from + n; ++i) s += "[rank1]: step " + std::to_string(i) + " loss 2.31\n";
    return s;
}

}  // namespace

TEST_CASE("growing text: read in two steps, every corpus log gives the report of one read") {
    std::size_t compared = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(std::string(DENPEX_SOURCE_DIR) + "/tests/corpus")) {
        if (!entry.is_regular_file() || entry.path().extension() == ".json" || entry.path().extension() == ".md") continue;
        // Past the probe window, so the split is one GrowingText takes: a prefix of job output, then the log.
        const std::string text = steps(0, 450) + read_file(entry.path());
        if (text.back() != '\n') continue;
        const std::string name = entry.path().filename().string();
        const std::string whole = report_of(engine().read({{name, "", text}}));
        // Split after the prefix and at the log's middle line.
        std::size_t middle = text.find('\n', steps(0, 450).size() + (text.size() - steps(0, 450).size()) / 2);
        if (middle == std::string::npos || middle + 1 >= text.size()) middle = steps(0, 450).size() - 1;
        auto growing = GrowingText::open(engine().matcher(), name, "", text.substr(0, middle + 1));
        if (!growing) continue;   // hard-wrapped: declined, read whole by the caller
        REQUIRE(growing->read_to(text.substr(0, middle + 1), nullptr, {}) == GrowingText::Outcome::read);
        REQUIRE(growing->read_to(text, nullptr, {}) == GrowingText::Outcome::read);
        INFO(entry.path().string());
        CHECK(report_of(growing->snapshot()) == whole);
        ++compared;
    }
    CHECK(compared > 100);
}

TEST_CASE("growing text: a changed prefix, an unfinished line, a short text and a hard-wrapped text are declined") {
    const std::string first = steps(0, 500);
    auto g = GrowingText::open(engine().matcher(), "a.log", "", first);
    REQUIRE(g);
    REQUIRE(g->read_to(first, nullptr, {}) == GrowingText::Outcome::read);
    std::string edited = first;
    edited[10] = 'X';   // an edit inside what was read
    CHECK(g->read_to(edited + steps(500, 3), nullptr, {}) == GrowingText::Outcome::declined);
    CHECK(g->read_to(first + "[rank1]: step 500", nullptr, {}) == GrowingText::Outcome::declined);   // unfinished
    CHECK(g->read_to(first.substr(0, first.size() / 2), nullptr, {}) == GrowingText::Outcome::declined);   // shorter
    CHECK(g->bytes_read() == first.size());
    CHECK(g->read_to(first + steps(500, 3), nullptr, {}) == GrowingText::Outcome::read);   // still usable
    CHECK(g->bytes_read() == first.size() + steps(500, 3).size());

    // Fewer lines than the hard-wrap probe's window: what is appended could change the probe's decision.
    auto short_text = GrowingText::open(engine().matcher(), "b.log", "", steps(0, 10));
    REQUIRE(short_text);
    REQUIRE(short_text->read_to(steps(0, 10), nullptr, {}) == GrowingText::Outcome::read);
    CHECK(short_text->read_to(steps(0, 20), nullptr, {}) == GrowingText::Outcome::declined);

    CHECK_FALSE(GrowingText::open(engine().matcher(), "c.log", "", "no newline at the end"));
    CHECK_FALSE(GrowingText::open(engine().matcher(), "d.log", "", wrapped_terminal_text()));
}

TEST_CASE("growing text: a cancelled read leaves it unusable") {
    const std::string text = steps(0, 20000);
    auto g = GrowingText::open(engine().matcher(), "a.log", "", text);
    REQUIRE(g);
    std::atomic<bool> cancel{true};
    CHECK(g->read_to(text, &cancel, {}) == GrowingText::Outcome::cancelled);
    CHECK(g->read_to(text, nullptr, {}) == GrowingText::Outcome::declined);
}
