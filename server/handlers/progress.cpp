#include "server/handlers/progress.hpp"

#include "server/dispatch/dispatcher.hpp"
#include "server/log.hpp"

namespace denpex::server {

using nlohmann::json;

WorkDoneProgress::WorkDoneProgress(Dispatcher& d, json token, std::string title, bool cancellable)
    : dispatcher_(d), token_(std::move(token)), title_(std::move(title)), cancellable_(cancellable) {}

std::shared_ptr<WorkDoneProgress> WorkDoneProgress::start(Dispatcher& dispatcher, Mode mode, json token,
                                                          std::string title, bool cancellable) {
    std::shared_ptr<WorkDoneProgress> p(
        new WorkDoneProgress(dispatcher, std::move(token), std::move(title), cancellable));
    if (mode == Mode::none) {
        p->state_ = State::refused;
        return p;
    }
    if (mode == Mode::client_token) {
        std::lock_guard<std::mutex> lock(p->mutex_);
        p->send_begin_locked();
        return p;
    }
    std::weak_ptr<WorkDoneProgress> weak = p;
    dispatcher.call("window/workDoneProgress/create", {{"token", p->token_}},
                    [weak](const json*, const json* error) {
                        auto self = weak.lock();
                        if (!self) return;
                        std::lock_guard<std::mutex> lock(self->mutex_);
                        if (error) {
                            log_debug("the client refused progress token " + self->token_.dump());
                            self->state_ = State::refused;
                            return;
                        }
                        if (self->state_ != State::creating) return;
                        if (self->ended_early_) {
                            self->state_ = State::ended;   // finished before the client agreed: show nothing
                            return;
                        }
                        self->send_begin_locked();
                    });
    return p;
}

void WorkDoneProgress::send_begin_locked() {
    json value = {{"kind", "begin"}, {"title", title_}, {"cancellable", cancellable_},
                  {"percentage", last_percent_ < 0 ? 0 : last_percent_}};
    if (!last_message_.empty()) value["message"] = last_message_;
    dispatcher_.notify("$/progress", {{"token", token_}, {"value", value}});
    state_ = State::live;
}

void WorkDoneProgress::report(unsigned percent, const std::string& message) {
    if (percent > 100) percent = 100;
    std::lock_guard<std::mutex> lock(mutex_);
    if (static_cast<int>(percent) <= last_percent_) return;
    last_percent_ = static_cast<int>(percent);
    last_message_ = message;
    if (state_ != State::live) return;
    json value = {{"kind", "report"}, {"percentage", percent}};
    if (!message.empty()) value["message"] = message;
    dispatcher_.notify("$/progress", {{"token", token_}, {"value", value}});
}

void WorkDoneProgress::end(const std::string& message) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (state_ == State::creating) {
        ended_early_ = true;
        return;
    }
    if (state_ != State::live) return;
    json value = {{"kind", "end"}};
    if (!message.empty()) value["message"] = message;
    dispatcher_.notify("$/progress", {{"token", token_}, {"value", value}});
    state_ = State::ended;
}

}  // namespace denpex::server
