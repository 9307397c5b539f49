// AsioExecutor: the Executor on Boost.Asio — an io_context run by the I/O thread and an asio::thread_pool
// for diagnoses.
//
// Contract. `post_io` / `after` go to the io_context; `post_work` to the pool. `join()` stops the pool from
// taking new work and waits until the queued and running jobs are done (callers raise cancel flags first, so
// that is quick); it must be called before the objects the jobs use are destroyed. A job that throws is logged, never allowed to terminate the
// process.
#pragma once

#include <memory>

#include "server/handlers/executor.hpp"

namespace boost::asio {
class io_context;
}

namespace denpex::server {

class AsioExecutor : public Executor {
public:
    AsioExecutor(boost::asio::io_context& io, unsigned threads);
    ~AsioExecutor() override;

    void post_io(std::function<void()> fn) override;
    void post_work(std::function<void()> fn) override;
    std::shared_ptr<TimerHandle> after(std::chrono::milliseconds delay, std::function<void()> fn) override;
    void join();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace denpex::server
