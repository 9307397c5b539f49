// LogJobs: which open log documents are one training job's logs, diagnosed together.
//
// Contract (pure; lives on the I/O thread). A log document belongs to exactly one job:
//   - the job the user marked it into (`mark`: the documents named, open or not yet open), else
//   - its folder: every log document whose URI has the same parent ("file:///runs/42/node0.log" and
//     ".../node1.log" are one job), else, for a URI without a folder ("untitled:Untitled-1"), a job of its own.
// Marking a set of URIs takes them out of any job they were marked into before; marking fewer than two URIs
// unmarks them (they fall back to their folder), and a mark left with one document dissolves. A job's key is
// stable while its membership rules do not change, so a caller can keep per-job schedules under it. Nothing here
// knows whether a URI is open: callers ask `members` with the open log documents' URIs.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace denpex::server {

class LogJobs {
public:
    // The job `uri` belongs to.
    std::string job_of(std::string_view uri) const;
    // Marks `uris` as one job; returns the keys of the jobs they left (their folder or an earlier mark), which
    // must be diagnosed again without them.
    std::vector<std::string> mark(const std::vector<std::string>& uris);
    // Which of `open_logs` (URIs) belong to `job`, in URI order.
    std::vector<std::string> members(const std::string& job, const std::vector<std::string>& open_logs) const;

private:
    std::map<std::string, std::uint64_t, std::less<>> marked_;   // URI -> mark number
    std::uint64_t next_mark_ = 1;
};

// The folder part of a URI ("file:///a/b/node0.log" -> "file:///a/b/"); empty when it has none.
std::string uri_folder(std::string_view uri);

}  // namespace denpex::server
