// The local history (history/history_store.hpp, history/seen_before.hpp, cli/history_command.hpp, history/fingerprint.hpp):
// fingerprints that ignore what changes between runs, atomic incident files, seen-before from names alone,
// corrupt files that cost only themselves.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "history/fingerprint.hpp"
#include "cli/history_command.hpp"
#include "history/history_store.hpp"
#include "history/incident_record.hpp"
#include "history/job_identity.hpp"
#include "history/seen_before.hpp"
#include "tests/cli_unit/diagnose_fixture.hpp"

using namespace denpex;
using namespace denpex::cli;
namespace fs = std::filesystem;

namespace {

struct TempDir {
    fs::path path;
    TempDir() {
        std::string tmpl = (fs::temp_directory_path() / "denpex-history-XXXXXX").string();
        REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
        path = tmpl;
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

std::string save(const std::string& dir, const denpex::Report& report, bool raw = false) {
    const auto hosts = report_hosts(report);
    const std::string fp = failure_fingerprint(report.diagnoses.at(0), hosts);
    IncidentContext c{new_incident_name(fp), job_identity(report, "/work"), raw, fingerprint_lines(report.diagnoses[0], hosts)};
    REQUIRE_FALSE(write_incident(dir, c.name, incident_record(saved_report(report, raw, hosts), c).dump()));
    return c.name.id;
}

}  // namespace

TEST_CASE("fingerprint: numbers, hosts, pids, paths and hex are abstracted") {
    const std::vector<std::string> hosts = {"gpu-node-02"};
    CHECK(normalise_evidence("[rank5]: CUDA out of memory. Tried to allocate 3.12 GiB on gpu-node-02", hosts) ==
          "[rank#]: CUDA out of memory. Tried to allocate # GiB on <host>");
    CHECK(normalise_evidence("File \"/usr/lib/python3/site.py\", line 12 at 0x7f3a2b 10.0.0.12:29500", {}) ==
          "File \"<path>\", line # at <hex> <ip>");
    CHECK(normalise_evidence("pid 12345 busId 86000 id deadbeef 1a2b3c4d5e6f", {}) == "pid # busId # id deadbeef <hex>");
    CHECK(normalise_evidence("token=hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567   x", {}).find("hf_") == std::string::npos);
}

TEST_CASE("fingerprint: the same failure on another rank and host is the same; another failure is not") {
    auto job = oom_job();
    const auto a = diagnose_texts(job);
    for (auto& [name, text] : job) {
        for (std::size_t at = text.find("rank1"); at != std::string::npos; at = text.find("rank1", at)) text.replace(at, 5, "rank3");
        for (std::size_t at = text.find("2.00 GiB"); at != std::string::npos; at = text.find("2.00 GiB", at)) text.replace(at, 8, "7.50 GiB");
    }
    const auto b = diagnose_texts(job);
    REQUIRE(b.diagnoses.at(0).initiating_rank == 3);
    CHECK(failure_fingerprint(a.diagnoses.at(0), report_hosts(a)) == failure_fingerprint(b.diagnoses.at(0), report_hosts(b)));
    const auto other = diagnose_texts({{"x.log", "[rank2]: Segmentation fault (core dumped)\n"}});
    REQUIRE(!other.diagnoses.empty());
    CHECK(failure_fingerprint(a.diagnoses[0], {}) != failure_fingerprint(other.diagnoses[0], {}));
}

TEST_CASE("history: the directory follows XDG") {
    CHECK(history_dir("/x", "/home/u") == "/x/denpex/history");
    CHECK(history_dir("relative", "/home/u") == "/home/u/.local/share/denpex/history");
    CHECK(history_dir(nullptr, "/home/u") == "/home/u/.local/share/denpex/history");
    CHECK_FALSE(history_dir(nullptr, nullptr));
}

TEST_CASE("history: incident names round-trip and refuse anything else") {
    const IncidentName n = new_incident_name("0123456789abcdef");
    const auto back = parse_incident_name(n.fingerprint, n.time + "-" + n.id + ".json");
    CHECK(n.path() == n.fingerprint + "/" + n.time + "-" + n.id + ".json");
    REQUIRE(back);
    CHECK(back->id == n.id);
    CHECK(back->time == n.time);
    CHECK(back->fingerprint == n.fingerprint);
    CHECK_FALSE(parse_incident_name(n.fingerprint, "README"));
    CHECK_FALSE(parse_incident_name(n.fingerprint, ".tmp-" + n.time + "-" + n.id + ".json"));
    CHECK_FALSE(parse_incident_name(n.fingerprint, "20250102T120000Z-XYZ456789abc.json"));
    CHECK_FALSE(parse_incident_name("notes", n.time + "-" + n.id + ".json"));
    CHECK(display_time("20250102T120304Z") == "2025-01-02 12:03 UTC");
    CHECK(iso_time("20250102T120304Z") == "2025-01-02T12:03:04Z");
}

TEST_CASE("history: save, seen before, list, show") {
    TempDir tmp;
    const std::string dir = (tmp.path / "denpex/history").string();
    const auto report = diagnose_texts(oom_job());
    const std::string fp = failure_fingerprint(report.diagnoses.at(0), report_hosts(report));
    std::vector<std::string> warnings;
    CHECK_FALSE(scan_history(dir).exists);
    const std::string first = save(dir, report);
    save(dir, report);
    const std::string last = save(dir, report);
    const HistoryScan scan = scan_history(dir);
    CHECK(scan.exists);
    CHECK(scan.incidents.size() == 3);
    const SeenBefore seen = seen_before(dir, scan, fp, warnings);
    CHECK(warnings.empty());
    CHECK(seen.count == 3);
    CHECK(seen.last_job == "logs in /work/logs");
    const std::string line = format_seen_before(seen);
    CHECK(line.find("Seen before: 3 times, last on ") == 0);
    CHECK(line.find("(logs in /work/logs), same fingerprint " + fp) != std::string::npos);
    CHECK(seen_before(dir, scan, "ffffffffffffffff", warnings).count == 0);
    const HistoryScan one = scan_fingerprint(dir, fp);
    CHECK(one.incidents.size() == 3);
    CHECK(seen_before(dir, one, fp, warnings).count == 3);
    CHECK(scan_fingerprint(dir, "ffffffffffffffff").exists);
    CHECK(scan_fingerprint(dir, "ffffffffffffffff").incidents.empty());

    std::ostringstream out, err;
    CHECK(history_command({}, dir, out, err) == 0);
    CHECK(out.str().find(first) != std::string::npos);
    CHECK(out.str().find(report.diagnoses[0].failure->id) != std::string::npos);
    std::ostringstream shown, err2;
    CHECK(history_command({"show", first.substr(0, 12)}, dir, shown, err2) == 0);
    CHECK(shown.str().rfind("FAILURE     ", 0) == 0);
    std::ostringstream none, err3;
    CHECK(history_command({"show", "ffffffffffff"}, dir, none, err3) == 1);
    std::ostringstream json_out, err4;
    CHECK(history_command({"list", "--json", "-n", "2"}, dir, json_out, err4) == 0);
    CHECK(nlohmann::json::parse(json_out.str()).size() == 2);
    std::ostringstream bad, err5;
    CHECK(history_command({"-n", "99999999999999999999999"}, dir, bad, err5) == 2);
    (void)last;
}

TEST_CASE("history: no raw log text unless asked") {
    TempDir tmp;
    const std::string dir = tmp.path.string();
    const auto report = diagnose_texts(oom_job(" at /home/alice/train.py token=hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567"));
    save(dir, report);
    save(dir, report, true);
    const HistoryScan scan = scan_history(dir);
    REQUIRE(scan.incidents.size() == 2);
    std::string texts[2];
    for (int i = 0; i < 2; ++i) {
        std::ifstream in(fs::path(dir) / scan.incidents[static_cast<std::size_t>(i)].path());
        std::stringstream s;
        s << in.rdbuf();
        texts[i] = s.str();
        CHECK(texts[i].find("hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567") == std::string::npos);   // never a secret
    }
    const bool first_is_raw = nlohmann::json::parse(texts[0])["raw"].get<bool>();
    const std::string& abstracted = first_is_raw ? texts[1] : texts[0];
    const std::string& raw = first_is_raw ? texts[0] : texts[1];
    CHECK(abstracted.find("/home/alice") == std::string::npos);
    CHECK(abstracted.find("2.00 GiB") == std::string::npos);
    CHECK(abstracted.find("CUDA out of memory") != std::string::npos);
    CHECK(raw.find("/home/alice/train.py") != std::string::npos);
}

TEST_CASE("history: corrupt and stray files cost only themselves") {
    TempDir tmp;
    const std::string dir = tmp.path.string();
    const auto report = diagnose_texts(oom_job());
    const std::string fp = failure_fingerprint(report.diagnoses.at(0), report_hosts(report));
    save(dir, report);
    // A later incident with the same fingerprint, cut short (a disk filled up), and a writer's leftover.
    std::ofstream(fs::path(dir) / fp / "29990101T000000Z-aaaaaaaaaaaa.json") << "{\"format\": \"denpex-inc";
    std::ofstream(fs::path(dir) / fp / ".tmp-bbbbbbbbbbbb-123") << "{";
    std::ofstream(fs::path(dir) / fp / "notes.txt") << "mine";
    std::ofstream(fs::path(dir) / "README") << "mine";
    const HistoryScan scan = scan_history(dir);
    CHECK(scan.incidents.size() == 2);
    REQUIRE(scan.warnings.size() == 1);
    CHECK(scan.warnings[0].find("2 entries") != std::string::npos);
    CHECK(scan.warnings[0].find("not incidents") != std::string::npos);
    std::vector<std::string> warnings;
    const SeenBefore seen = seen_before(dir, scan_fingerprint(dir, fp), fp, warnings);
    CHECK(seen.count == 2);
    CHECK(seen.last.id == "aaaaaaaaaaaa");
    CHECK(seen.last_job.empty());
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].find("not valid JSON") != std::string::npos);
    std::ostringstream out, err;
    CHECK(history_command({"list"}, dir, out, err) == 0);
    CHECK(out.str().find("(corrupt)") != std::string::npos);
    CHECK(err.str().find("warning") != std::string::npos);
    // A history that is a file, not a directory: a warning, nothing breaks.
    std::ofstream(tmp.path / "flat") << "x";
    const HistoryScan flat = scan_history((tmp.path / "flat").string());
    CHECK(flat.incidents.empty());
    CHECK_FALSE(flat.warnings.empty());
    CHECK(write_incident((tmp.path / "flat").string(), new_incident_name(fp), "{}").has_value());
}

TEST_CASE("history: job identity from the logs' names") {
    denpex::Report r;
    r.inputs = {"runs/slurm-4242_3.out"};
    CHECK(job_identity(r, "/w") == "slurm job 4242");
    r.inputs = {"/data/job7/node0.log", "/data/job7/sub/node1.log"};
    CHECK(job_identity(r, "/w") == "logs in /data/job7");
    r.inputs = {"<stdin>"};
    CHECK(job_identity(r, "/w").empty());
}
