#include "cli/exec_hook.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

extern char** environ;

namespace denpex::cli {
namespace {

constexpr std::size_t kMaxEnvValue = 1024;

// The JSON as a file the child reads from its start: written fully now, so the watcher never waits on it.
int stdin_file(const std::string& text) {
    const int fd = ::memfd_create("denpex-exec-stdin", MFD_CLOEXEC);
    if (fd < 0) return -1;
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            ::close(fd);
            return -1;
        }
        done += static_cast<std::size_t>(n);
    }
    ::lseek(fd, 0, SEEK_SET);
    return fd;
}

// The watcher's environment with DENPEX_* replaced by this event's.
std::vector<std::string> child_environment(const std::vector<std::pair<std::string, std::string>>& env) {
    std::vector<std::string> out;
    for (char** e = environ; e && *e; ++e)
        if (std::strncmp(*e, "DENPEX_", 7) != 0) out.emplace_back(*e);
    for (const auto& [name, value] : env) out.push_back(name + "=" + env_value(value));
    return out;
}

// Default dispositions and an empty mask: the watcher blocks SIGINT/SIGTERM for its signalfd and ignores
// SIGPIPE, and a child must not inherit either.
void reset_signals(posix_spawnattr_t& attr) {
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    for (int s : {SIGINT, SIGTERM, SIGPIPE, SIGCHLD, SIGHUP}) sigaddset(&defaults, s);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
}

}  // namespace

std::string env_value(const std::string& text) {
    std::string out = text.substr(0, kMaxEnvValue);
    std::replace_if(out.begin(), out.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }, ' ');
    return out;
}

std::optional<std::string> ExecHook::run(const std::string& stdin_text,
                                         const std::vector<std::pair<std::string, std::string>>& env) {
    reap();
    const int in = stdin_file(stdin_text);
    if (in < 0) return std::string("--exec: no file for the command's stdin: ") + std::strerror(errno);
    std::vector<std::string> environment = child_environment(env);
    std::vector<char*> envp;
    for (auto& e : environment) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::string sh = "/bin/sh", dash_c = "-c", cmd = command_;
    char* argv[] = {sh.data(), dash_c.data(), cmd.data(), nullptr};

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in, STDIN_FILENO);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    reset_signals(attr);
    pid_t pid = 0;
    const int rc = ::posix_spawn(&pid, "/bin/sh", &actions, &attr, argv, envp.data());
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&actions);
    ::close(in);
    if (rc != 0) return std::string("--exec: /bin/sh could not be started: ") + std::strerror(rc);
    children_.push_back(pid);
    return std::nullopt;
}

void ExecHook::reap() {
    std::erase_if(children_, [](pid_t pid) {
        int status = 0;
        const pid_t r = ::waitpid(pid, &status, WNOHANG);
        return r == pid || (r < 0 && errno == ECHILD);
    });
}

}  // namespace denpex::cli
