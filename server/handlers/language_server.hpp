// LanguageServer: the LSP server's features wired onto a JSON-RPC dispatcher. No I/O of its own: message
// bodies come in through `handle()` (on the I/O thread), everything goes out through the Outbox, and work is
// scheduled on the Executor. serve.cpp connects it to stdin/stdout and Boost.Asio; tests connect it to fakes.
//
// Features: initialize/shutdown/exit; document sync (full and incremental); log documents -> diagnostics
// (debounced, on workers); hover on log lines; the TORCH_NCCL_ASYNC_ERROR_HANDLING check and quick-fix for
// launch scripts; workspace/executeCommand (denpex.server.*); the custom request `denpex/diagnose`.
#pragma once

#include <functional>
#include <memory>
#include <string_view>

#include "server/options.hpp"

namespace denpex {
class Engine;
}

namespace denpex::server {

class Executor;
class Outbox;
class Dispatcher;
struct ServerState;

class LanguageServer {
public:
    LanguageServer(const Engine& engine, const ServeOptions& options, Executor& executor, Outbox& out);
    ~LanguageServer();
    LanguageServer(const LanguageServer&) = delete;
    LanguageServer& operator=(const LanguageServer&) = delete;

    void handle(std::string_view body);
    // The transport's path: the body is freed once parsed (Dispatcher::handle_owned).
    void handle_owned(std::string body);
    // Input ended or the client is gone: end as `exit` would.
    void stop(const std::string& why);
    // Runs once when the session ends, with the process exit code (0 only after shutdown).
    void on_exit(std::function<void(int code)> handler);
    // Raises every cancel flag (requests and document diagnoses), so workers finish quickly.
    void cancel_all();
    Dispatcher& dispatcher();

private:
    std::unique_ptr<ServerState> state_;
};

}  // namespace denpex::server
