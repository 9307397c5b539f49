// Typed reading of request params, with errors that name what was wrong.
//
// Contract. Each reader takes the object, the key, and the JSON path of the object ("params.position") for
// messages; on a missing or mistyped value it throws RpcError(InvalidParams, "<path>.<key> must be ...,
// got ..."). The dispatcher prefixes the method name. Integers are checked against the LSP ranges: uinteger
// is 0..2^31-1, and floats, negatives, huge values and booleans are rejected, never wrapped or truncated.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "server/protocol/lsp_types.hpp"

namespace denpex::server {

// `v` must be an object; `what` names it ("params").
const nlohmann::json& require_object(const nlohmann::json& v, std::string_view what);

const nlohmann::json* find_member(const nlohmann::json& obj, std::string_view key);   // nullptr when absent or null
std::string get_string(const nlohmann::json& obj, std::string_view key, std::string_view path);
// As get_string, but the string is moved out of `obj` (left empty there): for a document's text, never copied.
std::string take_string(nlohmann::json& obj, std::string_view key, std::string_view path);
std::optional<std::string> get_optional_string(const nlohmann::json& obj, std::string_view key, std::string_view path);
std::uint32_t get_uinteger(const nlohmann::json& obj, std::string_view key, std::string_view path);
std::optional<std::int64_t> get_optional_integer(const nlohmann::json& obj, std::string_view key, std::string_view path);
const nlohmann::json& get_object(const nlohmann::json& obj, std::string_view key, std::string_view path);
std::vector<std::string> get_optional_string_array(const nlohmann::json& obj, std::string_view key,
                                                   std::string_view path);
bool get_optional_bool(const nlohmann::json& obj, std::string_view key, std::string_view path, bool fallback);

Position get_position(const nlohmann::json& obj, std::string_view key, std::string_view path);
Range get_range(const nlohmann::json& obj, std::string_view key, std::string_view path);
// params.textDocument.uri
std::string get_text_document_uri(const nlohmann::json& params);

// A short description of a JSON value for error messages: `got -1`, `got a string`, `got 1e+30`.
std::string describe(const nlohmann::json& v);

}  // namespace denpex::server
