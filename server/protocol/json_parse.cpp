#include "server/protocol/json_parse.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace denpex::server {

namespace {

using nlohmann::json;

// nlohmann's json_sax_dom_parser, except that strings and keys are taken from the lexer (it hands them over by
// non-const reference and clears its buffer before the next token).
class MovingDomBuilder {
public:
    // `mark_token`: the index (among string tokens, keys included) whose value node `marked()` returns.
    explicit MovingDomBuilder(json& root, std::size_t mark_token = SIZE_MAX) : root_(root), mark_token_(mark_token) {}
    json* marked() const { return marked_; }

    bool null() { return add(nullptr); }
    bool boolean(bool v) { return add(v); }
    bool number_integer(json::number_integer_t v) { return add(v); }
    bool number_unsigned(json::number_unsigned_t v) { return add(v); }
    bool number_float(json::number_float_t v, const json::string_t&) { return add(v); }
    bool string(json::string_t& v) {
        json* node = place(std::move(v));
        if (tokens_++ == mark_token_) marked_ = node;
        return true;
    }
    bool binary(json::binary_t& v) { return add(json::binary(std::move(v))); }
    bool start_object(std::size_t) {
        stack_.push_back(place(json::value_t::object));
        return true;
    }
    bool key(json::string_t& k) {
        ++tokens_;
        member_ = &stack_.back()->get_ref<json::object_t&>()[std::move(k)];
        return true;
    }
    bool end_object() {
        stack_.pop_back();
        return true;
    }
    bool start_array(std::size_t) {
        stack_.push_back(place(json::value_t::array));
        return true;
    }
    bool end_array() {
        stack_.pop_back();
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
        error_ = e.what();
        return false;
    }
    const std::string& error() const { return error_; }

private:
    template <class V>
    bool add(V&& v) {
        place(std::forward<V>(v));
        return true;
    }
    // Puts a value where the parser is: the root, the next array element or the member whose key came last.
    template <class V>
    json* place(V&& v) {
        if (stack_.empty()) {
            root_ = json(std::forward<V>(v));
            return &root_;
        }
        json* top = stack_.back();
        if (top->is_array()) {
            auto& a = top->get_ref<json::array_t&>();
            a.emplace_back(std::forward<V>(v));
            return &a.back();
        }
        *member_ = json(std::forward<V>(v));
        return member_;
    }

