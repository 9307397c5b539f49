#include "server/dispatch/dispatcher.hpp"

#include <vector>

#include <optional>
#include <utility>

#include <nlohmann/json.hpp>

#include "server/dispatch/outbox.hpp"
#include "server/dispatch/rpc_error.hpp"
#include "server/log.hpp"
#include "server/protocol/json_parse.hpp"
#include "server/protocol/json_params.hpp"
#include "server/protocol/lsp_types.hpp"
#include "server/protocol/utf8.hpp"

namespace denpex::server {

using nlohmann::json;

namespace {

// Calls the server made whose answers never came are forgotten beyond this many (oldest first), so a client
// that never answers cannot grow the table without bound.
constexpr std::size_t kMaxPendingCalls = 100;

bool valid_id(const json& id) { return id.is_string() || id.is_number_integer(); }

std::string short_method(const json& m) {
    std::string s = m.is_string() ? m.get<std::string>() : m.dump();
    return s.size() > 80 ? s.substr(0, 80) + "..." : s;
}

}  // namespace

Dispatcher::Dispatcher(Outbox& out) : out_(out) {}
Dispatcher::~Dispatcher() {
    // Pending calls may hold Replies whose last copy answers "server failed to reply" and then reaches back into
    // `running_`: drop them while everything else is still alive.
    std::map<std::int64_t, PendingCall> calls;
    {
        std::lock_guard<std::mutex> lock(calls_mutex_);
        calls.swap(calls_);
    }
    calls.clear();
}

void Dispatcher::on_request(const std::string& method, RequestHandler handler) { requests_[method] = std::move(handler); }

void Dispatcher::on_notification(const std::string& method, NotificationHandler handler) {
    notifications_[method] = std::move(handler);
}

void Dispatcher::on_notification_taking(const std::string& method, TakingNotificationHandler handler) {
    taking_notifications_[method] = std::move(handler);
}

void Dispatcher::send_error(const json& id, int code, const std::string& message) {
    log_debug("--> error " + std::to_string(code) + " (id " + id.dump() + "): " + message);
    out_.send(serialize({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}}));
}

bool Dispatcher::parse(std::string_view body, json& msg) {
    std::string sanitized;
    if (!is_valid_utf8(body)) {
        log_warning("a message holds bytes that are not UTF-8; they were replaced by U+FFFD");
        sanitized = sanitize_utf8(body);
        body = sanitized;
    }
    std::string error;
    if (parse_message_json(body, msg, error)) return true;
    // Say where parsing failed: nlohmann's exception text names the byte. A number too large for a double
    // ("1e999") is an out_of_range (406), not a parse_error: also an answer, never an exception out of here
    // (found by tests/fuzz/fuzz_dispatcher).
    const std::string why = "the message is not valid JSON: " + error;
    log_warning(why);
    send_error(nullptr, error_code::parse_error, why);
    return false;
}

void Dispatcher::handle_parsed(json& msg) {
    try {
        handle_message(msg);
    } catch (const std::exception& e) {
        // Only a bug gets here (handlers' exceptions are caught where they run); keep serving.
        log_error(std::string("internal error while handling a message: ") + e.what());
    } catch (...) {
        log_error("internal error while handling a message");
    }
}

void Dispatcher::handle(std::string_view body) {
    if (phase_ == Phase::exited) return;
    json msg;
    if (parse(body, msg)) handle_parsed(msg);
}

void Dispatcher::handle_owned(std::string body) {
    if (phase_ == Phase::exited) return;
    json msg;
    bool ok = false;
    if (is_valid_utf8(body)) {
        std::string error;
        ok = parse_message_json_owned(body, msg, error);
        if (!ok) {
            log_warning("the message is not valid JSON: " + error);
            send_error(nullptr, error_code::parse_error, "the message is not valid JSON: " + error);
        }
    } else {
        ok = parse(body, msg);
    }
    std::string().swap(body);
    if (ok) handle_parsed(msg);
}

