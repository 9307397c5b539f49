// denpex_server_tests: doctest's main, with the server's log quiet unless DENPEX_TEST_LOG names a level.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>

#include "server/log.hpp"

int main(int argc, char** argv) {
    const char* level = std::getenv("DENPEX_TEST_LOG");
    auto parsed = denpex::server::parse_log_level(level ? level : "off");
    denpex::server::set_log_level(parsed.value_or(denpex::server::LogLevel::off));
    doctest::Context context(argc, argv);
    return context.run();
}
