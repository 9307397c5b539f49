// Executor: where the server's code runs — the I/O thread (protocol state lives there), worker threads
// (diagnoses), and timers (debounce, client-process watch).
//
// Contract. `post_io` runs the function on the I/O thread, after the current handler returns; `post_work`
// runs it on a worker, concurrently with the I/O thread. `after(delay, fn)` runs fn on the I/O thread once the
// delay passed, unless the returned handle was cancelled first (cancelling from the I/O thread guarantees fn
// will not run). Nothing runs after `stop()`. The real implementation is Boost.Asio's (runtime/asio_executor);
// tests use a deterministic one. Keeping Asio behind this interface keeps it out of every handler's build.
#pragma once

#include <chrono>
#include <functional>
#include <memory>

namespace denpex::server {

class TimerHandle {
public:
    virtual ~TimerHandle() = default;
    virtual void cancel() = 0;
};

class Executor {
public:
    virtual ~Executor() = default;
    virtual void post_io(std::function<void()> fn) = 0;
    virtual void post_work(std::function<void()> fn) = 0;
    virtual std::shared_ptr<TimerHandle> after(std::chrono::milliseconds delay, std::function<void()> fn) = 0;
};

}  // namespace denpex::server
