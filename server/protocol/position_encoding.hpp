// Position encodings: LSP columns counted in UTF-16 code units (the default), UTF-8 bytes, or UTF-32 code
// points, converted to and from byte offsets within one line of UTF-8 text.
//
// Contract. The functions take one line (no terminator) and never read past it. Byte offsets that fall
// inside a multi-byte character are rounded down to the character's start; a column past the end of the
// line means the end of the line (LSP: "defaults back to the line length"). Bytes that are not valid UTF-8
// count as one unit each in every encoding (what editors show for them: one U+FFFD each), so conversions
// stay total and round-trip on any input.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace denpex::server {

enum class PositionEncoding { utf16, utf8, utf32 };

std::string_view to_string(PositionEncoding e);
std::optional<PositionEncoding> parse_position_encoding(std::string_view name);

// Columns of `line[0, byte)` in `encoding` (byte clamped to the line).
std::size_t column_of_byte(std::string_view line, std::size_t byte, PositionEncoding encoding);
// The line's length in `encoding`.
inline std::size_t line_length(std::string_view line, PositionEncoding encoding) {
    return column_of_byte(line, line.size(), encoding);
}
// Byte offset of `column` in `line` (clamped to the line's end; inside a surrogate pair -> the pair's start).
std::size_t byte_of_column(std::string_view line, std::size_t column, PositionEncoding encoding);

}  // namespace denpex::server
