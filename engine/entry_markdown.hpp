// The reference card of one knowledge entry, as markdown, in the order an on-call engineer reads it: the kind of
// cause and what tells the kinds apart, the cheapest confirmation, what it is, why it happens, how to confirm, the
// fix (with its version conditions), the fix per training stack (snippet, versions, source), how to verify, the
// fingerprint to alert on (RE2 and grep -E), prevention, signatures with their upstream sources. Used by
// `denpex kb show`; hovers show a short card of their own (server/handlers/hover.cpp).
#pragma once

#include <string>

#include "engine/knowledge.hpp"

namespace denpex {

std::string entry_markdown(const Entry& e);

}  // namespace denpex
