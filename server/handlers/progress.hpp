// Work-done progress ($/progress begin/report/end) for one long operation.
//
// Contract. Thread-safe; each token is used once: one begin, reports, one end, in that order.
//   - Client-initiated: the request carried a `workDoneToken`; begin is sent at once. The token is valid only
//     until the response, so the caller ends the progress before replying.
//   - Server-initiated (the client announced window.workDoneProgress): the server asks
//     window/workDoneProgress/create and sends nothing on the token until the client agreed; if it refuses,
//     nothing is ever sent (LSP: "must not send any progress notification using the token"). Reports made
//     while waiting are folded into the begin; if the work ends first, nothing is shown at all.
//   - Neither: every call is a no-op.
// Reports are sent only when the percentage moves, so a fast loop cannot flood the client.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

namespace denpex::server {

class Dispatcher;

class WorkDoneProgress : public std::enable_shared_from_this<WorkDoneProgress> {
public:
    enum class Mode { none, client_token, server_created };

    static std::shared_ptr<WorkDoneProgress> start(Dispatcher& dispatcher, Mode mode, nlohmann::json token,
                                                   std::string title, bool cancellable);

    void report(unsigned percent, const std::string& message);
    void end(const std::string& message);
    const nlohmann::json& token() const { return token_; }

private:
    enum class State { creating, live, refused, ended };
    WorkDoneProgress(Dispatcher& d, nlohmann::json token, std::string title, bool cancellable);
    void send_begin_locked();

    Dispatcher& dispatcher_;
    nlohmann::json token_;
    std::string title_;
    bool cancellable_;
    std::mutex mutex_;
    State state_ = State::creating;
    int last_percent_ = -1;
    std::string last_message_;
    bool ended_early_ = false;
};

}  // namespace denpex::server
