#include "follow/watch_set.hpp"

#include <sys/inotify.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <filesystem>

#include "engine/inputs.hpp"

namespace denpex {
namespace {

namespace fs = std::filesystem;

// What is watched on a directory: its files growing or being written, entries created or moved in.
constexpr std::uint32_t kDirEvents = IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO;

bool starts_with_dir(const std::string& path, const std::string& dir) {
    return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
                           (dir.back() == '/' || path[dir.size()] == '/'));
}

std::string parent_dir(const std::string& file) {
    const fs::path parent = fs::path(file).parent_path();
    return parent.empty() ? std::string(".") : parent.string();
}

}  // namespace

WatchSet::WatchSet() : inotify_fd_(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {}

WatchSet::~WatchSet() {
    if (inotify_fd_ >= 0) ::close(inotify_fd_);
}

void WatchSet::watch_dir(const std::string& dir) {
    if (inotify_fd_ < 0 || watched_dirs_.count(dir)) return;
    const int wd = ::inotify_add_watch(inotify_fd_, dir.c_str(), kDirEvents | IN_ONLYDIR);
    if (wd < 0) return;   // the timeout still finds its files' growth
    wd_dirs_[wd] = dir;
    watched_dirs_.insert(dir);
}

void WatchSet::watch_tree(const std::string& dir) {
    watch_dir(dir);
    std::error_code ec;
    for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec))
        if (it->is_directory(ec) && !it->is_symlink(ec)) watch_dir(it->path().string());
}

void WatchSet::follow(const std::string& path, const std::string& display, bool from_end) {
    if (!followed_.insert(path).second) return;
    tails_.push_back(std::make_unique<FileTail>(path, display, from_end));
}

std::optional<std::string> WatchSet::add(const std::string& arg, bool from_end) {
    const ExpandedInputs found = expand_inputs({arg});
    if (!found.errors.empty()) return found.errors.front();
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
        roots_.insert(arg);
        watch_tree(arg);
    } else {
        watch_dir(parent_dir(arg));
    }
    for (const auto& f : found.files) follow(f.path, f.display, from_end);
    for (const auto& s : found.skipped)
        if (skipped_seen_.insert(s).second) skipped_.push_back(s);
    return std::nullopt;
}

// Reads every pending notification. A new directory under a root is watched at once (files written into it
// before its watch existed are found by the walk that follows); a new entry marks its root for discover().
bool WatchSet::drain() {
    if (inotify_fd_ < 0) return false;
    alignas(inotify_event) std::array<char, 64 * 1024> buf;
    bool any = false;
    for (;;) {
        const ssize_t n = ::read(inotify_fd_, buf.data(), buf.size());
        if (n <= 0) break;   // EAGAIN: drained
        for (ssize_t off = 0; off < n;) {
            const auto* ev = reinterpret_cast<const inotify_event*>(buf.data() + off);
            off += static_cast<ssize_t>(sizeof(inotify_event) + ev->len);
            any = true;
            if (ev->mask & IN_Q_OVERFLOW) dirty_roots_.insert(roots_.begin(), roots_.end());   // events were lost
            auto dir = wd_dirs_.find(ev->wd);
            if (dir == wd_dirs_.end() || ev->len == 0) continue;
            const std::string path = (fs::path(dir->second) / ev->name).string();
            for (const auto& root : roots_) {
                if (!starts_with_dir(path, root)) continue;
                if ((ev->mask & IN_ISDIR) && (ev->mask & (IN_CREATE | IN_MOVED_TO))) watch_tree(path);
                const bool new_entry = ev->mask & (IN_CREATE | IN_MOVED_TO);
                if (new_entry || (!followed_.count(path) && !(ev->mask & IN_ISDIR))) dirty_roots_.insert(root);
            }
        }
    }
    return any;
}

std::size_t WatchSet::discover() {
    std::size_t added = 0;
    for (const auto& root : dirty_roots_) {
        const ExpandedInputs found = expand_inputs({root});
        for (const auto& f : found.files) {
            if (followed_.count(f.path)) continue;
            follow(f.path, f.display, false);   // a new file: read from its start
            ++added;
        }
        for (const auto& s : found.skipped)
            if (skipped_seen_.insert(s).second) skipped_.push_back(s);
    }
    dirty_roots_.clear();
    return added;
}

std::vector<std::string> WatchSet::take_skipped() {
    std::vector<std::string> out;
    out.swap(skipped_);
    return out;
}

}  // namespace denpex
