#include "history/seen_before.hpp"

#include "history/incident_record.hpp"

namespace denpex {

SeenBefore seen_before(const std::string& dir, const HistoryScan& scan, const std::string& fingerprint,
                       std::vector<std::string>& warnings) {
    SeenBefore seen;
    for (const auto& n : scan.incidents)   // oldest first: the last match is the latest
        if (n.fingerprint == fingerprint) {
            ++seen.count;
            seen.last = n;
        }
    if (seen.count == 0) return seen;
    std::string problem;
    const auto text = read_incident(dir, seen.last, problem);
    const auto summary = text ? summarise_record(*text, problem) : std::nullopt;
    if (summary) seen.last_job = summary->job;
    else warnings.push_back("history: " + seen.last.path() + ": " + problem + " (its job is not shown)");
    return seen;
}

std::string format_seen_before(const SeenBefore& seen) {
    if (seen.count == 0) return "";
    std::string line = "Seen before: " + std::to_string(seen.count) + (seen.count == 1 ? " time" : " times") +
                       ", last on " + display_time(seen.last.time);
    if (!seen.last_job.empty()) line += " (" + seen.last_job + ")";
    line += ", same fingerprint " + seen.last.fingerprint + "\n  $ denpex history show " + seen.last.id + "\n";
    return line;
}

nlohmann::json seen_before_json(const SeenBefore& seen, const std::string& fingerprint) {
    nlohmann::json last = nullptr;
    if (seen.count > 0) last = {{"id", seen.last.id}, {"time", iso_time(seen.last.time)}, {"job", seen.last_job}};
    return {{"fingerprint", fingerprint}, {"seen_before", seen.count}, {"last", last}};
}

}  // namespace denpex
