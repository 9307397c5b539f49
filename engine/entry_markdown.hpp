// The reference card of one knowledge entry, as markdown: what it is, why it happens, how to confirm, the fix
// (with its version conditions), how to verify, prevention, signatures with their upstream sources. Used by
// `denpex kb show` and by the server's hovers.
#pragma once

#include <string>

#include "engine/knowledge.hpp"

namespace denpex {

std::string entry_markdown(const Entry& e);

}  // namespace denpex
