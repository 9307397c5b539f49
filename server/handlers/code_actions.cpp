// textDocument/codeAction and the insert command: the TORCH_NCCL_ASYNC_ERROR_HANDLING quick-fix for launch
// scripts, as a CodeAction carrying a WorkspaceEdit (or, for clients without code-action literals, a Command
// that makes the server ask the client to apply the same edit).
#include <cstdint>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

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

constexpr std::uint64_t kMaxScriptBytes = 16u << 20;   // a launch script read from disk; anything larger is not one

bool overlaps(const Range& a, const Range& b) { return !(a.end < b.start) && !(b.end < a.start); }

// The open document, or the file behind a file:// URI read from disk (commands may name files not open).
std::shared_ptr<const Document> script_document(ServerState& s, const std::string& uri, bool& open) {
    open = false;
    if (auto doc = s.docs.get(uri)) {
        open = true;
        return doc;
    }
    auto path = uri_to_path(uri);
    if (!path) throw RpcError(error_code::invalid_params, "arguments[0].uri: " + uri + " is not open and not a file: URI");
    struct stat st {};
    if (::stat(path->c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        throw RpcError(error_code::invalid_params, "arguments[0].uri: " + *path + " is not a readable file");
    if (static_cast<std::uint64_t>(st.st_size) > kMaxScriptBytes)
        throw RpcError(error_code::invalid_params, "arguments[0].uri: " + *path + " is too large for a launch script");
    std::ifstream in(*path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return std::make_shared<const Document>(uri, "", 0, ss.str());
}

}  // namespace

void register_code_actions(ServerState& s) {
    s.dispatcher.on_request("textDocument/codeAction", [&s](const json& params, Reply reply) {
        require_object(params, "params");
        const std::string uri = get_text_document_uri(params);
        const Range range = get_range(params, "range", "params");
        const json* context = find_member(params, "context");
        if (context && !context->is_object())
            throw RpcError(error_code::invalid_params, "params.context must be an object, " + describe(*context));
        if (context)
            if (const json* only = find_member(*context, "only"); only && only->is_array()) {
                bool quickfix = false;
                for (const json& k : *only)
                    if (k.is_string() && (k == "quickfix" || k.get<std::string>().rfind("quickfix.", 0) == 0)) quickfix = true;
                if (!quickfix) {
                    reply.result(json::array());
                    return;
                }
            }
        auto doc = s.docs.get(uri);
        if (!doc || !is_launch_script(doc->kind)) {
            reply.result(json::array());
            return;
        }
        const AsyncErrorHandlingCheck check = check_async_error_handling(doc->kind, doc->text);
        if (check.edits.empty()) {
            reply.result(json::array());
            return;
        }
        json diagnostics = json::array();
        bool relevant = false;
        for (const json& d : script_diagnostics(*doc, check, s.encoding)) {
            // Offered on the launch line(s), wherever the cursor or selection touches them.
            const Range line_range{{d["range"]["start"]["line"].get<std::uint32_t>(), 0},
                                   {d["range"]["end"]["line"].get<std::uint32_t>(), UINT32_MAX}};
            if (overlaps(line_range, range)) {
                relevant = true;
                diagnostics.push_back(d);
            }
        }
        if (context)
            if (const json* ds = find_member(*context, "diagnostics"); ds && ds->is_array())
                for (const json& d : *ds)
                    if (d.is_object() && (d.value("code", json()) == kAsyncErrorHandlingCode ||
                                          d.value("code", json()) == kAsyncErrorHandlingDisabledCode))
                        relevant = true;
        if (!relevant) {
            reply.result(json::array());
            return;
        }
        if (!s.client.code_action_literals) {
            reply.result(json::array({{{"title", check.fix_title},
                                       {"command", kInsertAsyncErrorHandlingCommand},
                                       {"arguments", json::array({{{"uri", uri}}})}}}));
            return;
        }
        json action = {{"title", check.fix_title},
                       {"kind", "quickfix"},
                       {"diagnostics", diagnostics},
                       {"isPreferred", true},
                       {"edit", workspace_edit(uri, doc->lines, doc->version, check.edits, s.encoding,
                                               s.client.document_changes)}};
        reply.result(json::array({action}));
    });
}

// workspace/executeCommand for the insert command; registered by register_diagnose with the other command.
void execute_insert_command(ServerState& s, const json& arguments, Reply reply) {
    if (!arguments.is_array() || arguments.empty())
        throw RpcError(error_code::invalid_params, std::string(kInsertAsyncErrorHandlingCommand) +
                                                       " needs arguments: [{\"uri\": \"file:///...\"}]");
    const json& a = arguments[0];
    std::string uri;
    if (a.is_string()) uri = a.get<std::string>();
    else if (a.is_object()) uri = get_string(a, "uri", "params.arguments[0]");
    else throw RpcError(error_code::invalid_params, "params.arguments[0] must be a URI or {\"uri\": ...}, " + describe(a));
    bool open = false;
    auto doc = script_document(s, uri, open);
    if (!is_launch_script(doc->kind))
        throw RpcError(error_code::invalid_params, "params.arguments[0].uri: " + uri + " is not a launch script");
    const AsyncErrorHandlingCheck check = check_async_error_handling(doc->kind, doc->text);
    if (check.edits.empty()) {
        reply.result({{"applied", false},
                      {"reason", check.already_set ? "TORCH_NCCL_ASYNC_ERROR_HANDLING is already set"
                                                   : "no distributed training launch found"}});
        return;
    }
    json edit = workspace_edit(uri, doc->lines, open ? std::optional<std::int64_t>(doc->version) : std::nullopt,
                               check.edits, s.encoding, s.client.document_changes);
    if (!s.client.apply_edit) {
        reply.result({{"applied", false}, {"reason", "the client cannot apply edits"}, {"edit", edit}});
        return;
    }
    // The reply waits on the client's answer; cancelled, shut down or exited first, it is answered then.
    s.dispatcher.call("workspace/applyEdit", {{"label", check.fix_title}, {"edit", edit}},
                      [reply](const json* result, const json* error) {
                          if (error && error->is_object() && error->value("code", 0) == error_code::request_cancelled) {
                              reply.error(error_code::request_cancelled,
                                          reply.method() + " was cancelled before the client applied the edit");
                              return;
                          }
                          if (error) {
                              reply.result({{"applied", false}, {"reason", error->value("message", "the client failed")}});
                              return;
                          }
                          json r = {{"applied", result && result->is_object() && result->value("applied", false)}};
                          if (result && result->is_object() && result->contains("failureReason"))
                              r["reason"] = (*result)["failureReason"];
                          reply.result(r);
                      },
                      reply.cancel_token());
}

}  // namespace denpex::server
