// FrameParser: the LSP base protocol's framing ("Content-Length: N\r\n\r\n" + N bytes of body), with no I/O.
//
// Contract. Bytes go in through `feed()` in pieces of any size (one byte at a time, or many frames at once);
// complete message bodies and framing errors come out, in stream order, through `next()`. `finish()` marks
// the end of input: a frame cut short becomes a `truncated` error. The parser never throws.
//
// Leniency (modelled on clangd and quick-lint-js, with JSON-RPC-friendly recovery):
//   - header lines may end in CRLF or LF; header names are case-insensitive; unknown headers (Content-Type,
//     X-Anything) are ignored; a duplicate Content-Length: the last one wins; leading zeros are fine;
//   - a header line without a colon is reported (`malformed_header`) and skipped, and the frame goes on;
//   - garbage glued in front of "Content-Length:" on one line (the tail of a broken body) is reported and the
//     header is still used, so the next well-formed frame is not lost.
// Errors that leave the body's extent unknown (no Content-Length, a non-numeric or negative one, a header
// line longer than `max_header_line`) and a Content-Length above `max_body` are reported, and the parser then
// *resynchronises*: it discards bytes until the next "Content-Length:" and parses headers from there (after an
// over-long header line, the search starts inside that line, so a header glued to its end is found). The frames
// found do not depend on how the input is split into reads (a property test tries every split point). An
// oversized length is therefore never allocated nor trusted to skip input — a bogus
// "Content-Length: 99999999999999" cannot swallow the messages after it. (The cost: a genuine oversized message
// whose body contains the text "Content-Length:" may surface a spurious frame, which then fails JSON parsing.)
// Memory is bounded by the largest accepted body plus `max_header_line`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>

namespace denpex::server {

enum class FrameError {
    malformed_header,         // a header line without "name: value"; skipped, the frame goes on
    missing_content_length,   // the header block ended without a usable Content-Length; resynchronising
    invalid_content_length,   // not a non-negative decimal number; resynchronising at the end of the headers
    too_large,                // Content-Length above the configured limit; resynchronising
    header_too_long,          // a header line longer than the limit; resynchronising
    truncated,                // input ended inside a frame
};

const char* to_string(FrameError error);

struct FrameEvent {
    enum class Kind { message, error };
    Kind kind = Kind::message;
    std::string body;              // the message body (Kind::message)
    FrameError error{};            // Kind::error
    std::string detail;            // a sentence for the log (Kind::error)
};

struct FrameLimits {
    std::size_t max_body = std::size_t{256} << 20;   // bytes; `denpex serve --max-message-bytes`
    std::size_t max_header_line = 8192;
};

class FrameParser {
public:
    explicit FrameParser(FrameLimits limits = {});

    void feed(std::string_view bytes);
    void finish();
    // Pops the next event; false when none is ready.
    bool next(FrameEvent& out);

    // Bytes currently held (pending header bytes plus the partial body); for tests of the memory bound.
    std::size_t buffered_bytes() const { return buffer_.size() - pos_ + body_.size(); }

private:
    enum class State { headers, body, resync };

    void process();
    void finish_body();
    bool process_header_line(std::string_view line);
    void end_of_headers();
    void error(FrameError e, std::string detail);
    void compact();
    std::size_t pending() const { return buffer_.size() - pos_; }

    FrameLimits limits_;
    State state_ = State::headers;
    std::string buffer_;           // unconsumed input starts at pos_
    std::size_t pos_ = 0;
    // current frame
    bool saw_header_ = false;
    bool have_length_ = false;
    bool bad_length_ = false;
    bool length_overflow_ = false;
    std::uint64_t length_ = 0;
    std::string body_;
    std::uint64_t remaining_ = 0;
    bool finished_ = false;
    std::deque<FrameEvent> events_;
};

}  // namespace denpex::server
