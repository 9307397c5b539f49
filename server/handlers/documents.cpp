#include "server/handlers/documents.hpp"

#include <optional>

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
    // The new text is built with one copy of the old one at most (none for a whole replacement), sized once; the
    // old snapshot's LineIndex serves the first range, so a keystroke in a 100 MB log does not index it twice.
    std::string text;
    bool copied = false;
    const LineIndex* index = &cur->lines;   // over the text as it stands; null once that changed
    std::optional<LineIndex> rebuilt;
    for (std::size_t i = 0; i < changes.size(); ++i) {
        const std::string path = "params.contentChanges[" + std::to_string(i) + "]";
        nlohmann::json& c = changes[i];
        require_object(c, path);
        std::string new_text = take_string(c, "text", path);
        if (find_member(c, "range") == nullptr) {
            index = nullptr;
            text = std::move(new_text);
            copied = true;
            continue;
        }
        const Range r = get_range(c, "range", path);
        if (r.end < r.start) throw RpcError(error_code::invalid_params, path + ".range: end is before start");
        if (!index) index = &rebuilt.emplace(text);
        const std::size_t b = index->offset_of(r.start, encoding);
        const std::size_t e = index->offset_of(r.end, encoding);
        index = nullptr;
        if (copied) {
            text.replace(b, e - b, new_text);
            continue;
        }
        const std::string& old = cur->text;
        text.reserve(old.size() - (e - b) + new_text.size());
        text.append(old, 0, b).append(new_text).append(old, e, std::string::npos);
        copied = true;
    }
    if (!copied) text = cur->text;
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
