// The web reference of a knowledge entry, for Diagnostic.codeDescription.href.
//
// Contract. The first http(s) URL among the entry's `sources` (then its signatures' `source`) wins. Entries
// usually cite upstream code as "owner/repo path/to/file (note)"; that becomes
// https://github.com/owner/repo/blob/HEAD/path/to/file. nullopt when nothing in the entry is a usable link, in
// which case the diagnostic carries no codeDescription (an href must be a URI).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace denpex {
struct Entry;
}

namespace denpex::server {

std::optional<std::string> entry_reference(const Entry& entry);
// One source string -> a URL, as above.
std::optional<std::string> source_url(std::string_view source);

}  // namespace denpex::server
