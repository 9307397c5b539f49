#include "server/dispatch/reply.hpp"

#include <chrono>

#include <nlohmann/json.hpp>

#include "server/dispatch/outbox.hpp"
#include "server/log.hpp"
#include "server/protocol/lsp_types.hpp"

namespace denpex::server {

using nlohmann::json;

std::string serialize(const json& message) { return message.dump(-1, ' ', false, json::error_handler_t::replace); }

struct Reply::State {
    json id;
    std::string method;
    Outbox& out;
    std::shared_ptr<std::atomic<bool>> cancel;
    std::function<void()> on_done;
    std::atomic<bool> replied{false};
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();

    State(json i, std::string m, Outbox& o, std::shared_ptr<std::atomic<bool>> c, std::function<void()> d)
        : id(std::move(i)), method(std::move(m)), out(o), cancel(std::move(c)), on_done(std::move(d)) {}

    // Claims the one answer; false (and a log line) when it was already given.
    bool claim(const char* what) {
        if (replied.exchange(true)) {
            log_error("a second " + std::string(what) + " to " + method + " (id " + id.dump() + ") was dropped");
            return false;
        }
        return true;
    }

    void send(json message) {
        if (log_enabled(LogLevel::verbose)) {
            const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
            log_verbose("--> reply " + method + " (id " + id.dump() + ") after " + std::to_string(ms.count()) + " ms" +
                        (message.contains("error") ? ": error " + message["error"]["message"].get<std::string>() : ""));
        }
        out.send(serialize(message));
        if (on_done) on_done();
    }

    ~State() {
        if (!replied.load()) {
            log_error("request " + method + " (id " + id.dump() + ") was dropped without an answer");
            replied = true;
            try {
                send({{"jsonrpc", "2.0"}, {"id", id},
                      {"error", {{"code", error_code::internal_error}, {"message", "server failed to reply"}}}});
            } catch (...) {   // a destructor must not throw; the log line above already says what happened
            }
        }
    }
};

Reply::Reply(json id, std::string method, Outbox& out, std::shared_ptr<std::atomic<bool>> cancel,
             std::function<void()> on_done)
    : state_(std::make_shared<State>(std::move(id), std::move(method), out,
                                     cancel ? std::move(cancel) : std::make_shared<std::atomic<bool>>(false),
                                     std::move(on_done))) {}

void Reply::result(const json& value) const {
    if (!state_->claim("result")) return;
    state_->send({{"jsonrpc", "2.0"}, {"id", state_->id}, {"result", value}});
}

void Reply::error(int code, const std::string& message) const {
    if (!state_->claim("error")) return;
    state_->send({{"jsonrpc", "2.0"}, {"id", state_->id}, {"error", {{"code", code}, {"message", message}}}});
}

const std::atomic<bool>* Reply::cancel_flag() const { return state_->cancel.get(); }
std::shared_ptr<std::atomic<bool>> Reply::cancel_token() const { return state_->cancel; }
bool Reply::replied() const { return state_->replied.load(); }
const std::string& Reply::method() const { return state_->method; }
const json& Reply::id() const { return state_->id; }

}  // namespace denpex::server