    json& root_;
    std::vector<json*> stack_;
    json* member_ = nullptr;
    std::string error_;
    std::size_t mark_token_, tokens_ = 0;
    json* marked_ = nullptr;
};

// Bodies below this are parsed the ordinary way: the copies cost nothing worth avoiding.
constexpr std::size_t kInPlaceMin = std::size_t{1} << 20;

struct Literal {
    std::size_t begin = 0, end = 0;   // the content, between the quotes
    std::size_t token = 0;            // its index among the body's string literals
};

// The longest string literal of a JSON text (quotes and backslash escapes followed; nothing else is checked).
std::optional<Literal> longest_literal(std::string_view body) {
    std::optional<Literal> best;
    std::size_t token = 0;
    for (std::size_t i = 0; i < body.size(); ++i) {
        if (body[i] != '"') continue;
        const std::size_t begin = i + 1;
        std::size_t j = begin;
        while (j < body.size() && body[j] != '"') j += body[j] == '\\' ? 2 : 1;
        if (j >= body.size()) return std::nullopt;   // unterminated: the ordinary parse says so
        if (!best || j - begin > best->end - best->begin) best = Literal{begin, j, token};
        ++token;
        i = j;
    }
    return best;
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::optional<std::uint32_t> hex4(std::string_view s, std::size_t at) {
    if (at + 4 > s.size()) return std::nullopt;
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < 4; ++k) {
        const int d = hex_digit(s[at + k]);
        if (d < 0) return std::nullopt;
        v = v * 16 + static_cast<std::uint32_t>(d);
    }
    return v;
}

std::size_t put_utf8(char* out, std::uint32_t cp) {
    if (cp < 0x80) {
        out[0] = static_cast<char>(cp);
        return 1;
    }
    if (cp < 0x800) {
        out[0] = static_cast<char>(0xC0 | (cp >> 6));
        out[1] = static_cast<char>(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = static_cast<char>(0xE0 | (cp >> 12));
        out[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out[2] = static_cast<char>(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = static_cast<char>(0xF0 | (cp >> 18));
    out[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out[3] = static_cast<char>(0x80 | (cp & 0x3F));
    return 4;
}

// Unescapes body[begin, end) onto body[begin, ...) (an escape is never shorter than what it stands for); returns
// the decoded length, or nullopt for what JSON forbids or this does not take (the ordinary parse then decides).
// With `write` false nothing is written: the check that must pass before the body is touched.
std::optional<std::size_t> unescape_in_place(std::string& body, std::size_t begin, std::size_t end, bool write) {
    char scratch[4];
    char* const base = body.data() + begin;
    auto out_at = [&](std::size_t n) { return write ? base + n : scratch; };
    std::size_t n = 0;
    for (std::size_t i = begin; i < end;) {
        const unsigned char c = static_cast<unsigned char>(body[i]);
        if (c < 0x20) return std::nullopt;
        if (c != '\\') {
            *out_at(n++) = static_cast<char>(c);
            ++i;
            continue;
        }
        if (i + 1 >= end) return std::nullopt;
        const char e = body[i + 1];
        i += 2;
        switch (e) {
            case '"': *out_at(n++) = '"'; break;
            case '\\': *out_at(n++) = '\\'; break;
            case '/': *out_at(n++) = '/'; break;
            case 'b': *out_at(n++) = '\b'; break;
            case 'f': *out_at(n++) = '\f'; break;
            case 'n': *out_at(n++) = '\n'; break;
            case 'r': *out_at(n++) = '\r'; break;
            case 't': *out_at(n++) = '\t'; break;
            case 'u': {
                const std::string_view all(body.data(), end);
                auto cp = hex4(all, i);
                if (!cp) return std::nullopt;
                i += 4;
                if (*cp >= 0xDC00 && *cp <= 0xDFFF) return std::nullopt;   // a lone low surrogate
                if (*cp >= 0xD800 && *cp <= 0xDBFF) {
                    if (i + 6 > end || body[i] != '\\' || body[i + 1] != 'u') return std::nullopt;
                    auto low = hex4(all, i + 2);
                    if (!low || *low < 0xDC00 || *low > 0xDFFF) return std::nullopt;
                    i += 6;
                    *cp = 0x10000 + ((*cp - 0xD800) << 10) + (*low - 0xDC00);
                }
                n += put_utf8(out_at(n), *cp);
                break;
            }
            default: return std::nullopt;
        }
    }
    return n;
}

}  // namespace

bool parse_message_json(std::string_view body, json& out, std::string& error) {
    out = json();
    MovingDomBuilder builder(out);
    bool ok = false;
    try {
        ok = json::sax_parse(body.begin(), body.end(), &builder, json::input_format_t::json, /*strict=*/true);
    } catch (const std::exception& e) {   // nlohmann reports through parse_error; this is a safety net only
        error = e.what();
        out = json();
        return false;
    }
    if (!ok) {
        error = builder.error().empty() ? std::string("the message is not valid JSON") : builder.error();
        out = json();
    }
    return ok;
}

bool parse_message_json_owned(std::string& body, json& out, std::string& error) {
    if (body.size() < kInPlaceMin) return parse_message_json(body, out, error);
    const std::optional<Literal> big = longest_literal(body);
    if (!big || big->end - big->begin < body.size() / 2) return parse_message_json(body, out, error);
    // The body without the big literal's content (it reads ""): small, parsed the ordinary way.
    std::string rest;
    rest.reserve(body.size() - (big->end - big->begin));
    rest.append(body, 0, big->begin).append(body, big->end, std::string::npos);
    out = json();
    MovingDomBuilder builder(out, big->token);
    bool ok = false;
    try {
        ok = json::sax_parse(rest.begin(), rest.end(), &builder, json::input_format_t::json, /*strict=*/true);
    } catch (const std::exception&) {
        ok = false;
    }
    json* node = ok ? builder.marked() : nullptr;   // null too when the literal was a key
    if (!node || !unescape_in_place(body, big->begin, big->end, /*write=*/false))
        return parse_message_json(body, out, error);
    const std::optional<std::size_t> n = unescape_in_place(body, big->begin, big->end, /*write=*/true);
    body.resize(big->begin + *n);
    body.erase(0, big->begin);
    *node = std::move(body);
    return true;
}

}  // namespace denpex::server
