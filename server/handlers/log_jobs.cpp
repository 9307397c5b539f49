#include "server/handlers/log_jobs.hpp"

#include <algorithm>
#include <set>

namespace denpex::server {

namespace {

constexpr std::string_view kMarkedPrefix = "marked:";
constexpr std::string_view kFolderPrefix = "folder:";
constexpr std::string_view kAlonePrefix = "alone:";

std::string folder_job(std::string_view uri) {
    const std::string folder = uri_folder(uri);
    return folder.empty() ? std::string(kAlonePrefix) + std::string(uri) : std::string(kFolderPrefix) + folder;
}

}  // namespace

std::string uri_folder(std::string_view uri) {
    // Only the path counts: a query or fragment may hold slashes of its own.
    const std::size_t end = std::min(uri.find('?'), uri.find('#'));
    const std::string_view path = uri.substr(0, end);
    const std::size_t scheme = path.find("://");
    const std::size_t slash = path.rfind('/');
    if (slash == std::string_view::npos) return {};
    if (scheme != std::string_view::npos && slash < scheme + 3) return {};
    return std::string(path.substr(0, slash + 1));
}

std::string LogJobs::job_of(std::string_view uri) const {
    if (auto it = marked_.find(uri); it != marked_.end())
        return std::string(kMarkedPrefix) + std::to_string(it->second);
    return folder_job(uri);
}

std::vector<std::string> LogJobs::mark(const std::vector<std::string>& uris) {
    std::set<std::string> left;
    for (const std::string& uri : uris) left.insert(job_of(uri));
    const std::set<std::string> unique(uris.begin(), uris.end());
    const std::uint64_t id = next_mark_++;
    for (const std::string& uri : unique) {
        if (unique.size() < 2) marked_.erase(uri);
        else marked_[uri] = id;
    }
    // A mark left with a single document is no job any more: that document goes back to its folder.
    std::map<std::uint64_t, std::vector<std::string>> by_mark;
    for (const auto& [uri, m] : marked_) by_mark[m].push_back(uri);
    for (const auto& [m, members] : by_mark)
        if (members.size() < 2)
            for (const std::string& uri : members) {
                marked_.erase(uri);
                left.insert(job_of(uri));
            }
    // The marked set's own job is new; the jobs they left lost members. When unmarking, they went back to
    // their folder, which gained members: diagnose it too.
    if (unique.size() < 2)
        for (const std::string& uri : unique) left.insert(job_of(uri));
    return {left.begin(), left.end()};
}

std::vector<std::string> LogJobs::members(const std::string& job, const std::vector<std::string>& open_logs) const {
    std::vector<std::string> out;
    for (const std::string& uri : open_logs)
        if (job_of(uri) == job) out.push_back(uri);
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace denpex::server
