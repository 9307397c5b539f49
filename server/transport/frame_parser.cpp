#include "server/transport/frame_parser.hpp"

#include <algorithm>
#include <limits>

namespace denpex::server {
namespace {

constexpr std::string_view kContentLength = "content-length";
constexpr std::string_view kResyncToken = "content-length:";

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (lower(a[i]) != lower(b[i])) return false;
    return true;
}

// Position of `needle` (lowercase) in `hay`, ignoring ASCII case; npos when absent.
std::size_t ifind(std::string_view hay, std::string_view needle, std::size_t from = 0) {
    if (needle.size() > hay.size()) return std::string_view::npos;
    for (std::size_t i = from; i + needle.size() <= hay.size(); ++i) {
        if (lower(hay[i]) != needle[0]) continue;
        std::size_t k = 1;
        while (k < needle.size() && lower(hay[i + k]) == needle[k]) ++k;
        if (k == needle.size()) return i;
    }
    return std::string_view::npos;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

bool is_token(std::string_view name) {
    if (name.empty()) return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    });
}

// Shows a header line in a log message: bounded and printable.
std::string quote(std::string_view s) {
    std::string out = "'";
    for (char c : s.substr(0, 80)) out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
    if (s.size() > 80) out += "...";
    return out + "'";
}

}  // namespace

const char* to_string(FrameError error) {
    switch (error) {
        case FrameError::malformed_header: return "malformed header";
        case FrameError::missing_content_length: return "missing Content-Length";
        case FrameError::invalid_content_length: return "invalid Content-Length";
        case FrameError::too_large: return "message too large";
        case FrameError::header_too_long: return "header line too long";
        case FrameError::truncated: return "truncated input";
    }
    return "framing error";
}

FrameParser::FrameParser(FrameLimits limits) : limits_(limits) {}

void FrameParser::feed(std::string_view in) {
    if (finished_) return;
    while (!in.empty()) {
        if (state_ == State::body && pending() == 0) {
            // Fast path: body bytes go straight from the input to the body, copied once.
            const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(in.size(), remaining_));
            body_.append(in.data(), take);
            remaining_ -= take;
            in.remove_prefix(take);
            if (remaining_ == 0) finish_body();
            continue;
        }
        buffer_.append(in.data(), in.size());
        in = {};
        process();
    }
}

// A complete body becomes a message event, and the parser waits for the next frame's headers.
void FrameParser::finish_body() {
    FrameEvent ev;
    ev.kind = FrameEvent::Kind::message;
    ev.body = std::move(body_);
    events_.push_back(std::move(ev));
    body_ = std::string();
    state_ = State::headers;
}

void FrameParser::process() {
    for (;;) {
        if (state_ == State::resync) {
            std::string_view rest(buffer_.data() + pos_, pending());
            const std::size_t at = ifind(rest, kResyncToken);
            if (at == std::string_view::npos) {
                // Keep only a tail that could be the start of the token split across feeds.
                const std::size_t keep = std::min(pending(), kResyncToken.size() - 1);
                pos_ = buffer_.size() - keep;
                break;
            }
            pos_ += at;
            state_ = State::headers;
            continue;
        }
        if (state_ == State::body) {
            const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(pending(), remaining_));
            body_.append(buffer_.data() + pos_, take);
            pos_ += take;
            remaining_ -= take;
            if (remaining_ > 0) break;
            finish_body();
            continue;
        }
        // headers
        std::string_view rest(buffer_.data() + pos_, pending());
        const std::size_t nl = rest.find('\n');
        // The line's length without its terminator, or a lower bound of it while its end has not arrived (a
        // final '\r' may be the terminator's first byte): the same line is too long whatever the reads' split.
        const std::size_t known = nl != std::string_view::npos ? nl - (nl > 0 && rest[nl - 1] == '\r' ? 1 : 0)
                                                               : rest.size() - (!rest.empty() && rest.back() == '\r' ? 1 : 0);
        if (known > limits_.max_header_line) {
            error(FrameError::header_too_long,
                  "a header line is longer than " + std::to_string(limits_.max_header_line) + " bytes");
            // Resynchronise from inside the line (its first byte skipped): a frame's header glued to the end of
            // a long garbage line is found, in one read or many.
            pos_ += 1;
            state_ = State::resync;
            continue;
        }
        if (nl == std::string_view::npos) break;
        std::string_view line = rest.substr(0, nl);
        pos_ += nl + 1;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty()) {
            end_of_headers();
            continue;
        }
        if (!process_header_line(line)) state_ = State::resync;
    }
    compact();
}

