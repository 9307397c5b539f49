#include "server/protocol/json_params.hpp"

#include <nlohmann/json.hpp>

#include "server/dispatch/rpc_error.hpp"

namespace denpex::server {
namespace {

using nlohmann::json;

std::string join(std::string_view path, std::string_view key) {
    std::string s(path);
    if (!s.empty()) s += '.';
    s += key;
    return s;
}

[[noreturn]] void fail(std::string_view path, std::string_view key, std::string_view expected, const json* got) {
    std::string msg = join(path, key);
    if (!got) msg += " is missing (expected " + std::string(expected) + ")";
    else msg += " must be " + std::string(expected) + ", " + describe(*got);
    throw RpcError(error_code::invalid_params, msg);
}

}  // namespace

std::string describe(const json& v) {
    switch (v.type()) {
        case json::value_t::null: return "got null";
        case json::value_t::boolean: return std::string("got ") + (v.get<bool>() ? "true" : "false");
        case json::value_t::string: return "got a string";
        case json::value_t::array: return "got an array";
        case json::value_t::object: return "got an object";
        case json::value_t::number_integer:
        case json::value_t::number_unsigned:
        case json::value_t::number_float: {
            std::string s = v.dump();
            if (s.size() > 40) s = s.substr(0, 40) + "...";
            return "got " + s;
        }
        default: return "got an unsupported value";
    }
}

const json& require_object(const json& v, std::string_view what) {
    if (!v.is_object())
        throw RpcError(error_code::invalid_params, std::string(what) + " must be an object, " + describe(v));
    return v;
}

const json* find_member(const json& obj, std::string_view key) {
    if (!obj.is_object()) return nullptr;
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return nullptr;
    return &*it;
}

std::string get_string(const json& obj, std::string_view key, std::string_view path) {
    const json* v = find_member(obj, key);
    if (!v || !v->is_string()) fail(path, key, "a string", v);
    return v->get<std::string>();
}

std::string take_string(json& obj, std::string_view key, std::string_view path) {
    const json* v = find_member(obj, key);
    if (!v || !v->is_string()) fail(path, key, "a string", v);
    return std::move(obj.find(key)->get_ref<std::string&>());   // found above
}

std::optional<std::string> get_optional_string(const json& obj, std::string_view key, std::string_view path) {
    const json* v = find_member(obj, key);
    if (!v) return std::nullopt;
    if (!v->is_string()) fail(path, key, "a string", v);
    return v->get<std::string>();
}

std::uint32_t get_uinteger(const json& obj, std::string_view key, std::string_view path) {
    const json* v = find_member(obj, key);
    constexpr std::uint64_t kMax = 2147483647;
    const char* expected = "an integer in [0, 2147483647]";
    if (!v) fail(path, key, expected, v);
    if (v->is_number_unsigned()) {
        if (v->get<std::uint64_t>() > kMax) fail(path, key, expected, v);
        return static_cast<std::uint32_t>(v->get<std::uint64_t>());
    }
    if (v->is_number_integer()) {
        const std::int64_t i = v->get<std::int64_t>();
        if (i < 0 || static_cast<std::uint64_t>(i) > kMax) fail(path, key, expected, v);
        return static_cast<std::uint32_t>(i);
    }
    fail(path, key, expected, v);
}

std::optional<std::int64_t> get_optional_integer(const json& obj, std::string_view key, std::string_view path) {
    const json* v = find_member(obj, key);
    if (!v) return std::nullopt;
    if (v->is_number_integer() && !v->is_number_unsigned()) return v->get<std::int64_t>();
    if (v->is_number_unsigned() && v->get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX))
        return static_cast<std::int64_t>(v->get<std::uint64_t>());
    fail(path, key, "an integer", v);
}

const json& get_object(const json& obj, std::string_view key, std::string_view path) {
    const json* v = find_member(obj, key);
    if (!v || !v->is_object()) fail(path, key, "an object", v);
    return *v;
}

std::vector<std::string> get_optional_string_array(const json& obj, std::string_view key, std::string_view path) {
    std::vector<std::string> out;
    const json* v = find_member(obj, key);
    if (!v) return out;
    if (!v->is_array()) fail(path, key, "an array of strings", v);
    for (std::size_t i = 0; i < v->size(); ++i) {
        const json& item = (*v)[i];
        if (!item.is_string())
            throw RpcError(error_code::invalid_params,
                           join(path, key) + "[" + std::to_string(i) + "] must be a string, " + describe(item));
        out.push_back(item.get<std::string>());
    }
    return out;
}

bool get_optional_bool(const json& obj, std::string_view key, std::string_view path, bool fallback) {
    const json* v = find_member(obj, key);
    if (!v) return fallback;
    if (!v->is_boolean()) fail(path, key, "a boolean", v);
    return v->get<bool>();
}

Position get_position(const json& obj, std::string_view key, std::string_view path) {
    const std::string p = join(path, key);
    const json& o = get_object(obj, key, path);
    return {get_uinteger(o, "line", p), get_uinteger(o, "character", p)};
}

Range get_range(const json& obj, std::string_view key, std::string_view path) {
    const std::string p = join(path, key);
    const json& o = get_object(obj, key, path);
    return {get_position(o, "start", p), get_position(o, "end", p)};
}

std::string get_text_document_uri(const json& params) {
    return get_string(get_object(params, "textDocument", "params"), "uri", "params.textDocument");
}

}  // namespace denpex::server
