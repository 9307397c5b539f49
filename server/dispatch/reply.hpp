// Reply: the one answer a request gets.
//
// Contract. A Reply is a cheap, copyable handle (copies share one state) that can travel to a worker thread.
// The first `result()` or `error()` sends the response; any later one is logged and dropped. If the last copy
// is destroyed without an answer, the response InternalError "server failed to reply" is sent — so every
// request is answered exactly once, whatever a handler does. `cancelled()` turns true when the client sent
// `$/cancelRequest` for this id (or the server is shutting down); the flag is what Engine::diagnose polls.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace denpex::server {

class Outbox;

class Reply {
public:
    // `on_done` runs once, after the response was sent (the dispatcher forgets the cancel token there).
    Reply(nlohmann::json id, std::string method, Outbox& out, std::shared_ptr<std::atomic<bool>> cancel,
          std::function<void()> on_done);

    void result(const nlohmann::json& value) const;
    void error(int code, const std::string& message) const;

    bool cancelled() const { return cancel_flag()->load(std::memory_order_relaxed); }
    const std::atomic<bool>* cancel_flag() const;
    std::shared_ptr<std::atomic<bool>> cancel_token() const;
    bool replied() const;
    const std::string& method() const;
    const nlohmann::json& id() const;

private:
    struct State;
    std::shared_ptr<State> state_;
};

// Serialises a JSON value for the wire: compact, and invalid UTF-8 in strings replaced rather than thrown on.
std::string serialize(const nlohmann::json& message);

}  // namespace denpex::server
