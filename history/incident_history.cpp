#include "history/incident_history.hpp"

#include "history/fingerprint.hpp"
#include "history/history_store.hpp"
#include "history/incident_record.hpp"
#include "history/job_identity.hpp"

namespace denpex {

namespace {

void save_incident(const Report& report, const HistoryRequest& request, HistoryView& h) {
    const auto hosts = report_hosts(report);
    IncidentContext context{new_incident_name(h.fingerprint), job_identity(report, request.cwd), request.raw,
                            fingerprint_lines(report.diagnoses.front(), hosts)};
    const std::string text = incident_record(saved_report(report, request.raw, hosts), context)
                                 .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (auto problem = write_incident(*h.dir, context.name, text + "\n"))
        h.warnings.push_back("history: the incident was not saved: " + *problem);
    else h.saved_id = context.name.id;
}

}  // namespace

HistoryView consult_history(const Report& report, const HistoryRequest& request) {
    HistoryView h;
    h.dir = request.dir;
    if (report.diagnoses.empty()) {
        if (request.save) h.warnings.push_back("history: nothing to save (no failure found)");
        return h;
    }
    h.fingerprint = failure_fingerprint(report.diagnoses.front(), report_hosts(report));
    if (!h.dir) {
        if (request.save) h.warnings.push_back("history: not saved: neither XDG_DATA_HOME nor HOME names a directory");
        return h;
    }
    const HistoryScan scan = scan_fingerprint(*h.dir, h.fingerprint);
    h.exists = scan.exists;
    h.warnings.insert(h.warnings.end(), scan.warnings.begin(), scan.warnings.end());
    if (scan.exists) h.seen = seen_before(*h.dir, scan, h.fingerprint, h.warnings);
    if (request.save) save_incident(report, request, h);
    return h;
}

nlohmann::json history_json(const HistoryView& h) {
    nlohmann::json j = seen_before_json(h.seen, h.fingerprint);
    if (!h.saved_id.empty()) j["saved"] = h.saved_id;
    return j;
}

bool wants_history_field(const HistoryView& h) { return !h.fingerprint.empty() && (h.exists || !h.saved_id.empty()); }

}  // namespace denpex
