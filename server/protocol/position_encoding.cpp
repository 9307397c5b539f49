#include "server/protocol/position_encoding.hpp"

namespace denpex::server {
namespace {

// Length in bytes of the valid UTF-8 sequence starting at line[i], or 0 when the bytes there are not one
// (then the byte counts alone). Rejects overlong forms, surrogates and code points above U+10FFFF.
std::size_t sequence_length(std::string_view line, std::size_t i) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(line[k]); };
    const unsigned char c = b(i);
    if (c < 0x80) return 1;
    std::size_t n;
    unsigned char lo = 0x80, hi = 0xBF;   // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c == 0xE0) { n = 3; lo = 0xA0; }
    else if (c >= 0xE1 && c <= 0xEC) n = 3;
    else if (c == 0xED) { n = 3; hi = 0x9F; }
    else if (c >= 0xEE && c <= 0xEF) n = 3;
    else if (c == 0xF0) { n = 4; lo = 0x90; }
    else if (c >= 0xF1 && c <= 0xF3) n = 4;
    else if (c == 0xF4) { n = 4; hi = 0x8F; }
    else return 0;
    if (i + n > line.size()) return 0;
    if (b(i + 1) < lo || b(i + 1) > hi) return 0;
    for (std::size_t k = 2; k < n; ++k)
        if ((b(i + k) & 0xC0) != 0x80) return 0;
    return n;
}

std::size_t units(std::size_t seq_len, PositionEncoding e) {
    switch (e) {
        case PositionEncoding::utf8: return seq_len == 0 ? 1 : seq_len;
        case PositionEncoding::utf16: return seq_len == 4 ? 2 : 1;
        case PositionEncoding::utf32: return 1;
    }
    return 1;
}

}  // namespace

std::string_view to_string(PositionEncoding e) {
    switch (e) {
        case PositionEncoding::utf16: return "utf-16";
        case PositionEncoding::utf8: return "utf-8";
        case PositionEncoding::utf32: return "utf-32";
    }
    return "utf-16";
}

std::optional<PositionEncoding> parse_position_encoding(std::string_view name) {
    if (name == "utf-16") return PositionEncoding::utf16;
    if (name == "utf-8") return PositionEncoding::utf8;
    if (name == "utf-32") return PositionEncoding::utf32;
    return std::nullopt;
}

std::size_t column_of_byte(std::string_view line, std::size_t byte, PositionEncoding encoding) {
    if (byte > line.size()) byte = line.size();
    std::size_t col = 0, i = 0;
    while (i < byte) {
        const std::size_t n = sequence_length(line, i);
        if (n > 1 && i + n > byte) break;   // `byte` falls inside this character: round down to its start
        col += units(n, encoding);
        i += n == 0 ? 1 : n;
    }
    return col;
}

std::size_t byte_of_column(std::string_view line, std::size_t column, PositionEncoding encoding) {
    std::size_t col = 0, i = 0;
    while (i < line.size()) {
        const std::size_t n = sequence_length(line, i);
        const std::size_t u = units(n, encoding);
        if (col + u > column) break;   // the column is inside this character (e.g. between a surrogate pair)
        col += u;
        i += n == 0 ? 1 : n;
    }
    return i;
}

}  // namespace denpex::server
