// Normalisation of one raw log line into the text that attribution and matching see.
//
// Contract. `normalize(raw, out)` writes into `out` (reused across calls, so steady state allocates nothing):
//   - ANSI escape sequences (CSI `ESC [ ... final`, OSC `ESC ] ... BEL|ESC \`, two-byte `ESC x`) removed;
//   - a trailing "\r" (CRLF files) removed; an inner "\r" (tqdm and other progress bars redraw with it)
//     becomes a single space, so text glued to a redraw is still one searchable line with its prefix kept;
//   - NUL bytes are dropped (holes of a truncated or preallocated file); other C0 controls except TAB
//     become spaces;
//   - bytes that are not valid UTF-8 become '?', one per byte, so the text is always valid UTF-8;
//   - Ray's deduplication note at the end of a line, ` [repeated 3x across cluster]`, is removed.
// The original bytes are never modified; callers keep them for evidence. Linear time, one pass.
// Returns true when the text differs from the raw bytes.
//
// `normalized(raw, scratch)` is the same text as a view: for a line of printable ASCII and TAB only (no ESC, no
// "\r", no NUL, no other control byte, nothing >= 0x80: nearly every line of a real log) it is `raw` itself, or
// a prefix of it when Ray's note is cut, and nothing is copied; any other line is normalised into `scratch` and
// the view is of `scratch` (valid until its next use). Either way no heap allocation once `scratch` has grown.
#pragma once

#include <string>
#include <string_view>

namespace denpex {

bool normalize(std::string_view raw, std::string& out);
std::string_view normalized(std::string_view raw, std::string& scratch);

}  // namespace denpex
