// Position encodings: UTF-16 (default), UTF-8 and UTF-32 columns over non-ASCII lines.
#include <doctest/doctest.h>

#include <string>

#include "server/protocol/line_index.hpp"
#include "server/protocol/position_encoding.hpp"

using namespace denpex::server;

TEST_CASE("column counts per encoding") {
    const std::string line = "a\xC3\xA9\xE6\x95\xB0\xF0\x9F\x9A\x80z";   // a é 数 🚀 z
    CHECK(line_length(line, PositionEncoding::utf8) == 11);
    CHECK(line_length(line, PositionEncoding::utf16) == 6);   // 🚀 is a surrogate pair
    CHECK(line_length(line, PositionEncoding::utf32) == 5);
    CHECK(column_of_byte(line, 3, PositionEncoding::utf16) == 2);   // after é
    CHECK(column_of_byte(line, 6, PositionEncoding::utf16) == 3);   // after 数
    CHECK(column_of_byte(line, 10, PositionEncoding::utf16) == 5);  // after 🚀
    CHECK(column_of_byte(line, 10, PositionEncoding::utf32) == 4);
}

TEST_CASE("byte offsets of columns, clamped and rounded down inside characters") {
    const std::string line = "a\xC3\xA9\xF0\x9F\x9A\x80z";   // a é 🚀 z
    CHECK(byte_of_column(line, 0, PositionEncoding::utf16) == 0);
    CHECK(byte_of_column(line, 2, PositionEncoding::utf16) == 3);
    CHECK(byte_of_column(line, 3, PositionEncoding::utf16) == 3);   // between the surrogates: the pair's start
    CHECK(byte_of_column(line, 4, PositionEncoding::utf16) == 7);
    CHECK(byte_of_column(line, 99, PositionEncoding::utf16) == line.size());
    CHECK(byte_of_column(line, 2, PositionEncoding::utf8) == 1);    // inside é: its start
    CHECK(byte_of_column(line, 3, PositionEncoding::utf8) == 3);
    CHECK(column_of_byte(line, 2, PositionEncoding::utf16) == 1);   // byte inside é rounds down
}

TEST_CASE("round trip at every character boundary, every encoding") {
    const std::string line = "x\xE2\x9A\xA0 \xC3\xA9\xC3\xA7h\xC3\xA9\x63: \xE6\x95\xB0\xE6\x8D\xAE \xF0\x9F\x9A\x80 ok";
    for (auto e : {PositionEncoding::utf8, PositionEncoding::utf16, PositionEncoding::utf32}) {
        for (std::size_t b = 0; b <= line.size(); ++b) {
            if (b < line.size() && (static_cast<unsigned char>(line[b]) & 0xC0) == 0x80) continue;
            CHECK(byte_of_column(line, column_of_byte(line, b, e), e) == b);
        }
    }
}

TEST_CASE("invalid UTF-8 counts one unit per byte and never breaks a conversion") {
    const std::string line = "a\xFF\xC3(b\xE6\x95";   // stray byte, truncated 2-byte, truncated 3-byte at the end
    CHECK(line_length(line, PositionEncoding::utf16) == 7);
    CHECK(line_length(line, PositionEncoding::utf8) == 7);
    for (std::size_t c = 0; c <= 8; ++c) CHECK(byte_of_column(line, c, PositionEncoding::utf16) == std::min<std::size_t>(c, 7));
    // Surrogates encoded in UTF-8 (CESU) and overlong forms are invalid too.
    CHECK(line_length("\xED\xA0\x80", PositionEncoding::utf16) == 3);
    CHECK(line_length("\xC0\xAF", PositionEncoding::utf16) == 2);
}

TEST_CASE("names of encodings") {
    CHECK(parse_position_encoding("utf-8") == PositionEncoding::utf8);
    CHECK(parse_position_encoding("utf-16") == PositionEncoding::utf16);
    CHECK(!parse_position_encoding("utf8"));
    CHECK(to_string(PositionEncoding::utf32) == "utf-32");
}

TEST_CASE("LineIndex: LF, CRLF and lone CR each end an editor line") {
    const std::string text = "one\ntwo\r\nthree\rfour";
    LineIndex idx(text);
    REQUIRE(idx.line_count() == 4);
    CHECK(idx.line(0) == "one");
    CHECK(idx.line(1) == "two");
    CHECK(idx.line(2) == "three");
    CHECK(idx.line(3) == "four");
    CHECK(idx.line(9).empty());
    CHECK(idx.offset_of({1, 2}, PositionEncoding::utf16) == 6);
    CHECK(idx.offset_of({1, 50}, PositionEncoding::utf16) == 7);   // past the end of the line: its end (before CR)
    CHECK(idx.offset_of({9, 0}, PositionEncoding::utf16) == text.size());
    CHECK(idx.position_of(6, PositionEncoding::utf16) == Position{1, 2});
    CHECK(idx.position_of(999, PositionEncoding::utf16) == Position{3, 4});
}

TEST_CASE("LineIndex: engine lines (split on LF only) map to whole editor lines") {
    const std::string text = "a\xC3\xA9\xF0\x9F\x9A\x80\nsecond\r\n";   // aé🚀
    LineIndex idx(text);
    auto r1 = idx.engine_line_range(1, PositionEncoding::utf16);
    REQUIRE(r1);
    CHECK(*r1 == Range{{0, 0}, {0, 4}});
    CHECK(*idx.engine_line_range(1, PositionEncoding::utf8) == Range{{0, 0}, {0, 7}});
    CHECK(*idx.engine_line_range(2, PositionEncoding::utf16) == Range{{1, 0}, {1, 6}});   // CR not included
    CHECK(!idx.engine_line_range(3, PositionEncoding::utf16));   // the empty "line" after the last LF
    CHECK(!idx.engine_line_range(0, PositionEncoding::utf16));
    CHECK(idx.engine_line_text(2) == "second\r");
    CHECK(idx.engine_line_of(1) == 2);
}

TEST_CASE("LineIndex: a progress-bar line with CR redraws is one engine line over several editor lines") {
    const std::string text = "start\n 10%\r 50%\r100% done\nerror here\n";
    LineIndex idx(text);
    CHECK(idx.line_count() == 6);
    auto r = idx.engine_line_range(2, PositionEncoding::utf16);
    REQUIRE(r);
    CHECK(*r == Range{{1, 0}, {3, 9}});
    CHECK(*idx.engine_line_range(3, PositionEncoding::utf16) == Range{{4, 0}, {4, 10}});
    CHECK(idx.engine_line_of(2) == 2);   // editor line " 50%" is inside engine line 2
    CHECK(idx.engine_line_of(4) == 3);
    CHECK(idx.engine_line_text(3) == "error here");
}

TEST_CASE("LineIndex: empty text and a last line without newline") {
    LineIndex empty("");
    CHECK(empty.line_count() == 1);
    CHECK(empty.position_of(0, PositionEncoding::utf16) == Position{0, 0});
    LineIndex last("x\ny");
    CHECK(*last.engine_line_range(2, PositionEncoding::utf16) == Range{{1, 0}, {1, 1}});
}
