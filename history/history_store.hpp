// The local history of incidents: where it lives, how incidents are named, written and read back.
//
// Contract. The history is the directory $XDG_DATA_HOME/denpex/history ($XDG_DATA_HOME when it is set to an
// absolute path, else $HOME/.local/share). Each incident is one file of its own, in a directory per fingerprint,
//     <fingerprint>/<time>-<id>.json      e.g. 0123456789abcdef/20250102T120000Z-1a2b3c4d5e6f.json
// (fingerprint: history/fingerprint.hpp; time: UTC, basic ISO 8601; id: 12 random hex digits), so that listing one
// small directory answers "seen before" without opening any file, however long the history, and no write ever
// rewrites another's data.
// A file is written under a temporary name (a leading '.') in its directory and renamed into place: a
// reader never sees half an incident, concurrent writers never clash, and a crash leaves at most a stray
// temporary file, which readers skip. Nothing here throws: problems come back as one sentence each, and a
// corrupt or unreadable file only ever costs that file (its name still counts in a scan). The directory is
// created 0700, files 0600: incidents are private.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace denpex {

// nullopt when neither variable gives a usable directory.
std::optional<std::string> history_dir(const char* xdg_data_home, const char* home);
std::optional<std::string> history_dir_from_env();

struct IncidentName {
    std::string time;          // 20250102T120000Z
    std::string id;            // 12 hex digits
    std::string fingerprint;   // 16 hex digits
    std::string path() const;  // relative to the history directory
};

// nullopt when the names are not an incident's.
std::optional<IncidentName> parse_incident_name(std::string_view fingerprint_dir, std::string_view file_name);
// A fresh name for an incident saved now.
IncidentName new_incident_name(const std::string& fingerprint);
// "2025-01-02 12:00 UTC"
std::string display_time(const std::string& basic_time);
// "2025-01-02T12:00:00Z"
std::string iso_time(const std::string& basic_time);

struct HistoryScan {
    bool exists = false;
    std::vector<IncidentName> incidents;   // oldest first
    std::vector<std::string> warnings;
};

// Lists every incident (no file is opened). A missing directory is an empty history without warnings; files and
// directories that are not incidents' are counted in one warning.
HistoryScan scan_history(const std::string& dir);
// Lists the incidents of one fingerprint only (one small directory): what "seen before" needs.
HistoryScan scan_fingerprint(const std::string& dir, const std::string& fingerprint);

// Writes one incident atomically. nullopt on success, else why not.
std::optional<std::string> write_incident(const std::string& dir, const IncidentName& name, const std::string& content);

// Reads one incident's text; nullopt with `problem` set when it cannot be read.
std::optional<std::string> read_incident(const std::string& dir, const IncidentName& name, std::string& problem);

}  // namespace denpex
