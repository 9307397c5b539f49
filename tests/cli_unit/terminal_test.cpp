// The CLI's terminal parts as pure functions (cli/progress.hpp, cli/color.hpp), and the exit status.
#include <doctest/doctest.h>

#include <unistd.h>

#include <chrono>
#include <string>

#include "cli/color.hpp"
#include "cli/exit_status.hpp"
#include "cli/progress.hpp"
#include "engine/report.hpp"
#include "tests/cli_unit/diagnose_fixture.hpp"

using namespace denpex::cli;
using namespace std::chrono_literals;

TEST_CASE("progress: bytes, percentage, throughput and ETA") {
    CHECK(format_bytes(512) == "512 B");
    CHECK(format_bytes(1536) == "1.5 KiB");
    CHECK(format_bytes(std::uint64_t{3} << 30) == "3.0 GiB");
    CHECK(format_eta(42) == "ETA 42s");
    CHECK(format_eta(185) == "ETA 3m05s");
    CHECK(format_eta(3720) == "ETA 1h02m");
    CHECK(format_progress({std::uint64_t{1} << 30, std::uint64_t{4} << 30, 2.0}) ==
          "denpex: 1.0 GiB / 4.0 GiB (25%)  512.0 MiB/s  ETA 6s");
    // stdin: no total, so no percentage and no ETA.
    CHECK(format_progress({std::uint64_t{10} << 20, 0, 1.0}) == "denpex: 10.0 MiB  10.0 MiB/s");
    // More read than stat said (a file still growing): never above 100%, ETA 0.
    CHECK(format_progress({200, 100, 1.0}) == "denpex: 200 B / 100 B (100%)  200 B/s  ETA 0s");
    CHECK(format_progress({0, 100, 0.0}) == "denpex: 0 B / 100 B (0%)");
}

TEST_CASE("progress: at most ten updates a second, none in the first interval") {
    const auto t0 = ProgressThrottle::Clock::time_point{};
    ProgressThrottle throttle(t0);
    CHECK_FALSE(throttle.due(t0));
    CHECK_FALSE(throttle.due(t0 + 99ms));
    CHECK(throttle.due(t0 + 100ms));
    CHECK_FALSE(throttle.due(t0 + 150ms));
    CHECK(throttle.due(t0 + 200ms));
    int drawn = 0;
    for (int ms = 200; ms <= 1200; ++ms) drawn += throttle.due(t0 + std::chrono::milliseconds(ms));
    CHECK(drawn == 10);
}

TEST_CASE("progress: disabled, it writes nothing") {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    {
        TerminalProgress p(fds[1], false, 100);
        for (int i = 0; i < 1000; ++i) p.update(static_cast<std::uint64_t>(i));
        p.finish();
    }
    ::close(fds[1]);
    char c;
    CHECK(::read(fds[0], &c, 1) == 0);
    ::close(fds[0]);
}

TEST_CASE("colour: auto needs a terminal and no NO_COLOR; always and never are what they say") {
    CHECK(parse_color_mode("auto") == ColorMode::automatic);
    CHECK(parse_color_mode("always") == ColorMode::always);
    CHECK(parse_color_mode("never") == ColorMode::never);
    CHECK_FALSE(parse_color_mode("yes"));
    CHECK(use_color(ColorMode::automatic, true, nullptr));
    CHECK(use_color(ColorMode::automatic, true, ""));   // NO_COLOR set but empty counts as unset
    CHECK_FALSE(use_color(ColorMode::automatic, true, "1"));
    CHECK_FALSE(use_color(ColorMode::automatic, false, nullptr));
    CHECK(use_color(ColorMode::always, false, "1"));
    CHECK_FALSE(use_color(ColorMode::never, true, nullptr));
}

TEST_CASE("colour: only the report's labels are painted, and stripping the codes gives the text back") {
    const denpex::Report report = diagnose_texts(oom_job());
    const std::string text = denpex::to_text(report);
    const std::string painted = colorize_report(text);
    CHECK(painted != text);
    CHECK(painted.rfind("\x1b[1;31mFAILURE     \x1b[0m", 0) == 0);
    std::string stripped;
    for (std::size_t i = 0; i < painted.size(); ++i) {
        if (painted[i] == '\x1b') {
            i = painted.find('m', i);
            continue;
        }
        stripped += painted[i];
    }
    CHECK(stripped == text);
    // Indented lines (log text) are never painted.
    CHECK(colorize_report("  FAILURE     x\n") == "  FAILURE     x\n");
}

TEST_CASE("exit status: decided, undetermined, nothing found") {
    CHECK(code(exit_status_for(diagnose_texts(oom_job()))) == 0);
    CHECK(code(exit_status_for(diagnose_texts({oom_job()[0]}))) == 3);
    CHECK(code(exit_status_for(diagnose_texts({{"ok.log", "INFO step 1 loss 2.0\n"}}))) == 1);
    CHECK(code(ExitStatus::usage) == 2);
}
