#include "history/incident_record.hpp"

#include "history/fingerprint.hpp"
#include "engine/report.hpp"
#include "engine/secret_mask.hpp"

namespace denpex {
namespace {

void abstract_all(std::vector<Evidence>& evidence, const std::vector<std::string>& hosts) {
    for (auto& e : evidence) e.text = normalise_evidence(e.text, hosts);
}

std::string string_field(const nlohmann::json& j, const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

Report saved_report(const Report& report, bool raw, const std::vector<std::string>& hosts) {
    Report saved = report;
    mask_report(saved, MaskOptions{});   // secrets, always; idempotent on a report already masked
    if (raw) return saved;
    for (auto& d : saved.diagnoses) {
        abstract_all(d.evidence, hosts);
        for (auto& c : d.collateral) abstract_all(c.evidence, hosts);
    }
    for (auto& r : saved.ranks) r.last_line.text = normalise_evidence(r.last_line.text, hosts);
    return saved;
}

std::string initiating_phrase(const Diagnosis& d) {
    if (d.initiating_rank || !d.initiating_process.empty()) {
        std::string who = d.initiating_process.empty() ? "rank " + std::to_string(*d.initiating_rank) : d.initiating_process;
        return d.initiating_host ? who + " on " + *d.initiating_host : who;
    }
    if (d.rank_not_applicable) return "not one rank's failure";
    return "undetermined";
}

nlohmann::json incident_record(const Report& saved, const IncidentContext& c) {
    nlohmann::json j = {{"format", "denpex-incident/1"},
                        {"id", c.name.id},
                        {"time", iso_time(c.name.time)},
                        {"fingerprint", c.name.fingerprint},
                        {"fingerprint_lines", c.fingerprint_lines},
                        {"job", c.job},
                        {"raw", c.raw},
                        {"report_text", to_text(saved)},
                        {"report", to_json(saved)}};
    if (!saved.diagnoses.empty()) {
        const Diagnosis& d = saved.diagnoses.front();
        j["failure"] = {{"id", d.failure ? d.failure->id : ""}, {"title", d.failure ? d.failure->title : ""}};
        j["undetermined"] = d.undetermined;
        j["confidence"] = d.confidence;
        j["initiating"] = initiating_phrase(d);
    }
    return j;
}

std::optional<IncidentSummary> summarise_record(const std::string& text, std::string& problem) {
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        problem = "not valid JSON";
        return std::nullopt;
    }
    if (string_field(j, "format") != "denpex-incident/1") {
        problem = "not a denpex incident (format '" + string_field(j, "format") + "')";
        return std::nullopt;
    }
    IncidentSummary s;
    s.id = string_field(j, "id");
    s.time = string_field(j, "time");
    s.fingerprint = string_field(j, "fingerprint");
    s.confidence = string_field(j, "confidence");
    s.initiating = string_field(j, "initiating");
    s.job = string_field(j, "job");
    s.report_text = string_field(j, "report_text");
    if (const auto f = j.find("failure"); f != j.end() && f->is_object()) {
        s.failure_id = string_field(*f, "id");
        s.title = string_field(*f, "title");
    }
    if (const auto u = j.find("undetermined"); u != j.end() && u->is_boolean()) s.undetermined = u->get<bool>();
    return s;
}

}  // namespace denpex
