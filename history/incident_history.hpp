// What the local history says about one diagnosis, and saving it there: the step `denpex diagnose --save` and the
// editor's `denpex.saveHistory` (the server's --save-history) share.
//
// Contract. `consult_history` fingerprints the leading diagnosis (history/fingerprint.hpp), looks up that
// fingerprint's earlier incidents ("seen before", one small directory listed) and, when `save`, writes this one
// (history/incident_record.hpp: masked, no raw log text unless `raw`). `dir` is the history directory (nullopt:
// none usable, said in a warning when saving). `cwd` names the job where the logs do not. Nothing throws; every
// problem is a warning ("history: ..."). A Report without a diagnosis is neither looked up nor saved.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/diagnosis.hpp"
#include "history/seen_before.hpp"

namespace denpex {

struct HistoryView {
    std::optional<std::string> dir;
    bool exists = false;
    std::string fingerprint;   // of the leading diagnosis; "" when nothing was found
    SeenBefore seen;
    std::string saved_id;
    std::vector<std::string> warnings;
};

struct HistoryRequest {
    std::optional<std::string> dir;
    bool save = false;
    bool raw = false;
    std::string cwd = "/";
};

HistoryView consult_history(const Report& report, const HistoryRequest& request);

// The "history" field of the JSON contract: seen before, and the id saved.
nlohmann::json history_json(const HistoryView& h);
// Whether the JSON carries that field: something was found before, or saved now.
bool wants_history_field(const HistoryView& h);

}  // namespace denpex
