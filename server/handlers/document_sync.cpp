// didOpen / didChange / didClose, and the diagnostics they trigger: log documents are diagnosed by the engine
// on a worker, debounced while the client keeps changing them; launch scripts are checked inline (cheap).
#include <nlohmann/json.hpp>

#include "server/dispatch/rpc_error.hpp"
#include "server/handlers/log_diagnostics.hpp"
#include "server/handlers/progress.hpp"
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

// Runs the engine on the document's current snapshot; the result is published only if the document has not
// changed (or closed) meanwhile — a newer run is then already scheduled.
void diagnose_log(ServerState& s, const std::string& uri) {
    auto doc = s.docs.get(uri);
    if (!doc || s.dispatcher.phase() != Dispatcher::Phase::running) return;
    LogDocumentState& st = s.logs[uri];
    if (st.running) st.running->store(true);
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    st.running = cancel;
    auto progress = s.start_progress(nullptr, doc->text.size(), "denpex: diagnosing " + uri_basename(uri), cancel);
    const PositionEncoding enc = s.encoding;
    s.exec.post_work([&s, doc, cancel, progress, enc] {
        if (cancel->load()) return;
        DiagnoseInput input;
        input.texts.emplace_back(doc->uri, doc->text);
        DiagnoseOptions options;
        options.cancel = cancel.get();
        options.mask = s.opts.mask;
        const std::uint64_t total = std::max<std::uint64_t>(1, doc->text.size());
        options.progress = [progress, total](std::uint64_t bytes) {
            progress->report(static_cast<unsigned>(bytes * 100 / total), "");
        };
        bool cancelled = false;
        Report report;
        try {
            report = s.engine.diagnose(input, options, &cancelled);
        } catch (const std::exception& e) {
            log_error("diagnosing " + doc->uri + " failed: " + e.what());
            cancelled = true;
        }
        progress->end(cancelled ? "cancelled" : "done");
        s.forget_progress(progress->token());
        if (cancelled) return;
        auto findings = std::make_shared<LogFindings>(log_findings(report, doc->uri, doc->lines, enc));
        s.exec.post_io([&s, doc, cancel, findings] {
            auto current = s.docs.get(doc->uri);
            if (current != doc || cancel->load() || s.dispatcher.phase() != Dispatcher::Phase::running) return;
            LogDocumentState& state = s.logs[doc->uri];
            if (state.running == cancel) state.running.reset();
            state.notes = std::move(findings->notes);
            state.notes_version = doc->version;
            log_debug("publishing " + std::to_string(findings->diagnostics.size()) + " diagnostics for " + doc->uri);
            publish(s, *doc, std::move(findings->diagnostics));
        });
    });
}

void schedule_log(ServerState& s, const std::string& uri, unsigned delay_ms) {
    LogDocumentState& st = s.logs[uri];
    if (st.debounce) st.debounce->cancel();
    st.debounce = s.exec.after(std::chrono::milliseconds(delay_ms), [&s, uri] { diagnose_log(s, uri); });
}

void check_script(ServerState& s, const Document& doc) {
    const AsyncErrorHandlingCheck check = check_async_error_handling(doc.kind, doc.text);
    publish(s, doc, script_diagnostics(doc, check, s.encoding));
}

void on_document(ServerState& s, const std::shared_ptr<const Document>& doc, bool opened) {
    log_debug((opened ? "opened " : "changed ") + doc->uri + " (" + std::string(to_string(doc->kind)) + ", " +
              std::to_string(doc->text.size()) + " bytes)");
    if (doc->kind == DocumentKind::log) schedule_log(s, doc->uri, opened ? 0 : s.opts.debounce_ms);
    else if (is_launch_script(doc->kind)) check_script(s, *doc);
}

}  // namespace

void cancel_log_work(ServerState& s) {
    for (auto& [uri, st] : s.logs) {
        if (st.debounce) st.debounce->cancel();
        if (st.running) st.running->store(true);
    }
}

void register_document_sync(ServerState& s) {
    s.dispatcher.on_notification("textDocument/didOpen", [&s](const json& params) {
        require_object(params, "params");
        const json& td = get_object(params, "textDocument", "params");
        const std::string uri = get_string(td, "uri", "params.textDocument");
        const std::string lang = get_optional_string(td, "languageId", "params.textDocument").value_or("");
        const std::int64_t version = get_optional_integer(td, "version", "params.textDocument").value_or(0);
        std::string text = get_string(td, "text", "params.textDocument");
        on_document(s, s.docs.open(uri, lang, version, std::move(text)), true);
    });

    s.dispatcher.on_notification("textDocument/didChange", [&s](const json& params) {
        require_object(params, "params");
        const json& td = get_object(params, "textDocument", "params");
        const std::string uri = get_string(td, "uri", "params.textDocument");
        const std::int64_t version = get_optional_integer(td, "version", "params.textDocument").value_or(0);
        const json* changes = find_member(params, "contentChanges");
        if (!changes) throw RpcError(error_code::invalid_params, "params.contentChanges is missing");
        on_document(s, s.docs.change(uri, version, *changes, s.encoding), false);
    });

    s.dispatcher.on_notification("textDocument/didClose", [&s](const json& params) {
        const std::string uri = get_text_document_uri(require_object(params, "params"));
        auto doc = s.docs.get(uri);
        if (!doc) return;
        if (auto it = s.logs.find(uri); it != s.logs.end()) {
            if (it->second.debounce) it->second.debounce->cancel();
            if (it->second.running) it->second.running->store(true);
            s.logs.erase(it);
        }
        s.docs.close(uri);
        if (doc->kind == DocumentKind::log || is_launch_script(doc->kind)) publish_empty(s, uri);
    });

    s.dispatcher.on_notification("textDocument/didSave", [](const json&) {});
}

}  // namespace denpex::server
