// ExecHook: `denpex watch --exec CMD`, the command run once per new initiating event.
//
// Contract. `run` starts `/bin/sh -c CMD` with posix_spawn (no fork of the watcher's memory) and returns at
// once: the diagnosis JSON is on the child's stdin (an in-memory file, so a child that never reads it blocks
// nobody) and the facts are in its environment as DENPEX_* variables, added to the watcher's own. CMD is the
// user's own argument; nothing read from a log is ever put into a command line or interpolated into a shell
// string: log-derived values reach the child only as data (stdin, environment values), with control bytes
// replaced and a bounded length. The child gets default signal handling and an empty signal mask whatever the
// watcher blocks, and inherits none of its descriptors but stdout and stderr. `reap` collects children that
// ended (never blocking); children still running when the watcher exits are left to finish.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace denpex::cli {

class ExecHook {
public:
    explicit ExecHook(std::string command) : command_(std::move(command)) {}

    // Returns an error text when the command could not be started.
    std::optional<std::string> run(const std::string& stdin_text,
                                   const std::vector<std::pair<std::string, std::string>>& env);
    void reap();
    std::size_t running() const { return children_.size(); }

private:
    std::string command_;
    std::vector<pid_t> children_;
};

// A value read from a log made safe to hand on as an environment value: control bytes become spaces, at most
// 1 KiB is kept.
std::string env_value(const std::string& text);

}  // namespace denpex::cli
