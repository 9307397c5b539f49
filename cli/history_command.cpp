#include "cli/history_command.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <ostream>

#include <nlohmann/json.hpp>

#include "history/history_store.hpp"
#include "history/incident_record.hpp"
#include "engine/bounded_number.hpp"

namespace denpex::cli {
namespace {

struct ListOptions {
    bool json = false;
    std::size_t limit = std::numeric_limits<std::size_t>::max();
};

int usage(std::ostream& err, const std::string& message) {
    err << "denpex: " << message << " (see denpex history --help)\n";
    return 2;
}

void print_warnings(const std::vector<std::string>& warnings, std::ostream& err) {
    for (const auto& w : warnings) err << "denpex: warning: " << w << "\n";
}

// The incident's summary, or nullopt with a warning on `err`.
std::optional<IncidentSummary> load_summary(const std::string& dir, const IncidentName& n, std::ostream& err) {
    std::string problem;
    const auto text = read_incident(dir, n, problem);
    auto summary = text ? summarise_record(*text, problem) : std::nullopt;
    if (!summary) err << "denpex: warning: history: " << n.path() << ": " << problem << "\n";
    return summary;
}

void list_line(const IncidentName& n, const std::optional<IncidentSummary>& s, std::ostream& out) {
    out << n.id << "  " << display_time(n.time) << "  ";
    if (!s) {
        out << "(corrupt)  fingerprint " << n.fingerprint << "\n";
        return;
    }
    out << (s->failure_id.empty() ? "-" : s->failure_id) << "  " << s->initiating;
    if (!s->confidence.empty()) out << " (" << s->confidence << ")";
    if (!s->job.empty()) out << "  " << s->job;
    out << "\n";
}

nlohmann::json list_json(const IncidentName& n, const std::optional<IncidentSummary>& s) {
    nlohmann::json j = {{"id", n.id}, {"time", iso_time(n.time)}, {"fingerprint", n.fingerprint}, {"corrupt", !s}};
    if (s)
        j.update({{"failure_id", s->failure_id}, {"title", s->title}, {"initiating", s->initiating},
                  {"confidence", s->confidence}, {"undetermined", s->undetermined}, {"job", s->job}});
    return j;
}

int list(const ListOptions& o, const std::string& dir, std::ostream& out, std::ostream& err) {
    const HistoryScan scan = scan_history(dir);
    print_warnings(scan.warnings, err);
    nlohmann::json array = nlohmann::json::array();
    std::size_t shown = 0;
    for (auto it = scan.incidents.rbegin(); it != scan.incidents.rend() && shown < o.limit; ++it, ++shown) {
        const auto summary = load_summary(dir, *it, err);
        if (o.json) array.push_back(list_json(*it, summary));
        else list_line(*it, summary, out);
    }
    if (o.json) out << array.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    else if (scan.incidents.empty()) out << "No incidents saved in " << dir << ".\n";
    return 0;
}

int show(const std::string& id, bool json, const std::string& dir, std::ostream& out, std::ostream& err) {
    const HistoryScan scan = scan_history(dir);
    print_warnings(scan.warnings, err);
    std::vector<const IncidentName*> found;
    for (const auto& n : scan.incidents)
        if (n.id.compare(0, id.size(), id) == 0) found.push_back(&n);
    if (found.empty()) {
        err << "denpex: no incident '" << id << "' in " << dir << " (see denpex history)\n";
        return 1;
    }
    if (found.size() > 1) return usage(err, "incident id '" + id + "' is ambiguous: " + std::to_string(found.size()) + " match");
    std::string problem;
    const auto text = read_incident(dir, *found.front(), problem);
    const auto summary = text ? summarise_record(*text, problem) : std::nullopt;
    if (!summary) {
        err << "denpex: history: " << found.front()->path() << ": " << problem << "\n";
        return 1;
    }
    if (!json) {
        out << summary->report_text;
        return 0;
    }
    const auto record = nlohmann::json::parse(*text, nullptr, false);
    out << record.value("report", nlohmann::json::object()).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
        << "\n";
    return 0;
}

}  // namespace

const char* history_usage() {
    return "usage: denpex history [list] [--json] [-n N]\n"
           "       denpex history show ID [--json]\n"
           "\n"
           "Lists the incidents saved by `denpex diagnose --save` ($XDG_DATA_HOME/denpex/history, by default\n"
           "~/.local/share/denpex/history), newest first, or prints one saved report again.\n"
           "  list              one line per incident: id, date, failure, initiator (confidence), job (the default)\n"
           "  show ID           the saved report; ID may be any unique prefix of an incident id\n"
           "  --json            list: the incidents as a JSON array; show: the saved report's JSON contract\n"
           "  -n N              list the N newest incidents only\n"
           "  -h, --help        print this help\n"
           "Exit codes: 0 done, 1 no such incident, 2 usage error.\n";
}

int history_command(const std::vector<std::string>& args, const std::string& dir, std::ostream& out, std::ostream& err) {
    ListOptions list_options;
    std::vector<std::string> words;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--json") list_options.json = true;
        else if (args[i] == "-n") {
            const auto n = i + 1 < args.size() ? parse_bounded<std::size_t>(args[i + 1], 1, 1000000) : std::nullopt;
            if (!n) return usage(err, "-n needs a number from 1 to 1000000");
            list_options.limit = *n;
            ++i;
        } else if (args[i].size() > 1 && args[i][0] == '-') return usage(err, "unknown option '" + args[i] + "' for history");
        else words.push_back(args[i]);
    }
    if (words.empty() || (words.front() == "list" && words.size() == 1)) return list(list_options, dir, out, err);
    if (words.front() == "show") {
        if (words.size() != 2 || words[1].empty()) return usage(err, "history show needs exactly one incident id");
        return show(words[1], list_options.json, dir, out, err);
    }
    return usage(err, "unknown history subcommand '" + words.front() + "'");
}

}  // namespace denpex::cli
