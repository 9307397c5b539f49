#include "follow/file_tail.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

namespace denpex {
namespace {

constexpr std::size_t kChunk = 256u << 10;

}  // namespace

FileTail::FileTail(std::string path, std::string display, bool from_end)
    : path_(std::move(path)), display_(std::move(display)), from_end_(from_end) {}

FileTail::~FileTail() {
    if (fd_ >= 0) ::close(fd_);
}

// Opens the file the path names now; with --from-end, the first file is read from its current end.
bool FileTail::open_current() {
    const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return false;
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return false;
    }
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
    dev_ = st.st_dev;
    ino_ = st.st_ino;
    offset_ = from_end_ ? static_cast<std::uint64_t>(st.st_size) : 0;
    from_end_ = false;   // a rotated-in file is new: read from its start
    splitter_.reset();
    return true;
}

bool FileTail::path_names_another_file() const {
    struct stat st {};
    if (::stat(path_.c_str(), &st) != 0) return false;   // gone: keep reading the open file
    return st.st_dev != dev_ || st.st_ino != ino_;
}

bool FileTail::read_to_end(const LineSplitter::Sink& line, std::string& error) {
    static thread_local std::array<char, kChunk> buf;
    for (;;) {
        const ssize_t n = ::pread(fd_, buf.data(), buf.size(), static_cast<off_t>(offset_));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            error = display_ + ": " + std::strerror(errno);
            return false;
        }
        if (n == 0) return true;
        offset_ += static_cast<std::uint64_t>(n);
        splitter_.append(std::string_view(buf.data(), static_cast<std::size_t>(n)), line);
    }
}

std::optional<std::string> FileTail::poll(const LineSplitter::Sink& line, const std::function<void(Restart)>& restart) {
    std::string error;
    if (fd_ < 0) {
        if (!open_current()) return std::nullopt;   // not there (yet): nothing to read
    }
    struct stat st {};
    if (::fstat(fd_, &st) == 0 && static_cast<std::uint64_t>(st.st_size) < offset_) {
        offset_ = 0;
        splitter_.reset();
        restart(Restart::truncated);
    }
    if (!read_to_end(line, error)) return error;
    if (path_names_another_file()) {
        splitter_.finish(line);   // the old file's last line, even without its "\n"
        if (open_current()) {
            restart(Restart::rotated);
            if (!read_to_end(line, error)) return error;
        }
    }
    return std::nullopt;
}

}  // namespace denpex
