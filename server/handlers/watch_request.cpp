// `denpex/watch` and `denpex/stopWatch`: the editor's "Watch Log Folder…". A watch follows a running job's log
// folder (follow/log_follower.hpp, as `denpex watch` does) on a thread of its own — it lasts hours, so it never
// holds a diagnosis worker — and tells the client what changed:
//   - `denpex/watchUpdate {watchId, event: "ready"}` once what the files already held was read;
//   - `denpex/watchUpdate {watchId, event: "initiating", failure, rank, process, host, report}` the moment a new
//     initiating failure is in the logs (before the other ranks' watchdogs fire), and `event: "verdict"` when the
//     leading verdict changes (follow/watch_reporter.hpp decides which);
// `report` is the engine's JSON contract with LSP locations, as denpex/diagnose answers. The request is answered
// once, when the watch ends: `denpex/stopWatch {watchId}` (the id the request chose, or the server's "watch-N")
// -> the final report as its result; `$/cancelRequest`,
// shutdown or exit -> RequestCancelled. Idle, a watch sleeps in poll() on inotify and an eventfd that stopWatch
// writes; a cancelled request raises only a flag, so poll wakes every kCancelPollMs to look at it.
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <thread>

#include <nlohmann/json.hpp>

#include "engine/report.hpp"
#include "follow/log_follower.hpp"
#include "follow/watch_reporter.hpp"
#include "server/dispatch/rpc_error.hpp"
#include "server/handlers/evidence_locations.hpp"
#include "server/handlers/server_state.hpp"
#include "server/log.hpp"
#include "server/protocol/json_params.hpp"
#include "server/protocol/uri.hpp"

namespace denpex::server {

using nlohmann::json;

namespace {

constexpr int kCancelPollMs = 500;
// The safety net of `denpex watch`: file systems whose writes inotify does not see.
constexpr int kRescanMs = 5000;

json located(const LogFollower& follower, json report) {
    add_evidence_locations(report, [&](const std::string& file, std::uint64_t line) -> std::optional<Location> {
        const std::string path = follower.path_of(file);
        if (path.empty() || line == 0) return std::nullopt;
        const auto l = static_cast<std::uint32_t>(std::min<std::uint64_t>(line - 1, UINT32_MAX - 1));
        return Location{path_to_uri(path), Range{{l, 0}, {l + 1, 0}}};
    });
    return report;
}

void send_update(ServerState& s, const WatchSession& w, const LogFollower& f, const WatchUpdate& u, const Report& r) {
    json params = json_line(u, r);
    params["report"] = located(f, std::move(params["report"]));
    params["watchId"] = w.id;
    log_info("watch " + w.id + ": " + kind_name(u.kind));
    s.dispatcher.notify("denpex/watchUpdate", params);
}

// Waits for inotify, stopWatch or the rescan timeout; the short slices only look at the cancel flag. Returns
// whether inotify said something changed.
bool wait_for_change(const WatchSession& w, const LogFollower& f, const Reply& reply) {
    for (int waited = 0; waited < kRescanMs && !w.stop.load() && !reply.cancelled(); waited += kCancelPollMs) {
        std::array<pollfd, 2> fds = {pollfd{f.fd(), POLLIN, 0}, pollfd{w.wake_fd, POLLIN, 0}};
        const int ready = ::poll(fds.data(), fds.size(), kCancelPollMs);
        if (ready < 0 && errno != EINTR) return false;
        if (fds[0].revents & POLLIN) return true;
        if (fds[1].revents & POLLIN) return false;
    }
    return false;
}

void run_watch(ServerState& s, const std::shared_ptr<WatchSession>& w, std::unique_ptr<LogFollower> f, Reply reply) {
    WatchReporter reporter;
    for (bool first = true;; first = false) {
        f->read_files();
        if (auto report = f->changed_report())
            for (const WatchUpdate& u : reporter.changes(*report)) send_update(s, *w, *f, u, *report);
        if (first) s.dispatcher.notify("denpex/watchUpdate", {{"watchId", w->id}, {"event", "ready"},
                                                              {"files", f->files().tails().size()}});
        const bool notified = wait_for_change(*w, *f, reply);
        if (w->stop.load() || reply.cancelled()) break;
        if (notified)
            for (const std::string& skipped : f->notified()) f->live().add_warning("not read: " + skipped);
    }
    if (reply.cancelled()) {
        reply.error(error_code::request_cancelled, "denpex/watch was cancelled");
    } else {
        f->read_files();
        reply.result({{"watchId", w->id}, {"report", located(*f, to_json(f->live().report()))}});
    }
    const std::string id = w->id;
    s.exec.post_io([&s, id] { end_watch(s, id); });
}

}  // namespace

WatchSession::~WatchSession() {
    if (wake_fd >= 0) ::close(wake_fd);
}

void WatchSession::request_stop() {
    stop.store(true);
    const std::uint64_t one = 1;
    if (wake_fd >= 0 && ::write(wake_fd, &one, sizeof one) < 0) log_debug("waking watch " + id + " failed");
}

void end_watch(ServerState& s, const std::string& id) {
    auto it = s.watches.find(id);
    if (it == s.watches.end()) return;
    auto w = it->second;
    s.watches.erase(it);
    if (w->thread.joinable()) w->thread.join();
}

void stop_watches(ServerState& s) {
    auto watches = std::move(s.watches);
    s.watches.clear();
    for (auto& [id, w] : watches) w->request_stop();
    for (auto& [id, w] : watches)
        if (w->thread.joinable()) w->thread.join();
}

void register_watch(ServerState& s) {
    s.dispatcher.on_request("denpex/watch", [&s](const json& params, Reply reply) {
        require_object(params, "params");
        const std::string folder = get_string(params, "folder", "params");
        const bool from_end = find_member(params, "fromEnd") && params["fromEnd"].is_boolean() &&
                              params["fromEnd"].get<bool>();
        const std::string path = folder.find("://") != std::string::npos ? uri_to_path(folder).value_or("") : folder;
        struct stat st {};
        if (path.empty() || ::stat(path.c_str(), &st) != 0)
            throw RpcError(error_code::invalid_params, "params.folder: " + folder + " is not a file or folder here");
        auto follower = std::make_unique<LogFollower>(s.engine, s.opts.mask);
        if (auto error = follower->add(path, from_end)) throw RpcError(error_code::invalid_params, "params.folder: " + *error);
        for (const std::string& skipped : follower->notified()) follower->live().add_warning("not read: " + skipped);

        auto w = std::make_shared<WatchSession>();
        // A client may name the watch itself (it then knows the id before any update); else the server does.
        w->id = get_optional_string(params, "watchId", "params").value_or("watch-" + std::to_string(s.next_watch++));
        if (s.watches.count(w->id))
            throw RpcError(error_code::invalid_params, "params.watchId: a watch named " + w->id + " is running");
        w->wake_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        s.watches[w->id] = w;
        log_info("watch " + w->id + ": following " + path);
        w->thread = std::thread([&s, w, f = std::move(follower), reply]() mutable { run_watch(s, w, std::move(f), reply); });
    });

    s.dispatcher.on_request("denpex/stopWatch", [&s](const json& params, Reply reply) {
        require_object(params, "params");
        const std::string id = get_string(params, "watchId", "params");
        auto it = s.watches.find(id);
        if (it != s.watches.end()) it->second->request_stop();
        reply.result({{"stopped", it != s.watches.end()}});
    });
}

}  // namespace denpex::server
