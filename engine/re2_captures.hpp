// Reading RE2 captures into plain values: the small pieces every prefix and path parser needs.
//
// Patterns built with `latin1_pattern_options()` treat every byte as a character, so invalid UTF-8 in a log
// line can neither fail a match nor be split. Captures arrive as StringPieces; an unmatched optional group has
// a null data pointer, which `present` tells apart from an empty match.
#pragma once

#include <optional>
#include <string_view>

#include <re2/re2.h>

#include "engine/bounded_number.hpp"   // to_number: every capture that is a number goes through it

namespace denpex {

inline RE2::Options latin1_pattern_options() {
    RE2::Options options;
    options.set_encoding(RE2::Options::EncodingLatin1);
    options.set_log_errors(false);
    return options;
}

inline std::string_view view(const re2::StringPiece& piece) {
    return piece.data() == nullptr ? std::string_view{} : std::string_view(piece.data(), piece.size());
}

inline bool present(const re2::StringPiece& piece) { return piece.data() != nullptr; }

// Sets `field` from `value` unless it already holds one: the first source that names a field wins.
template <class T>
void fill(std::optional<T>& field, const std::optional<T>& value) {
    if (!field && value) field = value;
}

}  // namespace denpex
