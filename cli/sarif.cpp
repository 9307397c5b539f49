#include "cli/sarif.hpp"

#include <algorithm>
#include <cstdio>

#include "history/fingerprint.hpp"
#include "history/incident_record.hpp"

namespace denpex::cli {
namespace {

using nlohmann::json;

constexpr const char* kSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

bool unreserved(unsigned char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
           c == '_' || c == '~' || c == '/';
}

std::string level_for(const Diagnosis& d) {
    if (d.undetermined) return "note";
    if (d.confidence == "high") return "error";
    if (d.confidence == "medium") return "warning";
    return "note";
}

std::string rule_id(const Entry* e) { return e ? e->id : "unknown-failure"; }

json rule_for(const Entry* e) {
    if (!e) return {{"id", rule_id(e)}, {"shortDescription", {{"text", "Unknown failure"}}}};
    json r = {{"id", e->id},
              {"name", e->id},
              {"shortDescription", {{"text", e->title}}},
              {"properties", {{"category", e->category}, {"severity", e->severity}}}};
    if (!e->what.empty()) r["fullDescription"] = {{"text", e->what}};
    return r;
}

// Each entry the report uses, in first-use order.
std::vector<const Entry*> used_entries(const Report& report) {
    std::vector<const Entry*> used;
    auto add = [&](const Entry* e) {
        if (std::find(used.begin(), used.end(), e) == used.end()) used.push_back(e);
    };
    for (const auto& d : report.diagnoses) add(d.failure);
    for (const auto& d : report.diagnoses)
        for (const auto& c : d.collateral) add(c.failure);
    return used;
}

json physical_location(const Evidence& e) {
    json loc = {{"artifactLocation", {{"uri", sarif_uri(e.file)}}}};
    if (e.line > 0) loc["region"] = {{"startLine", e.line}, {"snippet", {{"text", e.text}}}};
    return loc;
}

std::string message_for(const Diagnosis& d) {
    const std::string title = d.failure ? d.failure->title : "Unknown failure";
    if (d.undetermined) {
        std::string m = title + ": the initiating rank is undetermined.";
        for (const auto& fact : d.missing) m += " Missing to decide: " + fact;
        return m;
    }
    std::string m = title + ": " + initiating_phrase(d) + " (confidence " + d.confidence + ").";
    if (!d.evidence.empty()) m += " " + d.evidence.front().text;
    if (!d.fix.empty()) m += " Fix: " + d.fix.front().text;
    return m;
}

json related_locations(const Diagnosis& d) {
    json related = json::array();
    int id = 0;
    for (const auto& c : d.collateral) {
        if (c.evidence.empty()) continue;
        json loc = {{"id", id++}, {"physicalLocation", physical_location(c.evidence.front())}};
        const std::string what = c.failure ? c.failure->title : "collateral error";
        loc["message"] = {{"text", c.process + ": " + what + " (collateral)"}};
        related.push_back(std::move(loc));
    }
    return related;
}

json result_for(const Diagnosis& d, int rule_index, const std::vector<std::string>& hosts) {
    json locations = json::array();
    for (const auto& e : d.evidence) locations.push_back({{"physicalLocation", physical_location(e)}});
    json r = {{"ruleId", rule_id(d.failure)},
              {"ruleIndex", rule_index},
              {"level", level_for(d)},
              {"message", {{"text", message_for(d)}}},
              {"locations", locations},
              {"partialFingerprints", {{"denpexFailure/v1", failure_fingerprint(d, hosts)}}},
              {"properties",
               {{"confidence", d.confidence}, {"initiating", initiating_phrase(d)}, {"strategies", d.strategies},
                {"undetermined", d.undetermined}, {"missing", d.missing}}}};
    if (json related = related_locations(d); !related.empty()) r["relatedLocations"] = std::move(related);
    return r;
}

}  // namespace

std::string sarif_uri(std::string_view file) {
    std::string out = !file.empty() && file.front() == '/' ? "file://" : "";
    for (unsigned char c : file) {
        if (unreserved(c)) {
            out += static_cast<char>(c);
            continue;
        }
        char buf[4];
        std::snprintf(buf, sizeof buf, "%%%02X", c);
        out += buf;
    }
    return out;
}

json to_sarif(const Report& report, const std::string& tool_version) {
    const std::vector<const Entry*> used = used_entries(report);
    json rules = json::array();
    for (const Entry* e : used) rules.push_back(rule_for(e));
    const std::vector<std::string> hosts = report_hosts(report);
    json results = json::array();
    for (const auto& d : report.diagnoses) {
        const auto index = std::find(used.begin(), used.end(), d.failure) - used.begin();
        results.push_back(result_for(d, static_cast<int>(index), hosts));
    }
    json run = {{"tool", {{"driver", {{"name", "denpex"}, {"version", tool_version}, {"rules", rules}}}}},
                {"results", results},
                {"columnKind", "unicodeCodePoints"}};
    return {{"$schema", kSchema}, {"version", "2.1.0"}, {"runs", json::array({run})}};
}

}  // namespace denpex::cli
