#include "history/history_store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace denpex {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kTimeLen = 16, kIdLen = 12, kFingerprintLen = 16;

bool all_hex(std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool all_digits(std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// 20250102T120000Z
bool valid_time(std::string_view t) {
    return t.size() == kTimeLen && all_digits(t.substr(0, 8)) && t[8] == 'T' && all_digits(t.substr(9, 6)) && t[15] == 'Z';
}

std::string random_hex(std::size_t digits) {
    std::random_device rd;
    std::string out;
    static constexpr char kHex[] = "0123456789abcdef";
    while (out.size() < digits) {
        std::uint32_t r = rd();
        for (int i = 0; i < 8 && out.size() < digits; ++i, r >>= 4) out += kHex[r & 15];
    }
    return out;
}

std::string errno_text(const std::string& what) { return what + ": " + std::strerror(errno); }

bool write_all(int fd, const std::string& s) {
    std::size_t done = 0;
    while (done < s.size()) {
        const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += static_cast<std::size_t>(n);
    }
    return true;
}

}  // namespace

std::optional<std::string> history_dir(const char* xdg_data_home, const char* home) {
    // XDG Base Directory: a relative $XDG_DATA_HOME is invalid and is ignored.
    if (xdg_data_home && xdg_data_home[0] == '/') return std::string(xdg_data_home) + "/denpex/history";
    if (home && home[0] == '/') return std::string(home) + "/.local/share/denpex/history";
    return std::nullopt;
}

std::optional<std::string> history_dir_from_env() {
    return history_dir(std::getenv("XDG_DATA_HOME"), std::getenv("HOME"));
}

std::string IncidentName::path() const { return fingerprint + "/" + time + "-" + id + ".json"; }

std::optional<IncidentName> parse_incident_name(std::string_view fp, std::string_view f) {
    constexpr std::size_t kLen = kTimeLen + 1 + kIdLen + 5;
    if (fp.size() != kFingerprintLen || !all_hex(fp)) return std::nullopt;
    if (f.size() != kLen || f.substr(kLen - 5) != ".json" || f[kTimeLen] != '-') return std::nullopt;
    IncidentName n{std::string(f.substr(0, kTimeLen)), std::string(f.substr(kTimeLen + 1, kIdLen)), std::string(fp)};
    if (!valid_time(n.time) || !all_hex(n.id)) return std::nullopt;
    return n;
}

IncidentName new_incident_name(const std::string& fingerprint) {
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm utc{};
    gmtime_r(&now, &utc);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &utc);
    return {buf, random_hex(kIdLen), fingerprint};
}

std::string display_time(const std::string& t) {
    if (!valid_time(t)) return t;
    return t.substr(0, 4) + "-" + t.substr(4, 2) + "-" + t.substr(6, 2) + " " + t.substr(9, 2) + ":" + t.substr(11, 2) + " UTC";
}

std::string iso_time(const std::string& t) {
    if (!valid_time(t)) return t;
    return t.substr(0, 4) + "-" + t.substr(4, 2) + "-" + t.substr(6, 2) + "T" + t.substr(9, 2) + ":" + t.substr(11, 2) +
           ":" + t.substr(13, 2) + "Z";
}

namespace {

void sort_incidents(std::vector<IncidentName>& v) {
    std::sort(v.begin(), v.end(), [](const IncidentName& a, const IncidentName& b) {
        return a.time != b.time ? a.time < b.time : a.id < b.id;
    });
}

// Adds the incidents of one fingerprint directory; returns how many entries were not incidents'.
std::size_t scan_one(const fs::path& fp_dir, HistoryScan& scan) {
    std::error_code ec;
    fs::directory_iterator it(fp_dir, ec), end;
    if (ec) {
        if (ec != std::errc::no_such_file_or_directory)
            scan.warnings.push_back("history: cannot read " + fp_dir.string() + ": " + ec.message());
        return 0;
    }
    std::size_t strays = 0;
    const std::string fp = fp_dir.filename().string();
    for (; it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.empty() || name.front() == '.') continue;   // temporary files of writers
        if (auto n = parse_incident_name(fp, name)) scan.incidents.push_back(std::move(*n));
        else ++strays;
    }
    if (ec) scan.warnings.push_back("history: listing " + fp_dir.string() + " stopped: " + ec.message());
    return strays;
}

void warn_strays(std::size_t strays, const std::string& dir, HistoryScan& scan) {
    if (strays)
        scan.warnings.push_back("history: " + std::to_string(strays) + " entries in " + dir +
                                " are not incidents and were ignored");
}

}  // namespace

HistoryScan scan_history(const std::string& dir) {
    HistoryScan scan;
    std::error_code ec;
    if (!fs::exists(dir, ec)) return scan;
    scan.exists = true;
    fs::directory_iterator it(dir, ec), end;
    if (ec) {
        scan.warnings.push_back("history: cannot read " + dir + ": " + ec.message());
        return scan;
    }
    std::size_t strays = 0;
    for (; it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.empty() || name.front() == '.') continue;
        const bool fp_dir = name.size() == kFingerprintLen && all_hex(name) && it->is_directory(ec);
        strays += fp_dir ? scan_one(it->path(), scan) : 1;
    }
    if (ec) scan.warnings.push_back("history: listing " + dir + " stopped: " + ec.message());
    warn_strays(strays, dir, scan);
    sort_incidents(scan.incidents);
    return scan;
}

HistoryScan scan_fingerprint(const std::string& dir, const std::string& fingerprint) {
    HistoryScan scan;
    std::error_code ec;
    if (!fs::exists(dir, ec)) return scan;
    scan.exists = true;
    if (fingerprint.size() != kFingerprintLen || !all_hex(fingerprint)) return scan;
    warn_strays(scan_one(fs::path(dir) / fingerprint, scan), dir + "/" + fingerprint, scan);
    sort_incidents(scan.incidents);
    return scan;
}

std::optional<std::string> write_incident(const std::string& dir, const IncidentName& name, const std::string& content) {
    std::error_code ec;
    const std::string fp_dir = dir + "/" + name.fingerprint;
    fs::create_directories(fp_dir, ec);
    if (ec) return "cannot create " + fp_dir + ": " + ec.message();
    ::chmod(dir.c_str(), 0700);
    ::chmod(fp_dir.c_str(), 0700);
    const std::string tmp = fp_dir + "/.tmp-" + name.id + "-" + std::to_string(::getpid());
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return errno_text("cannot create " + tmp);
    const bool written = write_all(fd, content) && ::fsync(fd) == 0;
    const std::string write_error = written ? "" : errno_text("cannot write " + tmp);
    ::close(fd);
    if (!written) {
        ::unlink(tmp.c_str());
        return write_error;
    }
    const std::string final_path = dir + "/" + name.path();
    if (::rename(tmp.c_str(), final_path.c_str()) != 0) {
        const std::string e = errno_text("cannot rename into " + final_path);
        ::unlink(tmp.c_str());
        return e;
    }
    return std::nullopt;
}

std::optional<std::string> read_incident(const std::string& dir, const IncidentName& name, std::string& problem) {
    const std::string path = dir + "/" + name.path();
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        problem = errno_text("cannot open " + path);
        return std::nullopt;
    }
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace denpex
