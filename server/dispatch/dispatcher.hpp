// Dispatcher: JSON-RPC 2.0 over message bodies, with the LSP lifecycle gates. Knows nothing of LSP features.
//
// Contract. `handle(body)` takes one message body from the transport, on the I/O thread, and:
//   - replies ParseError (-32700, id null) to a body that is not JSON, InvalidRequest (-32600) to JSON that is
//     not a JSON-RPC 2.0 message (batches included: LSP has none), and carries on with the next message;
//     invalid UTF-8 inside a body is replaced (U+FFFD) and logged rather than rejected;
//   - routes requests to their handler with a Reply (answered exactly once, see reply.hpp); params that are
//     neither object nor array -> InvalidParams; a handler's RpcError becomes the error reply (InvalidParams
//     messages are prefixed with the method), any other exception InternalError;
//   - lifecycle: before `initialize`, requests get ServerNotInitialized (-32002) and notifications other than
//     `exit` are dropped; an `initialize` whose handler fails (bad params) can be sent again; a second
//     successful one and any request after `shutdown` get InvalidRequest; `exit` stops the server with code 0
//     after `shutdown`, else 1;
//   - unknown requests get MethodNotFound (-32601); unknown notifications are ignored ("$/" ones silently);
//   - `$/cancelRequest {id}` raises the cancel flag of that request while it runs (its handler replies
//     RequestCancelled -32800 or, if it finished first, its result: cancellation is cooperative and racy);
//   - responses from the client are routed to the callback of the server's request (`call`); a call made for a
//     request gives up when that request is cancelled, so the request is still answered exactly once.
// Handlers run on the I/O thread and must return quickly; long work takes its Reply to a worker. `call`,
// `notify` and Reply may be used from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "server/dispatch/reply.hpp"

namespace denpex::server {

class Outbox;

class Dispatcher {
public:
    using RequestHandler = std::function<void(const nlohmann::json& params, Reply reply)>;
    using NotificationHandler = std::function<void(const nlohmann::json& params)>;
    // A handler that takes its params: it may move big strings out of them (a didOpen's document text).
    using TakingNotificationHandler = std::function<void(nlohmann::json&& params)>;
    // Exactly one of `result`/`error` is non-null.
    using ResponseHandler = std::function<void(const nlohmann::json* result, const nlohmann::json* error)>;

    enum class Phase { uninitialized, running, shut_down, exited };

    explicit Dispatcher(Outbox& out);
    ~Dispatcher();

    void on_request(const std::string& method, RequestHandler handler);
    void on_notification(const std::string& method, NotificationHandler handler);
    void on_notification_taking(const std::string& method, TakingNotificationHandler handler);
    // Runs once when `exit` arrives (or `stop()` is called), with the exit code.
    void on_exit(std::function<void(int code)> handler) { on_exit_ = std::move(handler); }

    void handle(std::string_view body);
    // As handle(), but the body is freed as soon as it is parsed, before any handler runs: a 100 MB didOpen is
    // then held once as JSON text, once as the document, never three times.
    void handle_owned(std::string body);

    // Server -> client.
    void notify(const std::string& method, const nlohmann::json& params);
    // `cancel`: the flag of the request this call serves (Reply::cancel_token). When it is raised
    // ($/cancelRequest, shutdown, exit) before the client answers, `on_response` runs at once with the error
    // RequestCancelled and a later answer is ignored: the request behind it is answered even by a client that
    // never answers (or answers with broken JSON).
    void call(const std::string& method, const nlohmann::json& params, ResponseHandler on_response,
              std::shared_ptr<std::atomic<bool>> cancel = nullptr);

    // Raises every running request's cancel flag (shutdown, exit).
    void cancel_all();
    // Ends the session as `exit` would (input closed, client gone): code 0 after shutdown, else 1.
    void stop(const std::string& why);

    Phase phase() const { return phase_; }
    int exit_code() const { return exit_code_; }
    Outbox& outbox() { return out_; }

private:
    // Parses `body` into `msg`; false after answering a body that is not JSON.
    bool parse(std::string_view body, nlohmann::json& msg);
    void handle_parsed(nlohmann::json& msg);
    void handle_message(nlohmann::json& msg);
    void handle_request(const nlohmann::json& id, const std::string& method, const nlohmann::json& params);
    void handle_notification(const std::string& method, nlohmann::json& params);
    void handle_response(const nlohmann::json& msg);
    void send_error(const nlohmann::json& id, int code, const std::string& message);
    void cancel(const nlohmann::json& id);

    Outbox& out_;
    Phase phase_ = Phase::uninitialized;
    int exit_code_ = 1;
    std::map<std::string, RequestHandler, std::less<>> requests_;
    std::map<std::string, NotificationHandler, std::less<>> notifications_;
    std::map<std::string, TakingNotificationHandler, std::less<>> taking_notifications_;
    std::function<void(int)> on_exit_;

    struct Running {
        std::uint64_t cookie;
        std::shared_ptr<std::atomic<bool>> flag;
    };
    std::mutex running_mutex_;
    std::map<std::string, Running> running_;   // keyed by the id's JSON text: 1 and "1" are different ids
    std::uint64_t next_cookie_ = 1;

    void abandon_cancelled_calls();

    struct PendingCall {
        ResponseHandler handler;
        std::shared_ptr<std::atomic<bool>> cancel;
    };
    std::mutex calls_mutex_;
    std::map<std::int64_t, PendingCall> calls_;
    std::int64_t next_call_id_ = 1;
};

}  // namespace denpex::server
