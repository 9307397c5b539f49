// didOpen / didChange / didClose, and the diagnostics they trigger: log documents are diagnosed with the other
// open documents of their job (log_job_runs.cpp), debounced while the client keeps changing them; launch scripts
// are checked inline (cheap).
#include <nlohmann/json.hpp>

#include "server/dispatch/rpc_error.hpp"
#include "server/handlers/script_findings.hpp"
#include "server/handlers/server_state.hpp"
#include "server/log.hpp"
#include "server/protocol/json_params.hpp"
#include "server/protocol/uri.hpp"

namespace denpex::server {

using nlohmann::json;

namespace {

void publish(ServerState& s, const Document& doc, json diagnostics) {
    s.dispatcher.notify("textDocument/publishDiagnostics",
                        {{"uri", doc.uri}, {"version", doc.version}, {"diagnostics", std::move(diagnostics)}});
}

void publish_empty(ServerState& s, const std::string& uri) {
    s.dispatcher.notify("textDocument/publishDiagnostics", {{"uri", uri}, {"diagnostics", json::array()}});
}

void check_script(ServerState& s, const Document& doc) {
    const AsyncErrorHandlingCheck check = check_async_error_handling(doc.kind, doc.text);
    publish(s, doc, script_diagnostics(doc, check, s.encoding));
}

void on_document(ServerState& s, const std::shared_ptr<const Document>& doc, bool opened) {
    log_debug((opened ? "opened " : "changed ") + doc->uri + " (" + std::string(to_string(doc->kind)) + ", " +
              std::to_string(doc->text.size()) + " bytes)");
    if (doc->kind == DocumentKind::log) {
        s.logs.try_emplace(doc->uri);
        schedule_job(s, s.jobs.job_of(doc->uri), opened ? 0 : s.opts.debounce_ms);
        return;
    }
    // No longer a log (its language changed): its job goes on without it.
    if (s.logs.erase(doc->uri)) schedule_job(s, s.jobs.job_of(doc->uri), 0);
    if (is_launch_script(doc->kind)) check_script(s, *doc);
}

}  // namespace

void register_document_sync(ServerState& s) {
    // Both take their params: the document's text is moved out of the message, never copied.
    s.dispatcher.on_notification_taking("textDocument/didOpen", [&s](json&& params) {
        require_object(params, "params");
        const json& td = get_object(params, "textDocument", "params");
        const std::string uri = get_string(td, "uri", "params.textDocument");
        const std::string lang = get_optional_string(td, "languageId", "params.textDocument").value_or("");
        const std::int64_t version = get_optional_integer(td, "version", "params.textDocument").value_or(0);
        std::string text = take_string(params["textDocument"], "text", "params.textDocument");
        on_document(s, s.docs.open(uri, lang, version, std::move(text)), true);
    });

    s.dispatcher.on_notification_taking("textDocument/didChange", [&s](json&& params) {
        require_object(params, "params");
        const json& td = get_object(params, "textDocument", "params");
        const std::string uri = get_string(td, "uri", "params.textDocument");
        const std::int64_t version = get_optional_integer(td, "version", "params.textDocument").value_or(0);
        if (!find_member(params, "contentChanges"))
            throw RpcError(error_code::invalid_params, "params.contentChanges is missing");
        on_document(s, s.docs.change(uri, version, params["contentChanges"], s.encoding), false);
    });

    s.dispatcher.on_notification("textDocument/didClose", [&s](const json& params) {
        const std::string uri = get_text_document_uri(require_object(params, "params"));
        auto doc = s.docs.get(uri);
        if (!doc) return;
        s.docs.close(uri);
        // The rest of its job is diagnosed again without it (node0.log left alone says what is missing).
        if (s.logs.erase(uri)) schedule_job(s, s.jobs.job_of(uri), 0);
        if (doc->kind == DocumentKind::log || is_launch_script(doc->kind)) publish_empty(s, uri);
    });

    s.dispatcher.on_notification("textDocument/didSave", [](const json&) {});
}

}  // namespace denpex::server
