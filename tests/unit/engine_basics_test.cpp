// Unit tests of the engine's small pieces: normalisation, line reading, version ranges, matching captures.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <unistd.h>
#include <stdlib.h>

#include "engine/knowledge.hpp"
#include "engine/line_reader.hpp"
#include "engine/matcher.hpp"
#include "engine/normalize.hpp"
#include "engine/version_range.hpp"

using namespace denpex;

TEST_CASE("normalize: ANSI colours, CRLF, progress-bar carriage returns, NUL, invalid UTF-8") {
    std::string out;
    CHECK(normalize("\x1b[31m[rank3]: RuntimeError\x1b[0m: boom\r", out));
    CHECK(out == "[rank3]: RuntimeError: boom");
    CHECK(normalize("Epoch 0:  10%|#   |\rEpoch 0:  20%|##  |\r[E ProcessGroupNCCL.cpp:475] [Rank 1] Watchdog", out));
    CHECK(out == "Epoch 0:  10%|#   | Epoch 0:  20%|##  | [E ProcessGroupNCCL.cpp:475] [Rank 1] Watchdog");
    CHECK(normalize(std::string("a\0b", 3), out));
    CHECK(out == "a b");
    CHECK(normalize("caf\xc3\xa9 \xff\xfe ok \xe2\x82", out));
    CHECK(out == "caf\xc3\xa9 ?? ok ??");
    CHECK_FALSE(normalize("plain line, nothing to do", out));
    CHECK(out == "plain line, nothing to do");
    CHECK(normalize("\x1b]0;title\x07text", out));
    CHECK(out == "text");
    // An escape cut off at the end of the line must not read past it.
    CHECK(normalize("tail \x1b[", out));
    CHECK(out == "tail ");
}

TEST_CASE("line reader: lines across chunk boundaries, no final newline, overlong lines are cut not buffered") {
    std::string data = "first\r\nsecond\n\nlast-without-newline";
    LineReader r(std::string_view(data), 64);
    std::string_view line;
    bool truncated = false;
    std::vector<std::string> lines;
    while (r.next(line, truncated)) lines.emplace_back(line);
    REQUIRE(lines.size() == 4);
    CHECK(lines[0] == "first\r");
    CHECK(lines[2].empty());
    CHECK(lines[3] == "last-without-newline");

    std::string big(100, 'x');
    big += "\nnext\n";
    LineReader cut(std::string_view(big), 10);
    REQUIRE(cut.next(line, truncated));
    CHECK(truncated);
    CHECK(line.size() == 10);
    REQUIRE(cut.next(line, truncated));
    CHECK_FALSE(truncated);
    CHECK(line == "next");
}

TEST_CASE("line reader: file descriptor input with a 3 MB line spanning chunks") {
    char path[] = "/tmp/denpex-lr-XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    std::string content = "a\n" + std::string(3u << 20, 'y') + "\nz";
    REQUIRE(write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size()));
    lseek(fd, 0, SEEK_SET);
    LineReader r(fd, 1u << 20);
    std::string_view line;
    bool truncated = false;
    REQUIRE(r.next(line, truncated));
    CHECK(line == "a");
    REQUIRE(r.next(line, truncated));
    CHECK(truncated);
    CHECK(line.size() == (1u << 20));
    REQUIRE(r.next(line, truncated));
    CHECK(line == "z");
    CHECK_FALSE(r.next(line, truncated));
    close(fd);
    unlink(path);
}

TEST_CASE("version ranges") {
    auto lt20 = VersionRange::parse("<2.0");
    REQUIRE(lt20);
    CHECK(lt20->contains({1, 13}));
    CHECK_FALSE(lt20->contains({2, 0}));
    auto ge22 = VersionRange::parse(">=2.2");
    REQUIRE(ge22);
    CHECK(ge22->disjoint(*lt20));
    auto mid = VersionRange::parse("1.13-2.4");
    REQUIRE(mid);
    CHECK(mid->intersect(*ge22).str() == "2.2-2.4");
    CHECK(VersionRange::parse("2.5")->within(*ge22));
    CHECK_FALSE(VersionRange::parse("nonsense"));
    CHECK_FALSE(VersionRange::parse("2.4-2.1"));
    CHECK(lt20->str() == "<2.0");
}

TEST_CASE("matcher: one pass finds signatures, extracts captures, and drops fallbacks beside specific hits") {
    KnowledgeBase kb;
    std::vector<std::string> problems;
    auto entry = [](const char* id, const char* role, const char* pattern, bool fallback) {
        return std::string(R"({"id":")") + id + R"(","title":"t","category":"Collective","severity":"error",
          "what":"w","mechanism":"m","confirm":["c"],"fix":[{"text":"f"}],"verify":"v",
          "signatures":[{"id":"s","role":")" + role + R"(","pattern":")" + pattern + R"(","fallback":)" +
               (fallback ? "true" : "false") + R"(,"examples":["x"],"source":"src"}]})";
    };
    REQUIRE(kb.add_json(entry("timeout", "collateral", R"(SeqNum=(?P<seq>\\d+))", false), "a", problems));
    REQUIRE(kb.add_json(entry("exception", "initiating", R"(^\\S*Error: )", true), "b", problems));
    Matcher m(kb);
    auto hits = m.match("RuntimeError: WorkNCCL(SeqNum=31, OpType=ALLREDUCE) ran for 600031 milliseconds");
    REQUIRE(hits.size() == 1);
    CHECK(hits[0].signature->entry->id == "timeout");
    CHECK(hits[0].captures.at("seq") == "31");
    hits = m.match("KeyError: 'labels'");
    REQUIRE(hits.size() == 1);
    CHECK(hits[0].signature->entry->id == "exception");
    CHECK(m.match("all good").empty());
}
