// ServerState: what the LSP feature handlers share — the engine, the negotiated client facts, the open
// documents, per-log-document scheduling — plus the registration functions of each feature (one file each).
// Internal to server/handlers; the public face is LanguageServer.
//
// Threading. Everything here is touched on the I/O thread only, except: `engine` (immutable, thread-safe),
// `dispatcher`'s thread-safe sending side, and `progress_cancel` (own mutex). Workers receive Document
// snapshots and send results back through `exec.post_io`.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "engine/engine.hpp"
#include "server/dispatch/dispatcher.hpp"
#include "server/handlers/commands.hpp"
#include "server/handlers/documents.hpp"
#include "server/handlers/executor.hpp"
#include "server/options.hpp"
#include "server/protocol/position_encoding.hpp"

namespace denpex::server {

class WorkDoneProgress;

struct ClientFacts {
    bool markdown_hover = false;
    bool code_action_literals = false;
    bool document_changes = false;
    bool apply_edit = false;
    bool work_done_progress = false;
    std::string name;
};

struct LogDocumentState {
    std::shared_ptr<TimerHandle> debounce;
    std::shared_ptr<std::atomic<bool>> running;   // cancel flag of the diagnosis in flight
    std::int64_t notes_version = -1;
    std::map<std::uint64_t, std::string> notes;   // from the last published diagnosis, for hovers
};

struct ServerState {
    ServerState(const Engine& e, const ServeOptions& o, Executor& x, Outbox& out)
        : engine(e), opts(o), exec(x), dispatcher(out) {}

    const Engine& engine;
    ServeOptions opts;
    Executor& exec;
    Dispatcher dispatcher;
    DocumentStore docs;
    PositionEncoding encoding = PositionEncoding::utf16;
    ClientFacts client;
    std::map<std::string, LogDocumentState> logs;
    std::shared_ptr<TimerHandle> parent_watch;

    // Progress tokens -> the cancel flag of the work they report (window/workDoneProgress/cancel).
    std::mutex progress_mutex;
    std::map<std::string, std::weak_ptr<std::atomic<bool>>> progress_cancel;
    std::atomic<std::uint64_t> next_progress_token{1};

    // Starts progress for work over `bytes` (none below the threshold or without client support); `token` is
    // the request's workDoneToken when it sent one. The returned object is never null.
    std::shared_ptr<WorkDoneProgress> start_progress(const nlohmann::json* token, std::uint64_t bytes,
                                                     const std::string& title,
                                                     const std::shared_ptr<std::atomic<bool>>& cancel);
    void forget_progress(const nlohmann::json& token);
};

// Feature registration (each in its own file).
void register_lifecycle(ServerState& s);
void register_document_sync(ServerState& s);
void register_hover(ServerState& s);
void register_code_actions(ServerState& s);
void register_diagnose(ServerState& s);

// Shared between features.
void cancel_log_work(ServerState& s);
void execute_insert_command(ServerState& s, const nlohmann::json& arguments, Reply reply);

}  // namespace denpex::server
