#include "cli/watch_command.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <optional>

#include "cli/exec_hook.hpp"
#include "cli/exit_status.hpp"
#include "cli/knowledge_loading.hpp"
#include "follow/line_splitter.hpp"
#include "cli/watch_options.hpp"
#include "follow/watch_reporter.hpp"
#include "follow/log_follower.hpp"

namespace denpex::cli {
namespace {

// Only a safety net (a file system whose writes inotify does not see, such as NFS from another host): the
// wake-ups come from inotify, stdin and the signalfd.
constexpr int kFallbackTimeoutMs = 5000;
constexpr std::size_t kStdinChunk = 256u << 10;

int usage_error(const std::string& message) {
    std::cerr << "denpex: " << message << " (see denpex watch --help)\n";
    return code(ExitStatus::usage);
}

// SIGINT and SIGTERM arrive as readable data on a descriptor; SIGPIPE is ignored (a closed stdout is an error
// of the write, which ends the watch).
int signal_descriptor() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    ::sigprocmask(SIG_BLOCK, &set, nullptr);
    ::signal(SIGPIPE, SIG_IGN);
    return ::signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

class Watch {
public:
    Watch(const WatchCliOptions& o, const Engine& engine) : o_(o), follower_(engine, o.mask) {
        if (o.exec) hook_.emplace(*o.exec);
    }

    std::optional<std::string> add_paths();
    int run(int signal_fd);

private:
    bool stdin_only() const { return reading_stdin_ && follower_.files().tails().empty() && o_.paths.size() == 1; }
    void read_stdin();
    void note_skipped();
    void report_changes();
    void emit(const WatchUpdate& update, const Report& report);
    void say_ready() const;
    int finish();

    const WatchCliOptions& o_;
    LogFollower follower_;
    WatchReporter reporter_;
    std::optional<ExecHook> hook_;
    bool reading_stdin_ = false, stdin_ended_ = false, output_failed_ = false;
    std::optional<LiveDiagnosis::InputId> stdin_input_;
    LineSplitter stdin_lines_;
};

std::optional<std::string> Watch::add_paths() {
    for (const auto& path : o_.paths) {
        if (path == "-") {
            reading_stdin_ = true;
            stdin_input_ = follower_.live().open_input("<stdin>", "");
            continue;
        }
        if (auto error = follower_.add(path, o_.from_end)) return error;
    }
    // An empty directory is worth watching (a job's first log may appear there); files that are no logs are not.
    const auto skipped = follower_.notified();
    if (!reading_stdin_ && follower_.files().tails().empty() && !follower_.files().has_directories())
        return skipped.empty() ? std::string("nothing to watch") : "nothing to read: " + skipped.front();
    for (const auto& s : skipped) {
        std::cerr << "denpex: warning: not read: " << s << "\n";
        follower_.live().add_warning("not read: " + s);
    }
    return std::nullopt;
}

void Watch::note_skipped() {
    for (const auto& s : follower_.notified()) {
        std::cerr << "denpex: warning: not read: " << s << "\n";
        follower_.live().add_warning("not read: " + s);
    }
}

void Watch::read_stdin() {
    static std::array<char, kStdinChunk> buf;
    const ssize_t n = ::read(STDIN_FILENO, buf.data(), buf.size());
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    LiveDiagnosis& live = follower_.live();
    auto line = [&](std::string_view text, bool truncated) { live.add_line(*stdin_input_, text, truncated); };
    if (n <= 0) {
        if (n < 0) live.add_warning(std::string("<stdin>: read error: ") + std::strerror(errno));
        stdin_lines_.finish(line);
        live.close_input(*stdin_input_);
        stdin_ended_ = true;
        follower_.input_changed();
        return;
    }
    stdin_lines_.append(std::string_view(buf.data(), static_cast<std::size_t>(n)), line);
}

void Watch::emit(const WatchUpdate& update, const Report& report) {
    if (o_.format == WatchFormat::json_lines)
        std::cout << json_line(update, report).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    else std::cout << human_text(update, report);
    std::cout.flush();
    if (!std::cout) output_failed_ = true;
    if (update.kind != UpdateKind::initiating || !hook_) return;
    const std::string json = json_line(update, report).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (auto error = hook_->run(json + "\n", exec_environment(update, report)))
        std::cerr << "denpex: warning: " << *error << "\n";
}

// The Report is derived again only when a line matched a signature or an input began or ended.
void Watch::report_changes() {
    const std::optional<Report> report = follower_.changed_report();
    if (!report) return;
    for (const WatchUpdate& u : reporter_.changes(*report)) emit(u, *report);
}

int Watch::finish() {
    follower_.read_files();   // what was written up to the signal
    const Report report = follower_.live().report();
    emit({UpdateKind::final_report, 0}, report);
    for (const auto& w : report.warnings) std::cerr << "denpex: warning: " << w << "\n";
    if (hook_) hook_->reap();
    return code(exit_status_for(report));
}

// Said once on stderr, after what the files held at the start was read: from here on, lines are new.
void Watch::say_ready() const {
    const std::size_t files = follower_.files().tails().size();
    std::cerr << "denpex: watching " << files << " file" << (files == 1 ? "" : "s")
              << (reading_stdin_ ? " and stdin" : "") << "; Ctrl-C for the final report\n";
    std::cerr.flush();
}

int Watch::run(int signal_fd) {
    for (bool first = true;; first = false) {
        follower_.read_files();
        report_changes();
        if (first) say_ready();
        if (output_failed_ || (stdin_only() && stdin_ended_)) break;
        std::array<pollfd, 3> fds = {pollfd{signal_fd, POLLIN, 0}, pollfd{follower_.fd(), POLLIN, 0},
                                     pollfd{reading_stdin_ && !stdin_ended_ ? STDIN_FILENO : -1, POLLIN, 0}};
        const int ready = ::poll(fds.data(), fds.size(), kFallbackTimeoutMs);
        if (ready < 0 && errno != EINTR) break;
        if (fds[0].revents & POLLIN) break;   // SIGINT / SIGTERM: the final report
        if (fds[1].revents & POLLIN) note_skipped();
        if (fds[2].revents & (POLLIN | POLLHUP | POLLERR)) read_stdin();
        if (hook_) hook_->reap();
    }
    return finish();
}

}  // namespace

int watch_command(const std::vector<std::string>& args) {
    WatchCliOptions o;
    if (auto error = parse_watch_options(args, o)) return usage_error(*error);
    KnowledgeBase kb;
    if (!load_knowledge(o.knowledge_dirs, kb, false, std::cerr)) return code(ExitStatus::usage);
    const int signal_fd = signal_descriptor();
    const Engine engine(std::move(kb));
    Watch watch(o, engine);
    if (auto error = watch.add_paths()) return usage_error(*error);
    const int status = watch.run(signal_fd);
    if (signal_fd >= 0) ::close(signal_fd);
    return status;
}

}  // namespace denpex::cli
