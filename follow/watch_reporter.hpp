// WatchReporter: what `denpex watch` says about each new Report, and how it says it.
//
// Contract. `changes` compares a Report with what was said before and returns, in order:
//   - one `initiating` update per diagnosis whose initiator (the rank or process that failed first) was not
//     announced yet (the same rank's failure named more precisely later is a verdict update): the moment a rank's own failure (an OOM, an Xid, a segfault, an exception)
//     is in the logs, before the other ranks' watchdogs fire;
//   - one `verdict` update when the leading verdict (failure, initiator, decided or not, confidence, number of
//     collateral ranks) differs from the last one printed; never twice for the same verdict (the first verdict
//     is not repeated when it is the initiator just announced).
// `final_update` is the report printed when the inputs end or on a signal. Formatting: `human_text` writes a
// line or two (the final report: diagnose's text report), `json_line` one JSON object (JSON Lines) holding the
// update's kind, time and subject and, under "report", the diagnose --json contract (engine/report.hpp's
// to_json). The Report is already masked (engine/secret_mask.hpp); nothing here adds log text of its own.
#pragma once

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

#include "engine/diagnosis.hpp"

namespace denpex {

enum class UpdateKind { initiating, verdict, final_report };

struct WatchUpdate {
    UpdateKind kind = UpdateKind::verdict;
    std::size_t diagnosis = 0;   // index into Report::diagnoses of the subject (initiating); 0 otherwise
};

class WatchReporter {
public:
    std::vector<WatchUpdate> changes(const Report& report);
    std::size_t initiators_announced() const { return announced_.size(); }

private:
    std::set<std::string> announced_;
    std::string last_verdict_;
};

const char* kind_name(UpdateKind kind);
std::string human_text(const WatchUpdate& update, const Report& report);
nlohmann::json json_line(const WatchUpdate& update, const Report& report);
// The DENPEX_* environment of --exec for an initiating update.
std::vector<std::pair<std::string, std::string>> exec_environment(const WatchUpdate& update, const Report& report);

}  // namespace denpex
