// FrameParser: framing without I/O — split and coalesced frames, CRLF/LF, unknown headers, bad and huge
// Content-Length (never allocated), resynchronisation, truncation at EOF.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "server/transport/frame_parser.hpp"

using denpex::server::FrameError;
using denpex::server::FrameEvent;
using denpex::server::FrameLimits;
using denpex::server::FrameParser;

namespace {

std::string frame(const std::string& body, const std::string& eol = "\r\n") {
    return "Content-Length: " + std::to_string(body.size()) + eol + eol + body;
}

struct Out {
    std::vector<std::string> messages;
    std::vector<FrameError> errors;
};

Out drain(FrameParser& p) {
    Out o;
    FrameEvent ev;
    while (p.next(ev)) {
        if (ev.kind == FrameEvent::Kind::message) o.messages.push_back(ev.body);
        else o.errors.push_back(ev.error);
    }
    return o;
}

Out parse(const std::string& input, bool finish = true, FrameLimits limits = {}) {
    FrameParser p(limits);
    p.feed(input);
    if (finish) p.finish();
    return drain(p);
}

const std::string kA = R"({"jsonrpc":"2.0","id":1,"method":"a"})";
const std::string kB = R"({"jsonrpc":"2.0","method":"b","params":{"x":"é"}})";

}  // namespace

TEST_CASE("a full frame, and two frames coalesced in one read") {
    Out one = parse(frame(kA));
    CHECK(one.messages == std::vector<std::string>{kA});
    CHECK(one.errors.empty());
    Out two = parse(frame(kA) + frame(kB));
    CHECK(two.messages == std::vector<std::string>{kA, kB});
    CHECK(two.errors.empty());
}

TEST_CASE("frames split at every possible point, and fed one byte at a time") {
    const std::string input = frame(kA) + frame(kB) + frame(kA);
    for (std::size_t cut = 0; cut <= input.size(); ++cut) {
        FrameParser p;
        p.feed(input.substr(0, cut));
        p.feed(input.substr(cut));
        p.finish();
        Out o = drain(p);
        REQUIRE(o.messages.size() == 3);
        CHECK(o.errors.empty());
    }
    FrameParser p;
    for (char c : input) p.feed(std::string_view(&c, 1));
    p.finish();
    Out o = drain(p);
    CHECK(o.messages == std::vector<std::string>{kA, kB, kA});
}

TEST_CASE("LF-only line ends and a mix with CRLF") {
    CHECK(parse(frame(kA, "\n")).messages == std::vector<std::string>{kA});
    CHECK(parse("Content-Length: " + std::to_string(kA.size()) + "\r\n\n" + kA).messages == std::vector<std::string>{kA});
}

TEST_CASE("unknown headers are ignored, in any order; the name is case-insensitive; leading zeros are fine") {
    const std::string n = std::to_string(kA.size());
    Out a = parse("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: " + n + "\r\n\r\n" + kA);
    Out b = parse("content-length: " + n + "\r\nX-Test: 1\r\n\r\n" + kA);
    Out c = parse("CONTENT-LENGTH:   000" + n + "  \r\n\r\n" + kA);
    CHECK(a.messages == std::vector<std::string>{kA});
    CHECK(b.messages == std::vector<std::string>{kA});
    CHECK(c.messages == std::vector<std::string>{kA});
    CHECK((a.errors.empty() && b.errors.empty() && c.errors.empty()));
}

TEST_CASE("a duplicate Content-Length: the last one wins") {
    Out o = parse("Content-Length: 3\r\nContent-Length: " + std::to_string(kA.size()) + "\r\n\r\n" + kA);
    CHECK(o.messages == std::vector<std::string>{kA});
}

TEST_CASE("Content-Length 0 is an empty body; blank lines between frames are harmless") {
    Out o = parse("Content-Length: 0\r\n\r\n\r\n\r\n" + frame(kA));
    CHECK(o.messages == std::vector<std::string>{"", kA});
    CHECK(o.errors.empty());
}

TEST_CASE("a header line without a colon is reported and skipped; the frame still parses") {
    Out o = parse("garbage line\r\n" + frame(kA));
    CHECK(o.messages == std::vector<std::string>{kA});
    CHECK(o.errors == std::vector<FrameError>{FrameError::malformed_header});
}

TEST_CASE("missing Content-Length: reported, then the parser resynchronises on the next frame") {
    Out o = parse("Content-Type: x\r\n\r\n{\"jsonrpc\":\"2.0\"}" + frame(kA));
    CHECK(o.errors == std::vector<FrameError>{FrameError::missing_content_length});
    CHECK(o.messages == std::vector<std::string>{kA});
}

TEST_CASE("non-numeric and negative Content-Length are rejected and the next frame is found") {
    for (std::string bad : {"abc", "-5", "12x", "", "1.5", "0x10", "+3"}) {
        CAPTURE(bad);
        Out o = parse("Content-Length: " + bad + "\r\n\r\n{\"some\":\"body\"}" + frame(kA));
        CHECK(o.errors == std::vector<FrameError>{FrameError::invalid_content_length});
        CHECK(o.messages == std::vector<std::string>{kA});
    }
}