void Dispatcher::handle_message(json& msg) {
    if (msg.is_array()) {
        send_error(nullptr, error_code::invalid_request, "batch messages are not supported by the LSP");
        return;
    }
    if (!msg.is_object()) {
        send_error(nullptr, error_code::invalid_request, "a JSON-RPC message must be an object, " + describe(msg));
        return;
    }
    const auto id_it = msg.find("id");
    const bool has_id = id_it != msg.end();
    const json id = has_id && valid_id(*id_it) ? *id_it : json(nullptr);
    if (has_id && !valid_id(*id_it)) {
        send_error(nullptr, error_code::invalid_request, "\"id\" must be an integer or a string, " + describe(*id_it));
        return;
    }
    const auto version = msg.find("jsonrpc");
    if (version == msg.end() || !version->is_string() || *version != "2.0") {
        send_error(id, error_code::invalid_request, "\"jsonrpc\" must be \"2.0\"");
        return;
    }
    const auto method_it = msg.find("method");
    if (method_it == msg.end()) {
        if (has_id && (msg.contains("result") || msg.contains("error"))) {
            handle_response(msg);
            return;
        }
        send_error(id, error_code::invalid_request, "a message needs a \"method\" (or, as a response, a \"result\")");
        return;
    }
    if (!method_it->is_string()) {
        if (has_id) send_error(id, error_code::invalid_request, "\"method\" must be a string, " + describe(*method_it));
        else log_warning("dropped a notification whose method is not a string");
        return;
    }
    const std::string method = method_it->get<std::string>();
    const auto params_it = msg.find("params");
    json no_params = nullptr;
    json& params = params_it == msg.end() ? no_params : *params_it;
    if (!params.is_null() && !params.is_object() && !params.is_array()) {
        if (has_id) send_error(id, error_code::invalid_params, method + ": params must be an object, " + describe(params));
        else log_warning("dropped notification " + short_method(*method_it) + ": params must be an object");
        return;
    }
    if (has_id) handle_request(id, method, params);
    else handle_notification(method, params);
}

void Dispatcher::handle_request(const json& id, const std::string& method, const json& params) {
    log_verbose("<-- " + method + " (id " + id.dump() + ")");
    if (method == "exit" || method == "initialized" || method == "$/cancelRequest") {
        send_error(id, error_code::invalid_request, "'" + method + "' is a notification: send it without an id");
        return;
    }
    if (method == "initialize") {
        if (phase_ != Phase::uninitialized) {
            send_error(id, error_code::invalid_request, "initialize may only be sent once");
            return;
        }
    } else if (phase_ == Phase::uninitialized) {
        send_error(id, error_code::server_not_initialized, "the server is not initialized: send 'initialize' first");
        return;
    } else if (phase_ == Phase::shut_down) {
        send_error(id, error_code::invalid_request, "the server is shutting down: only 'exit' is accepted");
        return;
    }

    auto it = requests_.find(method);
    if (it == requests_.end()) {
        if (method == "shutdown") {   // shutdown needs no handler to work
            phase_ = Phase::shut_down;
            cancel_all();
            out_.send(serialize({{"jsonrpc", "2.0"}, {"id", id}, {"result", nullptr}}));
            return;
        }
        send_error(id, error_code::method_not_found, "method not found: " + method);
        return;
    }

    auto flag = std::make_shared<std::atomic<bool>>(false);
    const std::string key = id.dump();
    std::uint64_t cookie;
    {
        std::lock_guard<std::mutex> lock(running_mutex_);
        cookie = next_cookie_++;
        running_[key] = Running{cookie, flag};   // a reused id: the newest request owns the key
    }
    Reply reply(id, method, out_, flag, [this, key, cookie] {
        std::lock_guard<std::mutex> lock(running_mutex_);
        auto r = running_.find(key);
        if (r != running_.end() && r->second.cookie == cookie) running_.erase(r);
    });

    if (method == "initialize") phase_ = Phase::running;
    if (method == "shutdown") {
        phase_ = Phase::shut_down;
        cancel_all();
    }
    std::optional<std::pair<int, std::string>> failure;
    try {
        it->second(params, reply);
    } catch (const RpcError& e) {
        failure.emplace(e.code(), e.code() == error_code::invalid_params ? method + ": " + e.what() : std::string(e.what()));
    } catch (const std::exception& e) {
        failure.emplace(error_code::internal_error, method + " failed: " + e.what());
    } catch (...) {
        failure.emplace(error_code::internal_error, method + " failed");
    }
    if (!failure) return;
    // A failed initialize leaves the server uninitialized, so the client can try again.
    if (method == "initialize") phase_ = Phase::uninitialized;
    if (failure->first == error_code::internal_error) log_error(failure->second);
    if (!reply.replied()) reply.error(failure->first, failure->second);
    else log_error("after replying, " + method + " failed: " + failure->second);
}

