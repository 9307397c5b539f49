// Attribution by the RE2 patterns alone: the reference the hand-written prefix scanners are checked against.
//
// Contract. `attribute` (engine/attribution.hpp) reads the prefixes that occur on nearly every line with the
// scanners of engine/prefix_scan and runs every other prefix form's RE2 only after a byte pre-check says it can be
// there. The functions here skip both and run the RE2 patterns alone, the definition of what each prefix form is.
// For every line the two give the same Attribution (and parse_timestamp the same Timestamp):
// tests/unit/prefix_scan_test.cpp checks it over the corpus, the knowledge examples and generated variants. Nothing
// but that test should call these: they are the slow path.
#pragma once

#include <optional>
#include <string_view>

#include "engine/attribution.hpp"

namespace denpex {

// How the prefixes are read (engine/attribution.cpp passes it down its parsers).
enum class PrefixParsing { scanner, reference };

Attribution attribute_reference(std::string_view line);
std::optional<Timestamp> parse_timestamp_reference(std::string_view text);

}  // namespace denpex
