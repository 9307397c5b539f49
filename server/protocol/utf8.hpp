// UTF-8 validity, shared by position conversion and message intake.
//
// Contract. `utf8_sequence_length(s, i)` is the length (1-4) of the well-formed UTF-8 sequence at s[i], or 0
// when the bytes there are not one (overlong forms, surrogates, code points above U+10FFFF, truncation).
// `sanitize_utf8` returns `s` with each invalid byte replaced by U+FFFD, so that a client that sends a message
// with a stray Latin-1 byte still gets an answer instead of a parse error.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace denpex::server {

std::size_t utf8_sequence_length(std::string_view s, std::size_t i);
bool is_valid_utf8(std::string_view s);
std::string sanitize_utf8(std::string_view s);

}  // namespace denpex::server
