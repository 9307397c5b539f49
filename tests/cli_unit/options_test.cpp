// `diagnose` options (cli/diagnose_options.hpp): every option parses, and the help lists each of them.
#include <doctest/doctest.h>

#include "cli/diagnose_options.hpp"

using namespace denpex::cli;

TEST_CASE("diagnose options: each parses; errors are one sentence") {
    DiagnoseCliOptions o;
    CHECK_FALSE(parse_diagnose_options({"--sarif", "--color=never", "--quiet", "--save-raw", "--knowledge", "kb",
                                        "--mask-hosts", "--no-mask", "a.log", "-"},
                                       o));
    CHECK(o.format == OutputFormat::sarif);
    CHECK(o.color == ColorMode::never);
    CHECK(o.quiet);
    CHECK(o.save);
    CHECK(o.save_raw);
    CHECK(o.knowledge_dirs == std::vector<std::string>{"kb"});
    CHECK(o.mask.hosts);
    CHECK_FALSE(o.mask.secrets);
    CHECK(o.paths == std::vector<std::string>{"a.log", "-"});
    DiagnoseCliOptions p;
    CHECK(parse_diagnose_options({"--json", "--sarif", "x"}, p) == "--json and --sarif exclude each other");
    DiagnoseCliOptions q;
    CHECK(parse_diagnose_options({"--color=sometimes", "x"}, q)->find("--color needs") == 0);
    DiagnoseCliOptions r;
    CHECK(parse_diagnose_options({"--json=1", "x"}, r) == "unknown option '--json=1' for diagnose");
    DiagnoseCliOptions s;
    CHECK_FALSE(parse_diagnose_options({"--color", "always", "--", "--json"}, s));
    CHECK(s.paths == std::vector<std::string>{"--json"});
    DiagnoseCliOptions t;
    CHECK(parse_diagnose_options({"--quiet"}, t)->find("at least one") != std::string::npos);
}

TEST_CASE("diagnose --help lists every option and the four exit codes") {
    const std::string help = diagnose_usage();
    for (const char* option : {"--json", "--sarif", "--knowledge DIR", "--no-mask", "--mask-hosts", "--color WHEN",
                               "--quiet", "--save", "--save-raw", "--help"})
        CHECK_MESSAGE(help.find(option) != std::string::npos, option);
    for (const char* code : {"0 decided", "1 nothing failed", "2 usage error", "3 undetermined"})
        CHECK_MESSAGE(help.find(code) != std::string::npos, code);
}
