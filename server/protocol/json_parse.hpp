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

}  // namespace denpex::server
