// textDocument/hover: the knowledge entry behind a log line, answered on the I/O thread (one line, one RE2 pass:
// microseconds), so it stays responsive while diagnoses run on the workers.
#include <nlohmann/json.hpp>

#include "server/handlers/hover.hpp"
#include "server/handlers/server_state.hpp"
#include "server/log.hpp"
#include "server/protocol/json_params.hpp"

namespace denpex::server {

using nlohmann::json;

void register_hover(ServerState& s) {
    s.dispatcher.on_request("textDocument/hover", [&s](const json& params, Reply reply) {
        require_object(params, "params");
        const std::string uri = get_text_document_uri(params);
        const Position pos = get_position(params, "position", "params");
        auto doc = s.docs.get(uri);
        if (!doc) {
            log_debug("hover on " + uri + ", which is not open");
            reply.result(nullptr);
            return;
        }
        if (pos.line >= doc->lines.line_count() || is_launch_script(doc->kind)) {
            reply.result(nullptr);
            return;
        }
        const std::uint64_t engine_line = doc->lines.engine_line_of(pos.line);
        const std::string* note = nullptr;
        if (auto it = s.logs.find(uri); it != s.logs.end() && it->second.notes_version == doc->version)
            if (auto n = it->second.notes.find(engine_line); n != it->second.notes.end()) note = &n->second;
        auto text = hover_text(s.engine.matcher(), doc->lines.engine_line_text(engine_line), note);
        if (!text) {
            reply.result(nullptr);
            return;
        }
        json result = {{"contents", {{"kind", s.client.markdown_hover ? "markdown" : "plaintext"}, {"value", *text}}}};
        if (auto r = doc->lines.engine_line_range(engine_line, s.encoding)) result["range"] = to_json(*r);
        reply.result(result);
    });
}

}  // namespace denpex::server
