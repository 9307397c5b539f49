// Test doubles for the server: an Outbox that records what was sent, and a deterministic Executor whose I/O
// queue, worker queue and timers run only when the test says so.
#pragma once

#include <algorithm>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/dispatch/outbox.hpp"
#include "server/handlers/executor.hpp"

namespace denpex::server::testing {

class RecordingOutbox : public Outbox {
public:
    void send(std::string body) override {
        std::lock_guard<std::mutex> lock(mutex_);
        sent_.push_back(nlohmann::json::parse(body));
    }
    std::vector<nlohmann::json> take() {
        std::lock_guard<std::mutex> lock(mutex_);
        std::vector<nlohmann::json> out;
        out.swap(sent_);
        return out;
    }
    // Messages so far that carry `key` == value (e.g. "id", 3 or "method", "$/progress"), without consuming them.
    std::vector<nlohmann::json> with(const std::string& key, const nlohmann::json& value) {
        std::lock_guard<std::mutex> lock(mutex_);
        std::vector<nlohmann::json> out;
        for (const auto& m : sent_)
            if (m.contains(key) && m[key] == value) out.push_back(m);
        return out;
    }

private:
    std::mutex mutex_;
    std::vector<nlohmann::json> sent_;
};

class ManualExecutor : public Executor {
public:
    struct Timer : TimerHandle {
        std::chrono::milliseconds due;
        std::function<void()> fn;
        bool cancelled = false;
        void cancel() override { cancelled = true; }
    };

    void post_io(std::function<void()> fn) override { io_.push_back(std::move(fn)); }
    void post_work(std::function<void()> fn) override { work_.push_back(std::move(fn)); }
    std::shared_ptr<TimerHandle> after(std::chrono::milliseconds delay, std::function<void()> fn) override {
        auto t = std::make_shared<Timer>();
        t->due = now_ + delay;
        t->fn = std::move(fn);
        timers_.push_back(t);
        return t;
    }

    std::size_t pending_work() const { return work_.size(); }
    std::size_t pending_io() const { return io_.size(); }

    // Runs queued I/O tasks and worker jobs (in the test's thread) until none is left; timers wait for advance().
    void run() {
        while (!io_.empty() || !work_.empty()) {
            while (!io_.empty()) {
                auto fn = std::move(io_.front());
                io_.pop_front();
                fn();
            }
            if (!work_.empty()) {
                auto fn = std::move(work_.front());
                work_.pop_front();
                fn();
            }
        }
    }
    // Runs only the I/O queue (workers stay queued: "a diagnosis is still running").
    void run_io() {
        while (!io_.empty()) {
            auto fn = std::move(io_.front());
            io_.pop_front();
            fn();
        }
    }
    // Moves the clock, fires due timers in order, then runs everything they queued.
    void advance(std::chrono::milliseconds d) {
        now_ += d;
        for (;;) {
            auto it = std::find_if(timers_.begin(), timers_.end(), [&](const auto& t) { return t->due <= now_; });
            if (it == timers_.end()) break;
            auto t = *it;
            timers_.erase(it);
            if (!t->cancelled) t->fn();
        }
        run();
    }

private:
    std::deque<std::function<void()>> io_, work_;
    std::vector<std::shared_ptr<Timer>> timers_;
    std::chrono::milliseconds now_{0};
};

inline std::string frame_body(const nlohmann::json& j) { return j.dump(); }

}  // namespace denpex::server::testing
