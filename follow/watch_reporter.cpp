#include "follow/watch_reporter.hpp"

#include <ctime>

#include "engine/report.hpp"

namespace denpex {
namespace {

// The rank or process that failed first, as the report names it; "" when none is named.
std::string initiator(const Diagnosis& d) {
    if (d.initiating_rank) return "rank " + std::to_string(*d.initiating_rank);
    return d.initiating_process;
}

std::string failure_id(const Diagnosis& d) { return d.failure ? d.failure->id : std::string(); }
std::string failure_title(const Diagnosis& d) { return d.failure ? d.failure->title : std::string("failure"); }

std::string verdict_key(const Report& r) {
    if (r.diagnoses.empty()) return "nothing";
    const Diagnosis& d = r.diagnoses.front();
    return failure_id(d) + "|" + initiator(d) + "|" + (d.undetermined ? "u" : "d") + "|" + d.confidence + "|" +
           std::to_string(d.collateral.size());
}

std::string clock_now() {
    const std::time_t now = std::time(nullptr);
    std::tm tm {};
    ::localtime_r(&now, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%H:%M:%S", &tm);
    return buf;
}

std::string iso_now() {
    const std::time_t now = std::time(nullptr);
    std::tm tm {};
    ::gmtime_r(&now, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

std::string evidence_line(const Diagnosis& d) {
    if (d.evidence.empty()) return {};
    const Evidence& e = d.evidence.front();
    return "    " + e.file + ":" + std::to_string(e.line) + ": " + e.text + "\n";
}

std::string initiating_text(const Diagnosis& d) {
    std::string who = initiator(d);
    if (d.initiating_host) who += " on " + *d.initiating_host;
    return "INITIATING " + failure_title(d) + ": " + who + " (confidence " + d.confidence + ")\n" + evidence_line(d);
}

std::string verdict_text(const Report& r) {
    if (r.diagnoses.empty()) return "verdict: nothing failed so far\n";
    const Diagnosis& d = r.diagnoses.front();
    std::string who = initiator(d);
    if (d.initiating_host) who += " on " + *d.initiating_host;
    std::string text = "verdict: " + failure_title(d);
    if (d.undetermined) text += ", initiator undetermined";
    else if (!who.empty()) text += ", initiated by " + who;
    text += " (confidence " + d.confidence + "); " + std::to_string(d.collateral.size()) + " collateral\n";
    if (d.undetermined && !d.missing.empty()) text += "    missing: " + d.missing.front() + "\n";
    return text;
}

}  // namespace

std::vector<WatchUpdate> WatchReporter::changes(const Report& report) {
    std::vector<WatchUpdate> out;
    for (std::size_t i = 0; i < report.diagnoses.size(); ++i) {
        const Diagnosis& d = report.diagnoses[i];
        const std::string who = initiator(d);
        if (d.undetermined || who.empty() || !d.failure) continue;
        // The initiator is the news: the same rank's failure named more precisely later (an OOM that the
        // collateral turns into "watchdog timeout caused by a silent OOM") is a verdict update, not a new event.
        if (announced_.insert(who).second) out.push_back({UpdateKind::initiating, i});
    }
    const std::string key = verdict_key(report);
    // The first verdict, when it is the initiator just announced, says nothing the announcement did not.
    const bool announced_lead = last_verdict_.empty() && !out.empty() && out.front().diagnosis == 0;
    if (key != last_verdict_ && !announced_lead && !(last_verdict_.empty() && report.diagnoses.empty()))
        out.push_back({UpdateKind::verdict, 0});
    if (!report.diagnoses.empty() || !last_verdict_.empty()) last_verdict_ = key;
    return out;
}

const char* kind_name(UpdateKind kind) {
    switch (kind) {
        case UpdateKind::initiating: return "initiating";
        case UpdateKind::verdict: return "verdict";
        case UpdateKind::final_report: return "final";
    }
    return "verdict";
}

std::string human_text(const WatchUpdate& update, const Report& report) {
    const std::string head = "denpex watch " + clock_now() + " ";
    switch (update.kind) {
        case UpdateKind::initiating: return head + initiating_text(report.diagnoses.at(update.diagnosis));
        case UpdateKind::verdict: return head + verdict_text(report);
        case UpdateKind::final_report: return head + "final report\n" + to_text(report);
    }
    return {};
}

nlohmann::json json_line(const WatchUpdate& update, const Report& report) {
    nlohmann::json j;
    j["event"] = kind_name(update.kind);
    j["time"] = iso_now();
    if (update.kind == UpdateKind::initiating) {
        const Diagnosis& d = report.diagnoses.at(update.diagnosis);
        j["failure"] = failure_id(d);
        j["rank"] = d.initiating_rank ? nlohmann::json(*d.initiating_rank) : nlohmann::json(nullptr);
        j["process"] = initiator(d);
        j["host"] = d.initiating_host ? nlohmann::json(*d.initiating_host) : nlohmann::json(nullptr);
    }
    j["report"] = to_json(report);
    return j;
}

std::vector<std::pair<std::string, std::string>> exec_environment(const WatchUpdate& update, const Report& report) {
    std::vector<std::pair<std::string, std::string>> env = {{"DENPEX_EVENT", kind_name(update.kind)}};
    if (update.diagnosis >= report.diagnoses.size()) return env;
    const Diagnosis& d = report.diagnoses[update.diagnosis];
    env.emplace_back("DENPEX_FAILURE", failure_id(d));
    env.emplace_back("DENPEX_RANK", d.initiating_rank ? std::to_string(*d.initiating_rank) : std::string());
    env.emplace_back("DENPEX_PROCESS", initiator(d));
    env.emplace_back("DENPEX_HOST", d.initiating_host.value_or(""));
    env.emplace_back("DENPEX_CONFIDENCE", d.confidence);
    if (!d.evidence.empty()) {
        env.emplace_back("DENPEX_EVIDENCE_FILE", d.evidence.front().file);
        env.emplace_back("DENPEX_EVIDENCE_LINE", std::to_string(d.evidence.front().line));
    }
    return env;
}

}  // namespace denpex
