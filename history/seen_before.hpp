// "Seen before": how often the history holds the same failure fingerprint, and the latest such incident.
//
// Contract. Answered from the listing of the fingerprint's own directory (history/history_store.hpp:
// scan_fingerprint; names carry the time), plus one read of the latest matching incident for its job: the
// cost grows with the matches, not with the history. A corrupt or
// unreadable latest incident still counts; its job is then unknown and a warning says why.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "history/history_store.hpp"

namespace denpex {

struct SeenBefore {
    std::size_t count = 0;
    IncidentName last;        // valid when count > 0
    std::string last_job;     // "" when unknown
};

SeenBefore seen_before(const std::string& dir, const HistoryScan& scan, const std::string& fingerprint,
                       std::vector<std::string>& warnings);

// "Seen before: 3 times, last on 2025-01-02 12:00 UTC (slurm job 1234), same fingerprint 0123456789abcdef
//  (denpex history show 1a2b3c4d5e6f)"; "" when count is 0.
std::string format_seen_before(const SeenBefore& seen);

// {"fingerprint", "seen_before", "last": {"id", "time", "job"} | null}
nlohmann::json seen_before_json(const SeenBefore& seen, const std::string& fingerprint);

}  // namespace denpex
