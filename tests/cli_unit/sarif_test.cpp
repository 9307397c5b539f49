// SARIF 2.1.0 shape of `diagnose --sarif` (cli/sarif.hpp): checked field by field against what the 2.1.0
// schema requires of the parts denpex writes (no schema download: the checks are the schema's rules).
#include <doctest/doctest.h>

#include "history/fingerprint.hpp"
#include "cli/sarif.hpp"
#include "engine/report.hpp"
#include "tests/cli_unit/diagnose_fixture.hpp"

using nlohmann::json;
using namespace denpex;

namespace {

// The 2.1.0 schema's requirements on a physicalLocation as denpex writes it.
void check_physical_location(const json& loc) {
    REQUIRE(loc.is_object());
    REQUIRE(loc.contains("artifactLocation"));
    CHECK(loc["artifactLocation"]["uri"].is_string());
    CHECK_FALSE(loc["artifactLocation"]["uri"].get<std::string>().empty());
    if (loc.contains("region")) {
        CHECK(loc["region"]["startLine"].is_number_integer());
        CHECK(loc["region"]["startLine"].get<int>() >= 1);
    }
}

// The schema's requirements on the log, the run, the tool and each result.
void check_sarif_shape(const json& s) {
    REQUIRE(s.is_object());
    CHECK(s["version"] == "2.1.0");
    CHECK(s["$schema"].get<std::string>().find("sarif-schema-2.1.0") != std::string::npos);
    REQUIRE(s["runs"].is_array());
    REQUIRE(s["runs"].size() == 1);
    const json& run = s["runs"][0];
    const json& driver = run["tool"]["driver"];
    CHECK(driver["name"] == "denpex");
    CHECK(driver["version"].is_string());
    REQUIRE(driver["rules"].is_array());
    std::vector<std::string> rule_ids;
    for (const auto& rule : driver["rules"]) {
        REQUIRE(rule["id"].is_string());
        rule_ids.push_back(rule["id"]);
        CHECK(rule["shortDescription"]["text"].is_string());
    }
    REQUIRE(run["results"].is_array());
    for (const auto& r : run["results"]) {
        REQUIRE(r["message"]["text"].is_string());
        const std::string level = r["level"];
        CHECK((level == "error" || level == "warning" || level == "note" || level == "none"));
        const int index = r["ruleIndex"];
        REQUIRE(index >= 0);
        REQUIRE(static_cast<std::size_t>(index) < rule_ids.size());
        CHECK(rule_ids[static_cast<std::size_t>(index)] == r["ruleId"]);
        for (const auto& l : r["locations"]) check_physical_location(l["physicalLocation"]);
        if (r.contains("relatedLocations"))
            for (const auto& l : r["relatedLocations"]) {
                CHECK(l["id"].is_number_integer());
                CHECK(l["message"]["text"].is_string());
                check_physical_location(l["physicalLocation"]);
            }
        for (const auto& [key, value] : r["partialFingerprints"].items()) CHECK(value.is_string());
    }
}

}  // namespace

TEST_CASE("sarif: the initiating line is the result, the collateral its related locations") {
    const Report report = diagnose_texts(oom_job());
    REQUIRE(!report.diagnoses.empty());
    const json s = cli::to_sarif(report, "0.1.0");
    check_sarif_shape(s);
    const json& result = s["runs"][0]["results"][0];
    CHECK(result["ruleId"] == report.diagnoses[0].failure->id);
    const json& loc = result["locations"][0]["physicalLocation"];
    CHECK(loc["artifactLocation"]["uri"] == "logs/node1.log");
    CHECK(loc["region"]["startLine"] == 2);
    CHECK(loc["region"]["snippet"]["text"].get<std::string>().find("CUDA out of memory") != std::string::npos);
    REQUIRE(result.contains("relatedLocations"));
    const json& rel = result["relatedLocations"][0]["physicalLocation"];
    CHECK(rel["artifactLocation"]["uri"] == "logs/node0.log");
    CHECK(rel["region"]["startLine"] == 1);
    CHECK(result["partialFingerprints"]["denpexFailure/v1"].get<std::string>().size() == 16);
    // The rules are the entries used: the failure and the collateral's.
    bool collateral_rule = false;
    for (const auto& rule : s["runs"][0]["tool"]["driver"]["rules"])
        collateral_rule |= rule["id"] == report.diagnoses[0].collateral.at(0).failure->id;
    CHECK(collateral_rule);
}

TEST_CASE("sarif: level follows the confidence") {
    const Report report = diagnose_texts(oom_job());
    const std::string confidence = report.diagnoses.at(0).confidence;
    const std::string level = cli::to_sarif(report, "0.1.0")["runs"][0]["results"][0]["level"];
    CHECK(level == (confidence == "high" ? "error" : confidence == "medium" ? "warning" : "note"));
}

TEST_CASE("sarif: an undetermined verdict is a note that names the missing fact") {
    // Only the timing-out rank's log: who failed first is not in it.
    const auto job = oom_job();
    const Report report = diagnose_texts({job[0]});
    REQUIRE(!report.diagnoses.empty());
    REQUIRE(report.diagnoses[0].undetermined);
    const json s = cli::to_sarif(report, "0.1.0");
    check_sarif_shape(s);
    const json& result = s["runs"][0]["results"][0];
    CHECK(result["level"] == "note");
    const std::string text = result["message"]["text"];
    REQUIRE(!report.diagnoses[0].missing.empty());
    CHECK(text.find(report.diagnoses[0].missing[0]) != std::string::npos);
    CHECK(result["properties"]["undetermined"] == true);
}

TEST_CASE("sarif: secrets are masked exactly as in the JSON view") {
    const std::string secret = " fetch https://alice:S3cr3tPassw0rd@hub.example.com token=hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567";
    const Report report = diagnose_texts(oom_job(secret));
    const std::string sarif = cli::to_sarif(report, "0.1.0").dump();
    CHECK(sarif.find("S3cr3tPassw0rd") == std::string::npos);
    CHECK(sarif.find("hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567") == std::string::npos);
    const std::string json_view = to_json(report)["diagnoses"][0]["initiating"]["evidence"][0]["text"];
    const std::string snippet =
        cli::to_sarif(report, "0.1.0")["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["snippet"]["text"];
    CHECK(snippet == json_view);
}

TEST_CASE("sarif: uris are percent-encoded, absolute paths are file uris") {
    CHECK(cli::sarif_uri("logs/node 1.log") == "logs/node%201.log");
    CHECK(cli::sarif_uri("/var/log/rank#3.log") == "file:///var/log/rank%233.log");
    CHECK(cli::sarif_uri("<stdin>") == "%3Cstdin%3E");
}

TEST_CASE("sarif: nothing found is a run without results") {
    const Report report = diagnose_texts({{"ok.log", "INFO step 1 loss 2.0\n"}});
    const json s = cli::to_sarif(report, "0.1.0");
    check_sarif_shape(s);
    CHECK(s["runs"][0]["results"].empty());
}
