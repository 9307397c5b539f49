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
#include <thread>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "engine/engine.hpp"
#include "engine/growing_text.hpp"
#include "server/dispatch/dispatcher.hpp"
#include "server/handlers/commands.hpp"
#include "server/handlers/documents.hpp"
#include "server/handlers/executor.hpp"
#include "server/handlers/log_jobs.hpp"
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

// An open log document (an entry exists exactly while it is open).
struct LogDocumentState {
    std::int64_t notes_version = -1;
    std::map<std::uint64_t, std::string> notes;   // from the last published diagnosis, for hovers
};

// What reading one part of a job gave (one document, or the documents of one node, which are read together):
// reused while the part's documents are the same snapshots, so an edit re-reads only the part it touched. The
// snapshots are held weakly: a cache must not keep an old 100 MB text alive.
// A part of one document that ends in a complete line also keeps its reader open (engine/growing_text.hpp): when the
// document only grew, the next read takes the lines appended and not the whole text again. A GrowingText has one
// owner at a time: a run takes it out of the cache and hands it back with its result (a cancelled run loses it).
struct ReadPart {
    std::vector<std::weak_ptr<const Document>> docs;
    std::shared_ptr<const Timeline> timeline;
    std::shared_ptr<GrowingText> growing;
};

// The diagnosis of one job of open log documents (server/handlers/log_jobs.hpp).
struct LogJobRun {
    std::shared_ptr<TimerHandle> debounce;
    std::shared_ptr<std::atomic<bool>> running;   // cancel flag of the diagnosis in flight
    std::map<std::string, ReadPart> parts;        // part key -> its last read
};

// A running `denpex/watch` (watch_request.cpp): its thread follows a folder until stopped or cancelled.
struct WatchSession {
    ~WatchSession();
    void request_stop();   // any thread; the watch answers its request with the final report

    std::string id;
    int wake_fd = -1;                 // an eventfd the watch's poll() wakes on
    std::atomic<bool> stop{false};
    std::thread thread;
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
    std::map<std::string, LogDocumentState> logs;   // open log documents, by URI
    LogJobs jobs;
    std::map<std::string, LogJobRun> job_runs;      // by job key
    std::shared_ptr<TimerHandle> parent_watch;
    std::map<std::string, std::shared_ptr<WatchSession>> watches;   // by watchId
    std::uint64_t next_watch = 1;

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
void register_watch(ServerState& s);

// Shared between features.
void cancel_log_work(ServerState& s);
// Log documents (log_job_runs.cpp): diagnoses `job` after `delay_ms` (a newer call restarts the wait), all its
// open documents together, and publishes diagnostics for each of them.
void schedule_job(ServerState& s, const std::string& job, unsigned delay_ms);
void execute_mark_job(ServerState& s, const nlohmann::json& arguments, Reply reply);
// Watches (watch_request.cpp): `end_watch` joins a finished watch's thread; `stop_watches` stops and joins all
// (exit: nothing of a watch may outlive the state).
void end_watch(ServerState& s, const std::string& id);
void stop_watches(ServerState& s);
void execute_insert_command(ServerState& s, const nlohmann::json& arguments, Reply reply);

}  // namespace denpex::server
