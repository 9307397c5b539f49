#include "server/protocol/position_encoding.hpp"

#include "server/protocol/utf8.hpp"

namespace denpex::server {
namespace {

std::size_t sequence_length(std::string_view line, std::size_t i) { return utf8_sequence_length(line, i); }

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