bool FrameParser::process_header_line(std::string_view line) {
    saw_header_ = true;
    // "<garbage>Content-Length: N": the tail of a broken body glued to the next frame's header. The garbage may
    // hold colons of its own, so look for the header name before splitting at the first colon.
    if (const std::size_t at = ifind(line, kResyncToken); at != std::string_view::npos && at > 0) {
        error(FrameError::malformed_header,
              "ignored " + std::to_string(at) + " bytes of garbage before a Content-Length header");
        line.remove_prefix(at);
    }
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
        error(FrameError::malformed_header, "ignored a header line without a colon: " + quote(line));
        return true;
    }
    const std::string_view name = trim(line.substr(0, colon));
    const std::string_view value = trim(line.substr(colon + 1));
    if (!iequals(name, kContentLength)) {
        if (!is_token(name)) error(FrameError::malformed_header, "ignored a malformed header line: " + quote(line));
        return true;   // unknown headers (Content-Type, X-...) are ignored
    }
    // Content-Length: a non-negative decimal number. Overflow is remembered as "too large", not "invalid".
    have_length_ = false;
    bad_length_ = false;
    length_overflow_ = false;
    std::uint64_t v = 0;
    bool digits = !value.empty();
    for (char c : value) {
        if (c < '0' || c > '9') { digits = false; break; }
        const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
        if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10) {
            length_overflow_ = true;
            v = std::numeric_limits<std::uint64_t>::max();
        } else if (!length_overflow_) {
            v = v * 10 + d;
        }
    }
    if (!digits) {
        bad_length_ = true;
        error(FrameError::invalid_content_length, "Content-Length is not a non-negative number: " + quote(value));
        return true;
    }
    have_length_ = true;
    length_ = v;
    return true;
}

void FrameParser::end_of_headers() {
    const bool saw = saw_header_;
    const bool have = have_length_, bad = bad_length_, overflow = length_overflow_;
    const std::uint64_t length = length_;
    saw_header_ = have_length_ = bad_length_ = length_overflow_ = false;
    length_ = 0;
    if (!saw) return;   // blank lines between frames are harmless
    if (!have) {
        if (!bad) error(FrameError::missing_content_length, "a header block ended without Content-Length");
        state_ = State::resync;
        return;
    }
    if (overflow || length > limits_.max_body) {
        error(FrameError::too_large, "Content-Length " + (overflow ? std::string("(beyond 2^64)") : std::to_string(length)) +
                                         " exceeds the limit of " + std::to_string(limits_.max_body) +
                                         " bytes; the body is skipped");
        state_ = State::resync;
        return;
    }
    remaining_ = length;
    body_.clear();
    // The whole body at once: growing it by doubling would hold the old and the new buffer together (1.5x the
    // body at the last step). Reserved pages cost nothing until the bytes arrive.
    body_.reserve(static_cast<std::size_t>(length));
    state_ = State::body;
    if (remaining_ == 0) {
        FrameEvent ev;
        ev.kind = FrameEvent::Kind::message;
        events_.push_back(std::move(ev));
        state_ = State::headers;
    }
}

void FrameParser::finish() {
    if (finished_) return;
    finished_ = true;
    if (state_ == State::body) {
        error(FrameError::truncated, "input ended after " + std::to_string(body_.size() + pending()) + " of " +
                                         std::to_string(body_.size() + pending() + remaining_) + " body bytes");
    } else if (state_ == State::headers) {
        std::string_view rest(buffer_.data() + pos_, pending());
        const bool only_space = std::all_of(rest.begin(), rest.end(), [](char c) {
            return c == ' ' || c == '\t' || c == '\r' || c == '\n';
        });
        if (saw_header_ || !only_space) error(FrameError::truncated, "input ended inside a header block");
    }
    buffer_.clear();
    pos_ = 0;
    body_.clear();
}

void FrameParser::error(FrameError e, std::string detail) {
    FrameEvent ev;
    ev.kind = FrameEvent::Kind::error;
    ev.error = e;
    ev.detail = std::move(detail);
    events_.push_back(std::move(ev));
}

void FrameParser::compact() {
    if (pos_ == buffer_.size()) {
        buffer_.clear();
        pos_ = 0;
    } else if (pos_ > 65536 && pos_ > buffer_.size() / 2) {
        buffer_.erase(0, pos_);
        pos_ = 0;
    }
}

bool FrameParser::next(FrameEvent& out) {
    if (events_.empty()) return false;
    out = std::move(events_.front());
    events_.pop_front();
    return true;
}

}  // namespace denpex::server
