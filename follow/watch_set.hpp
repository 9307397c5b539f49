// WatchSet: the files `denpex watch` follows, and the inotify watches that say when to look at them.
//
// Contract. `add` takes what the user named: a file (followed; its directory is watched so that a rotated or
// recreated file is seen) or a directory (watched recursively: a file or directory created or moved in later,
// such as a new node's log or attempt_1/, is followed from its start when expand_inputs (engine/inputs.hpp)
// takes it for a log). `fd()` is the inotify descriptor to wait on (-1 when inotify is unavailable: the caller
// then relies on its timeout). `drain()` reads the pending notifications and returns whether any concerned a
// watched path; `tails()` are the files followed, in the order they were found; `discover()` adds the files
// that appeared in directories whose notifications asked for it. Directories are walked again only after a
// notification about them, never on a timer. Descriptors are close-on-exec.
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "follow/file_tail.hpp"

namespace denpex {

class WatchSet {
public:
    WatchSet();
    ~WatchSet();
    WatchSet(const WatchSet&) = delete;
    WatchSet& operator=(const WatchSet&) = delete;

    int fd() const { return inotify_fd_; }
    // Returns a usage error (a missing path) or nullopt. `from_end` applies to the files found now.
    std::optional<std::string> add(const std::string& arg, bool from_end);
    bool drain();
    // New files in the directories that changed; returns how many were added.
    std::size_t discover();
    const std::vector<std::unique_ptr<FileTail>>& tails() const { return tails_; }
    bool has_directories() const { return !roots_.empty(); }
    // Skipped inputs ("path (reason)"), each listed once.
    std::vector<std::string> take_skipped();

private:
    void watch_dir(const std::string& dir);
    void watch_tree(const std::string& dir);
    void follow(const std::string& path, const std::string& display, bool from_end);

    int inotify_fd_ = -1;
    std::unordered_map<int, std::string> wd_dirs_;   // watch descriptor -> directory
    std::set<std::string> watched_dirs_;
    std::set<std::string> roots_;                    // directories named by the user
    std::set<std::string> dirty_roots_;              // roots with a new entry since the last discover()
    std::set<std::string> followed_, skipped_seen_;
    std::vector<std::string> skipped_;
    std::vector<std::unique_ptr<FileTail>> tails_;
};

}  // namespace denpex
