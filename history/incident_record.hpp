// One incident as the history keeps it: the verdict, the fingerprint, the job, the time, and the report.
//
// Contract. `saved_report` is what is kept of a Report: secrets are always masked (engine/secret_mask.hpp,
// whatever --no-mask said), and unless `raw` every line of log text in it (evidence, collateral examples, the
// ranks' last lines) is replaced by its normalised form (history/fingerprint.hpp: no numbers, hosts, paths, hex),
// so no raw log text is kept unless asked (--save-raw). `incident_record` is the file's JSON:
//   {"format": "denpex-incident/1", "id", "time", "fingerprint", "fingerprint_lines": [...],
//    "failure": {"id", "title"}, "undetermined", "confidence", "initiating", "job", "raw",
//    "report_text", "report": <the JSON contract of the saved report>}
// `summarise_record` reads the fields a listing needs back, refusing a record that is not one.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "history/history_store.hpp"
#include "engine/diagnosis.hpp"

namespace denpex {

Report saved_report(const Report& report, bool raw, const std::vector<std::string>& hosts);

// "rank 5 on gpu-node-02", "undetermined", "the whole job"
std::string initiating_phrase(const Diagnosis& d);

struct IncidentContext {
    IncidentName name;
    std::string job;
    bool raw = false;
    std::vector<std::string> fingerprint_lines;
};

nlohmann::json incident_record(const Report& saved, const IncidentContext& context);

struct IncidentSummary {
    std::string id, time, fingerprint, failure_id, title, confidence, initiating, job, report_text;
    bool undetermined = false;
};

std::optional<IncidentSummary> summarise_record(const std::string& text, std::string& problem);

}  // namespace denpex
