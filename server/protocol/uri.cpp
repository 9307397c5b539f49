#include "server/protocol/uri.hpp"

#include <cctype>
#include <filesystem>

namespace denpex::server {
namespace {

int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool unreserved(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
           c == '_' || c == '~';
}

}  // namespace

std::string percent_decode(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
            out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

std::optional<std::string> uri_to_path(std::string_view uri) {
    constexpr std::string_view scheme = "file://";
    if (uri.size() < scheme.size()) return std::nullopt;
    for (std::size_t i = 0; i < scheme.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(uri[i])) != scheme[i]) return std::nullopt;
    std::string_view rest = uri.substr(scheme.size());
    if (rest.rfind("localhost/", 0) == 0) rest.remove_prefix(9);
    if (rest.empty() || rest.front() != '/') return std::nullopt;   // an authority other than localhost
    // Query and fragment are not part of the path.
    if (std::size_t q = rest.find_first_of("?#"); q != std::string_view::npos) rest = rest.substr(0, q);
    std::string path = percent_decode(rest);
    if (path.find('\0') != std::string::npos) return std::nullopt;
    return path;
}

std::string path_to_uri(std::string_view path) {
    std::string abs(path);
    if (abs.empty() || abs.front() != '/') {
        std::error_code ec;
        auto p = std::filesystem::absolute(std::filesystem::path(abs), ec);
        if (!ec) abs = p.lexically_normal().string();
    }
    static const char* digits = "0123456789ABCDEF";
    std::string out = "file://";
    for (unsigned char c : abs) {
        if (unreserved(c) || c == '/') {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += digits[c >> 4];
            out += digits[c & 15];
        }
    }
    return out;
}

std::string uri_basename(std::string_view uri) {
    if (std::size_t q = uri.find_first_of("?#"); q != std::string_view::npos) uri = uri.substr(0, q);
    while (!uri.empty() && uri.back() == '/') uri.remove_suffix(1);
    const std::size_t slash = uri.rfind('/');
    std::string_view last = slash == std::string_view::npos ? uri : uri.substr(slash + 1);
    // "untitled:Untitled-1" has no slash: drop the scheme.
    if (slash == std::string_view::npos)
        if (std::size_t colon = last.find(':'); colon != std::string_view::npos) last = last.substr(colon + 1);
    return percent_decode(last);
}

}  // namespace denpex::server
