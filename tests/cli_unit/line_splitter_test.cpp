// LineSplitter (follow/line_splitter.hpp): lines complete across pieces, an unfinished line waits, a long line is
// cut once and its rest dropped, and what is held stays bounded.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "follow/line_splitter.hpp"
#include "cli/watch_options.hpp"

using namespace denpex;
using namespace denpex::cli;

TEST_CASE("line splitter: pieces, unfinished lines, cut lines") {
    LineSplitter s(8);
    std::vector<std::pair<std::string, bool>> got;
    auto sink = [&](std::string_view l, bool cut) { got.emplace_back(std::string(l), cut); };
    s.append("ab", sink);
    CHECK(got.empty());
    s.append("c\nde\n\nf", sink);
    REQUIRE(got.size() == 3);
    CHECK(got[0].first == "abc");
    CHECK(got[1].first == "de");
    CHECK(got[2].first.empty());
    s.append("0123456789xyz\nok\n", sink);   // "f0123456789xyz" is longer than 8
    REQUIRE(got.size() == 5);
    CHECK(got[3] == std::make_pair(std::string("f0123456"), true));
    CHECK(got[4] == std::make_pair(std::string("ok"), false));
    CHECK(s.pending() == 0);
    s.append("tail", sink);
    s.finish(sink);
    CHECK(got.back().first == "tail");
}

TEST_CASE("watch options: each parses; errors are one sentence") {
    WatchCliOptions o;
    CHECK_FALSE(parse_watch_options({"--json", "--exec=echo hi", "--from-end", "--knowledge", "kb", "--no-mask",
                                     "--mask-hosts", "logs/", "-"}, o));
    CHECK(o.format == WatchFormat::json_lines);
    CHECK(o.exec == std::optional<std::string>("echo hi"));
    CHECK(o.from_end);
    CHECK(o.paths == std::vector<std::string>{"logs/", "-"});
    WatchCliOptions bad;
    CHECK(parse_watch_options({}, bad).has_value());
    CHECK(parse_watch_options({"--frobnicate", "x"}, bad).has_value());
    CHECK(parse_watch_options({"--exec"}, bad).has_value());
    for (const char* opt : {"--json", "--exec", "--from-end", "--knowledge", "--no-mask", "--mask-hosts"})
        CHECK(watch_usage().find(opt) != std::string::npos);
}