void Dispatcher::handle_notification(const std::string& method, json& params) {
    log_verbose("<-- " + method);
    if (method == "exit") {
        stop("exit notification");
        return;
    }
    if (phase_ == Phase::uninitialized) {
        log_debug("dropped notification " + method + " before initialize");
        return;
    }
    if (method == "$/cancelRequest") {
        if (params.is_object() && params.contains("id") && valid_id(params["id"])) cancel(params["id"]);
        else log_warning("$/cancelRequest without a valid id");
        return;
    }
    if (phase_ == Phase::shut_down) {
        log_debug("dropped notification " + method + " after shutdown");
        return;
    }
    auto it = notifications_.find(method);
    auto taking = taking_notifications_.find(method);
    if (it == notifications_.end() && taking == taking_notifications_.end()) {
        if (method.rfind("$/", 0) != 0) log_debug("ignored notification " + method);
        return;
    }
    try {
        if (taking != taking_notifications_.end()) taking->second(std::move(params));
        else it->second(params);
    } catch (const RpcError& e) {
        log_warning(method + ": " + e.what());
    } catch (const std::exception& e) {
        log_error(method + " failed: " + e.what());
    }
}

void Dispatcher::handle_response(const json& msg) {
    const json& id = msg["id"];
    ResponseHandler handler;
    if (id.is_number_integer()) {
        std::lock_guard<std::mutex> lock(calls_mutex_);
        auto it = calls_.find(id.get<std::int64_t>());
        if (it != calls_.end()) {
            handler = std::move(it->second.handler);
            calls_.erase(it);
        }
    }
    if (!handler) {
        log_warning("a response to an unknown request id " + id.dump() + " was ignored");
        return;
    }
    const json* result = msg.contains("result") ? &msg["result"] : nullptr;
    const json* error = msg.contains("error") ? &msg["error"] : nullptr;
    if (error) result = nullptr;
    try {
        handler(result, error);
    } catch (const std::exception& e) {
        log_error(std::string("handling a response failed: ") + e.what());
    }
}

void Dispatcher::notify(const std::string& method, const json& params) {
    log_verbose("--> " + method);
    out_.send(serialize({{"jsonrpc", "2.0"}, {"method", method}, {"params", params}}));
}

void Dispatcher::call(const std::string& method, const json& params, ResponseHandler on_response,
                      std::shared_ptr<std::atomic<bool>> cancel) {
    std::int64_t id;
    ResponseHandler dropped;
    {
        std::lock_guard<std::mutex> lock(calls_mutex_);
        id = next_call_id_++;
        calls_[id] = PendingCall{std::move(on_response), std::move(cancel)};
        if (calls_.size() > kMaxPendingCalls) {
            dropped = std::move(calls_.begin()->second.handler);
            calls_.erase(calls_.begin());
        }
    }
    if (dropped) {
        static const json kGaveUp = {{"code", error_code::request_failed}, {"message", "no response from the client"}};
        dropped(nullptr, &kGaveUp);
    }
    log_verbose("--> " + method + " (id " + std::to_string(id) + ")");
    out_.send(serialize({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}));
}

void Dispatcher::cancel(const json& id) {
    {
        std::lock_guard<std::mutex> lock(running_mutex_);
        auto it = running_.find(id.dump());
        if (it == running_.end()) {
            log_debug("$/cancelRequest for " + id.dump() + ": no such request is running");
            return;
        }
        log_debug("cancelling request " + id.dump());
        it->second.flag->store(true);
    }
    abandon_cancelled_calls();
}

void Dispatcher::cancel_all() {
    {
        std::lock_guard<std::mutex> lock(running_mutex_);
        for (auto& [key, r] : running_) r.flag->store(true);
    }
    abandon_cancelled_calls();
}

// Calls made for a request that is now cancelled stop waiting for the client: their callbacks run with
// RequestCancelled (outside the locks: they answer their request, which reaches back into `running_`).
void Dispatcher::abandon_cancelled_calls() {
    std::vector<ResponseHandler> abandoned;
    {
        std::lock_guard<std::mutex> lock(calls_mutex_);
        for (auto it = calls_.begin(); it != calls_.end();) {
            if (it->second.cancel && it->second.cancel->load()) {
                abandoned.push_back(std::move(it->second.handler));
                it = calls_.erase(it);
            } else {
                ++it;
            }
        }
    }
    static const json kCancelled = {{"code", error_code::request_cancelled},
                                    {"message", "cancelled before the client answered"}};
    for (auto& handler : abandoned) {
        try {
            handler(nullptr, &kCancelled);
        } catch (const std::exception& e) {
            log_error(std::string("abandoning a call failed: ") + e.what());
        }
    }
}

void Dispatcher::stop(const std::string& why) {
    if (phase_ == Phase::exited) return;
    exit_code_ = phase_ == Phase::shut_down ? 0 : 1;
    log_info("exiting (" + why + ") with code " + std::to_string(exit_code_));
    phase_ = Phase::exited;
    cancel_all();
    if (on_exit_) on_exit_(exit_code_);
}

}  // namespace denpex::server