TEST_CASE("a huge Content-Length is refused without allocating it, and does not swallow the next frame") {
    FrameLimits limits;
    limits.max_body = 1 << 20;
    for (std::string huge : {"1048577", "999999999999", "99999999999999999999999999999"}) {
        CAPTURE(huge);
        FrameParser p(limits);
        p.feed("Content-Length: " + huge + "\r\n\r\n{\"partial\": ");
        CHECK(p.buffered_bytes() < 64);   // nothing reserved for the claimed size
        p.feed("\"body\"}" + frame(kA));
        p.finish();
        Out o = drain(p);
        CHECK(o.errors == std::vector<FrameError>{FrameError::too_large});
        CHECK(o.messages == std::vector<std::string>{kA});
    }
}

TEST_CASE("the body limit is configurable and inclusive") {
    FrameLimits limits;
    limits.max_body = kA.size();
    CHECK(parse(frame(kA), true, limits).messages.size() == 1);
    limits.max_body = kA.size() - 1;
    Out o = parse(frame(kA), true, limits);
    CHECK(o.messages.empty());
    CHECK(o.errors.front() == FrameError::too_large);
}

TEST_CASE("an overlong header line is refused and bounded in memory") {
    FrameLimits limits;
    limits.max_header_line = 100;
    FrameParser p(limits);
    p.feed(std::string(10000, 'x'));
    CHECK(p.buffered_bytes() < 200);
    p.feed("\r\n" + frame(kA));
    p.finish();
    Out o = drain(p);
    CHECK(o.errors.front() == FrameError::header_too_long);
    CHECK(o.messages == std::vector<std::string>{kA});
}

TEST_CASE("garbage glued in front of a header (the tail of a broken body) does not lose the frame") {
    Out o = parse("Content-Length: 5\r\n\r\n{\"a\":1}" + frame(kA));
    // The first frame takes 5 bytes ({"a":), the rest of the broken body is glued to the next header.
    REQUIRE(o.messages.size() == 2);
    CHECK(o.messages[0] == "{\"a\":");
    CHECK(o.messages[1] == kA);
    CHECK(o.errors == std::vector<FrameError>{FrameError::malformed_header});
}

TEST_CASE("split independence: a frame after an over-long garbage line with Content-Length glued to its end") {
    // Any split of the same bytes into two reads (and one byte at a time) gives the same frames as one read.
    const std::string garbage = std::string(9000, 'x') + "Content-Length: 3 junk: Content-Length:";
    for (const std::string& stream : {std::string(9000, 'g') + frame(kA) + frame(kB),
                                      garbage + " " + std::to_string(kA.size()) + "\r\n\r\n" + kA + frame(kB),
                                      std::string(8190, 'g') + "\r" + frame(kA),   // at the limit, '\r' split off
                                      std::string(8192, 'g') + "\r\n" + frame(kA)}) {
        const Out whole = parse(stream);
        CHECK(whole.messages.size() >= 1);
        CHECK(whole.messages.back() == (stream.size() > kB.size() && stream.ends_with(kB) ? kB : kA));
        for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
            FrameParser p;
            p.feed(std::string_view(stream).substr(0, cut));
            p.feed(std::string_view(stream).substr(cut));
            p.finish();
            const Out split = drain(p);
            if (split.messages != whole.messages) {
                CAPTURE(cut);
                CHECK(split.messages == whole.messages);
                break;
            }
        }
        FrameParser bytes;
        for (char c : stream) bytes.feed(std::string_view(&c, 1));
        bytes.finish();
        CHECK(drain(bytes).messages == whole.messages);
    }
}

TEST_CASE("input ending inside a frame is reported as truncated") {
    const std::string f = frame(kA);
    Out body = parse(f.substr(0, f.size() - 3));
    CHECK(body.messages.empty());
    CHECK(body.errors == std::vector<FrameError>{FrameError::truncated});
    Out header = parse("Content-Length: 12\r\n");
    CHECK(header.errors == std::vector<FrameError>{FrameError::truncated});
    Out partial = parse("Content-Len");
    CHECK(partial.errors == std::vector<FrameError>{FrameError::truncated});
    Out clean = parse(f + "\r\n");
    CHECK(clean.errors.empty());
    CHECK(clean.messages.size() == 1);
}

TEST_CASE("without finish(), a partial frame waits for more input") {
    const std::string f = frame(kA);
    FrameParser p;
    p.feed(f.substr(0, 10));
    Out o = drain(p);
    CHECK((o.messages.empty() && o.errors.empty()));
    p.feed(f.substr(10));
    CHECK(drain(p).messages.size() == 1);
}

TEST_CASE("bodies are passed through byte for byte (NUL, invalid UTF-8)") {
    const std::string body = std::string("{\"x\":\"a\0b\xff\"}", 13);
    Out o = parse(frame(body));
    REQUIRE(o.messages.size() == 1);
    CHECK(o.messages[0] == body);
}
