// initialize (capability negotiation), shutdown, the client-process watch, and work-done progress plumbing.
#include <cerrno>
#include <csignal>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "server/dispatch/rpc_error.hpp"
#include "server/handlers/progress.hpp"
#include "server/handlers/server_state.hpp"
#include "server/log.hpp"
#include "server/protocol/json_params.hpp"

#ifndef DENPEX_SERVER_VERSION
#define DENPEX_SERVER_VERSION "0.0.0"
#endif

namespace denpex::server {

using nlohmann::json;

namespace {

const json* at_path(const json& root, std::initializer_list<const char*> path) {
    const json* v = &root;
    for (const char* k : path) {
        if (!v->is_object()) return nullptr;
        auto it = v->find(k);
        if (it == v->end()) return nullptr;
        v = &*it;
    }
    return v;
}

bool flag(const json& caps, std::initializer_list<const char*> path) {
    const json* v = at_path(caps, path);
    return v && v->is_boolean() && v->get<bool>();
}

bool process_alive(long pid) { return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM; }

void watch_parent(ServerState& s, long pid) {
    s.parent_watch = s.exec.after(std::chrono::milliseconds(s.opts.parent_poll_ms), [&s, pid] {
        if (s.dispatcher.phase() == Dispatcher::Phase::exited) return;
        if (!process_alive(pid)) {
            log_warning("the client process " + std::to_string(pid) + " is gone");
            s.dispatcher.stop("client process " + std::to_string(pid) + " exited");
            return;
        }
        watch_parent(s, pid);
    });
}

}  // namespace

std::shared_ptr<WorkDoneProgress> ServerState::start_progress(const json* token, std::uint64_t bytes,
                                                              const std::string& title,
                                                              const std::shared_ptr<std::atomic<bool>>& cancel) {
    if (token && (token->is_string() || token->is_number_integer())) {
        // The client asked for progress on this request: honour it whatever the size.
        {
            std::lock_guard<std::mutex> lock(progress_mutex);
            progress_cancel[token->dump()] = cancel;
        }
        return WorkDoneProgress::start(dispatcher, WorkDoneProgress::Mode::client_token, *token, title, true);
    }
    if (bytes < opts.progress_threshold || !client.work_done_progress)
        return WorkDoneProgress::start(dispatcher, WorkDoneProgress::Mode::none, nullptr, title, false);
    json t = "denpex-progress-" + std::to_string(next_progress_token++);
    {
        std::lock_guard<std::mutex> lock(progress_mutex);
        progress_cancel[t.dump()] = cancel;
    }
    return WorkDoneProgress::start(dispatcher, WorkDoneProgress::Mode::server_created, t, title, true);
}

void ServerState::forget_progress(const json& token) {
    std::lock_guard<std::mutex> lock(progress_mutex);
    progress_cancel.erase(token.dump());
}

void register_lifecycle(ServerState& s) {
    s.dispatcher.on_request("initialize", [&s](const json& params, Reply reply) {
        require_object(params, "params");
        const json empty = json::object();
        const json* caps_p = find_member(params, "capabilities");
        if (caps_p && !caps_p->is_object())
            throw RpcError(error_code::invalid_params, "params.capabilities must be an object, " + describe(*caps_p));
        const json& caps = caps_p ? *caps_p : empty;

        // Position encoding: UTF-8 whenever the client offers it (no conversion at all), else the mandatory UTF-16.
        s.encoding = PositionEncoding::utf16;
        if (const json* encs = at_path(caps, {"general", "positionEncodings"}); encs && encs->is_array())
            for (const json& e : *encs)
                if (e.is_string() && e.get<std::string>() == "utf-8") s.encoding = PositionEncoding::utf8;

        if (const json* formats = at_path(caps, {"textDocument", "hover", "contentFormat"}); formats && formats->is_array())
            for (const json& f : *formats)
                if (f.is_string() && f.get<std::string>() == "markdown") s.client.markdown_hover = true;
        s.client.code_action_literals = at_path(caps, {"textDocument", "codeAction", "codeActionLiteralSupport"}) != nullptr;
        s.client.document_changes = flag(caps, {"workspace", "workspaceEdit", "documentChanges"});
        s.client.apply_edit = flag(caps, {"workspace", "applyEdit"});
        s.client.work_done_progress = flag(caps, {"window", "workDoneProgress"});
        if (const json* info = find_member(params, "clientInfo"); info && info->is_object())
            s.client.name = get_optional_string(*info, "name", "params.clientInfo").value_or("");

        // The client's process id (also given as --clientProcessId): exit when it dies.
        if (auto pid = get_optional_integer(params, "processId", "params"); pid && *pid > 0 && *pid <= INT32_MAX) {
            if (!s.opts.client_pid) watch_parent(s, static_cast<long>(*pid));
        }
        log_info("initialize from " + (s.client.name.empty() ? std::string("a client") : s.client.name) +
                 "; position encoding " + std::string(to_string(s.encoding)));

        json code_action = s.client.code_action_literals ? json{{"codeActionKinds", json::array({"quickfix"})}} : json(true);
        json capabilities = {
            {"positionEncoding", to_string(s.encoding)},
            {"textDocumentSync", {{"openClose", true}, {"change", 2}, {"save", false}}},
            {"hoverProvider", true},
            {"codeActionProvider", code_action},
            {"executeCommandProvider",
             {{"commands", json::array({kInsertAsyncErrorHandlingCommand, kDiagnoseCommand, kMarkJobCommand})}}},
            {"experimental", {{"denpexDiagnose", true}}},
        };
        reply.result({{"capabilities", capabilities},
                      {"serverInfo", {{"name", "denpex"}, {"version", DENPEX_SERVER_VERSION}}}});
    });

    s.dispatcher.on_notification("initialized", [](const json&) {});
    s.dispatcher.on_notification("$/setTrace", [](const json&) {});

    s.dispatcher.on_request("shutdown", [&s](const json&, Reply reply) {
        // The dispatcher already raised every request's cancel flag; stop the documents' work too, then answer at
        // once (clients give shutdown two seconds).
        cancel_log_work(s);
        if (s.parent_watch) s.parent_watch->cancel();
        reply.result(nullptr);
    });

    s.dispatcher.on_notification("window/workDoneProgress/cancel", [&s](const json& params) {
        const json* token = find_member(params, "token");
        if (!token) return;
        std::lock_guard<std::mutex> lock(s.progress_mutex);
        auto it = s.progress_cancel.find(token->dump());
        if (it == s.progress_cancel.end()) return;
        if (auto flag = it->second.lock()) flag->store(true);
    });

    if (s.opts.client_pid) watch_parent(s, *s.opts.client_pid);
}

}  // namespace denpex::server
