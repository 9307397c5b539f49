#include "server/handlers/language_server.hpp"

#include "server/handlers/server_state.hpp"

namespace denpex::server {

LanguageServer::LanguageServer(const Engine& engine, const ServeOptions& options, Executor& executor, Outbox& out)
    : state_(std::make_unique<ServerState>(engine, options, executor, out)) {
    register_lifecycle(*state_);
    register_document_sync(*state_);
    register_hover(*state_);
    register_code_actions(*state_);
    register_diagnose(*state_);
    register_watch(*state_);
}

LanguageServer::~LanguageServer() { stop_watches(*state_); }

void LanguageServer::handle(std::string_view body) { state_->dispatcher.handle(body); }

void LanguageServer::handle_owned(std::string body) { state_->dispatcher.handle_owned(std::move(body)); }

void LanguageServer::stop(const std::string& why) { state_->dispatcher.stop(why); }

void LanguageServer::on_exit(std::function<void(int)> handler) {
    state_->dispatcher.on_exit([this, handler = std::move(handler)](int code) {
        cancel_all();
        stop_watches(*state_);
        if (state_->parent_watch) state_->parent_watch->cancel();
        if (handler) handler(code);
    });
}

void LanguageServer::cancel_all() {
    state_->dispatcher.cancel_all();
    cancel_log_work(*state_);
}

Dispatcher& LanguageServer::dispatcher() { return state_->dispatcher; }

}  // namespace denpex::server
