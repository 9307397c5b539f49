// Open documents: the text the client synced (didOpen/didChange/didClose), as immutable snapshots.
//
// Contract. The store lives on the I/O thread. Each open/change produces a new `Document` snapshot, shared
// read-only with worker threads (a diagnosis keeps its snapshot alive while it runs, while the store moves
// on). A change carries either a whole new text or LSP ranges in the negotiated position encoding, applied
// in order; a change that cannot apply (unknown document, range reversed) is an InvalidParams error and the
// document is left as it was. The snapshot's LineIndex points into its own text, so a Document is neither
// copied nor moved.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "server/launch_scripts/document_kind.hpp"
#include "server/protocol/line_index.hpp"

namespace denpex::server {

struct Document {
    Document(std::string uri, std::string language_id, std::int64_t version, std::string text);
    Document(const Document&) = delete;
    Document& operator=(const Document&) = delete;

    const std::string uri;
    const std::string language_id;
    const std::int64_t version;
    const std::string text;
    const LineIndex lines;
    const DocumentKind kind;
};

class DocumentStore {
public:
    std::shared_ptr<const Document> open(const std::string& uri, const std::string& language_id, std::int64_t version,
                                         std::string text);
    // `changes` is didChange's contentChanges array; its texts are moved out of it.
    std::shared_ptr<const Document> change(const std::string& uri, std::int64_t version, nlohmann::json& changes,
                                           PositionEncoding encoding);
    void close(const std::string& uri);
    std::shared_ptr<const Document> get(const std::string& uri) const;
    std::size_t size() const { return docs_.size(); }

private:
    std::map<std::string, std::shared_ptr<const Document>> docs_;
};

}  // namespace denpex::server
