#include "server/handlers/documents.hpp"

#include <nlohmann/json.hpp>

#include "server/dispatch/rpc_error.hpp"
#include "server/protocol/json_params.hpp"

namespace denpex::server {

Document::Document(std::string u, std::string lang, std::int64_t v, std::string t)
    : uri(std::move(u)), language_id(std::move(lang)), version(v), text(std::move(t)), lines(text),
      kind(classify_document(uri, language_id, text)) {}

std::shared_ptr<const Document> DocumentStore::open(const std::string& uri, const std::string& language_id,
                                                    std::int64_t version, std::string text) {
    auto doc = std::make_shared<const Document>(uri, language_id, version, std::move(text));
    docs_[uri] = doc;
    return doc;
}

std::shared_ptr<const Document> DocumentStore::change(const std::string& uri, std::int64_t version,
                                                      nlohmann::json& changes, PositionEncoding encoding) {
    auto it = docs_.find(uri);
    if (it == docs_.end())
        throw RpcError(error_code::invalid_params, "params.textDocument.uri: " + uri + " is not open");
    if (!changes.is_array())
        throw RpcError(error_code::invalid_params, "params.contentChanges must be an array, " + describe(changes));
    std::shared_ptr<const Document> cur = it->second;
    std::string text = cur->text;
    for (std::size_t i = 0; i < changes.size(); ++i) {
        const std::string path = "params.contentChanges[" + std::to_string(i) + "]";
        nlohmann::json& c = changes[i];
        require_object(c, path);
        std::string new_text = take_string(c, "text", path);
        if (find_member(c, "range") == nullptr) {
            text = std::move(new_text);
            continue;
        }
        const Range r = get_range(c, "range", path);
        if (r.end < r.start) throw RpcError(error_code::invalid_params, path + ".range: end is before start");
        LineIndex index(text);
        const std::size_t b = index.offset_of(r.start, encoding);
        const std::size_t e = index.offset_of(r.end, encoding);
        text.replace(b, e - b, new_text);
    }
    auto doc = std::make_shared<const Document>(uri, cur->language_id, version, std::move(text));
    it->second = doc;
    return doc;
}

void DocumentStore::close(const std::string& uri) { docs_.erase(uri); }

std::shared_ptr<const Document> DocumentStore::get(const std::string& uri) const {
    auto it = docs_.find(uri);
    return it == docs_.end() ? nullptr : it->second;
}

}  // namespace denpex::server
