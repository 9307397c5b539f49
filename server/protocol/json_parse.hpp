// Parsing a message body into JSON without holding its big strings twice.
//
// Contract. `parse_message_json(body, out)` parses `body` as nlohmann::json::parse would (strict: one value, no
// trailing bytes; duplicate keys: the last wins) and returns true, or returns false with `error` saying where it
// failed (nlohmann's exception text); it never throws. Unlike json::parse, every string and key is moved out of
// the parser's token buffer into the tree rather than copied: a didOpen carrying a 100 MB document costs the
// body plus one copy of the text, not the body plus two (json::parse keeps its token buffer, at the size of the
// largest string, until it returns).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace denpex::server {

bool parse_message_json(std::string_view body, nlohmann::json& out, std::string& error);

// As parse_message_json, for a body the caller gives up (valid UTF-8): when one string literal is most of a large
// body (a didOpen's text), it is unescaped in place and the body's own buffer becomes that string in the tree, so
// the text is never held twice — nlohmann's lexer would hold it twice more while parsing (its token buffer and the
// raw token it keeps for error messages). The rest of the body is parsed as above. Anything the in-place path does
// not take for certain (a control character, a lone surrogate, a big key) goes the ordinary way, errors included.
// `body` is left unspecified.
bool parse_message_json_owned(std::string& body, nlohmann::json& out, std::string& error);

}  // namespace denpex::server
