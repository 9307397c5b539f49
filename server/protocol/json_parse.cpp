#include "server/protocol/json_parse.hpp"

#include <cstdint>
#include <vector>

namespace denpex::server {

namespace {

using nlohmann::json;

// nlohmann's json_sax_dom_parser, except that strings and keys are taken from the lexer (it hands them over by
// non-const reference and clears its buffer before the next token).
class MovingDomBuilder {
public:
    explicit MovingDomBuilder(json& root) : root_(root) {}

    bool null() { return add(nullptr); }
    bool boolean(bool v) { return add(v); }
    bool number_integer(json::number_integer_t v) { return add(v); }
    bool number_unsigned(json::number_unsigned_t v) { return add(v); }
    bool number_float(json::number_float_t v, const json::string_t&) { return add(v); }
    bool string(json::string_t& v) { return add(std::move(v)); }
    bool binary(json::binary_t& v) { return add(json::binary(std::move(v))); }
    bool start_object(std::size_t) {
        stack_.push_back(place(json::value_t::object));
        return true;
    }
    bool key(json::string_t& k) {
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
};

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

}  // namespace denpex::server
