// LogFollower: a running job's log files followed into one live diagnosis — what `denpex watch` and the editor's
// "Watch Log Folder…" (server/handlers/watch_request.cpp) share.
//
// Contract. `add` names a file or directory (follow/watch_set.hpp); from then on the caller waits on `fd()`
// (inotify; -1 when unavailable: the caller's timeout is then the only wake-up), calls `notified()` when it is
// readable (new files in watched directories; returns the inputs skipped as no logs), and `read_files()` to feed
// every followed file's new complete lines to the LiveDiagnosis, a truncated or rotated file as a new input.
// `changed_report()` derives a Report only when it can differ from the last one (a line matched a signature, an
// input began or ended): ordinary lines cost the Collector's pass alone. Not thread-safe: one thread owns it.
// Files are never read twice from the start; memory is the LiveDiagnosis's bound plus one unfinished line per file.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/live_diagnosis.hpp"
#include "follow/watch_set.hpp"

namespace denpex {

class LogFollower {
public:
    LogFollower(const Engine& engine, MaskOptions mask);

    // A usage error (a missing path) or nullopt. `from_end`: what the files hold now is skipped.
    std::optional<std::string> add(const std::string& path, bool from_end);
    int fd() const { return set_.fd(); }
    std::vector<std::string> notified();
    void read_files();
    // An input other than the files (stdin) began or ended: the next changed_report() derives a Report.
    void input_changed() { inputs_changed_ = true; }
    std::optional<Report> changed_report();

    LiveDiagnosis& live() { return live_; }
    const WatchSet& files() const { return set_; }
    // The path of the followed file shown as `display` in evidence; empty when none.
    std::string path_of(const std::string& display) const;

private:
    LiveDiagnosis live_;
    WatchSet set_;
    std::map<const FileTail*, LiveDiagnosis::InputId> inputs_;
    bool inputs_changed_ = true;
    std::uint64_t reported_events_ = 0;
};

}  // namespace denpex
