#include "server/protocol/lsp_types.hpp"

#include <nlohmann/json.hpp>

namespace denpex::server {

nlohmann::json to_json(const Position& p) { return {{"line", p.line}, {"character", p.character}}; }
nlohmann::json to_json(const Range& r) { return {{"start", to_json(r.start)}, {"end", to_json(r.end)}}; }
nlohmann::json to_json(const Location& l) { return {{"uri", l.uri}, {"range", to_json(l.range)}}; }

}  // namespace denpex::server
