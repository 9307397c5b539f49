#include "engine/normalize.hpp"

namespace denpex {
namespace {

// Length of a valid UTF-8 sequence starting at s[i], or 0 when the bytes there are not one.
std::size_t utf8_length(std::string_view s, std::size_t i) {
    auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    unsigned char c = b(i);
    std::size_t n;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c >= 0xE0 && c <= 0xEF) n = 3;
    else if (c >= 0xF0 && c <= 0xF4) n = 4;
    else return 0;
    if (i + n > s.size()) return 0;
    for (std::size_t k = 1; k < n; ++k)
        if ((b(i + k) & 0xC0) != 0x80) return 0;
    // Overlong forms and surrogates are invalid too.
    if (c == 0xE0 && b(i + 1) < 0xA0) return 0;
    if (c == 0xED && b(i + 1) > 0x9F) return 0;
    if (c == 0xF0 && b(i + 1) < 0x90) return 0;
    if (c == 0xF4 && b(i + 1) > 0x8F) return 0;
    return n;
}

// Index just past an escape sequence starting at s[i] == ESC.
std::size_t skip_escape(std::string_view s, std::size_t i) {
    std::size_t j = i + 1;
    if (j >= s.size()) return j;
    if (s[j] == '[') {   // CSI: parameters and intermediates, then a final byte in @..~
        ++j;
        while (j < s.size() && !(s[j] >= '@' && s[j] <= '~')) ++j;
        return j < s.size() ? j + 1 : j;
    }
    if (s[j] == ']') {   // OSC: up to BEL or ESC backslash
        ++j;
        while (j < s.size()) {
            if (s[j] == '\a') return j + 1;
            if (s[j] == '\x1b' && j + 1 < s.size() && s[j + 1] == '\\') return j + 2;
            ++j;
        }
        return j;
    }
    return j + 1;   // two-byte escape
}

// Whether every byte is printable ASCII or TAB: nothing for the general pass to do but Ray's note.
bool plain_ascii(std::string_view s) {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const auto* end = p + s.size();
    bool plain = true;
    for (; p != end; ++p) plain &= (*p >= 0x20 && *p < 0x7f) || *p == '\t';   // branch-free: vectorises
    return plain;
}

// Ray's log deduplication appends " [repeated 3x across cluster]": a display note, not the message, and it would
// keep patterns that end at the line's end from matching. Returns the text's length without it.
std::size_t without_ray_note(std::string_view text) {
    constexpr std::string_view kRayTail = " across cluster]";
    if (text.size() > kRayTail.size() && text.ends_with(kRayTail)) {
        if (std::size_t open = text.rfind(" [repeated ");
            open != std::string_view::npos && text.size() - open <= kRayTail.size() + 24)
            return open;
    }
    return text.size();
}

}  // namespace

std::string_view normalized(std::string_view raw, std::string& scratch) {
    if (plain_ascii(raw)) return raw.substr(0, without_ray_note(raw));
    normalize(raw, scratch);
    return scratch;
}

bool normalize(std::string_view raw, std::string& out) {
    out.clear();
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    bool changed = false;
    std::size_t i = 0;
    while (i < raw.size()) {
        unsigned char c = static_cast<unsigned char>(raw[i]);
        if (c == 0x1b) {
            i = skip_escape(raw, i);
            changed = true;
            continue;
        }
        if (c == '\r') {
            // Several redraws in a row collapse to one space.
            if (!out.empty() && out.back() != ' ') out.push_back(' ');
            ++i;
            changed = true;
            continue;
        }
        if (c == 0) {
            // NUL runs are holes, not text: a log truncated under a writer (logrotate copytruncate) or a
            // preallocated file. Dropped, so the prefix after them is still at the start of the line.
            ++i;
            changed = true;
            continue;
        }
        if (c < 0x20 && c != '\t') {
            out.push_back(' ');
            ++i;
            changed = true;
            continue;
        }
        if (c < 0x80) {
            // Append the whole run of printable ASCII at once: this is nearly every byte of a real log.
            std::size_t j = i + 1;
            while (j < raw.size()) {
                unsigned char d = static_cast<unsigned char>(raw[j]);
                if (d >= 0x80 || (d < 0x20 && d != '\t')) break;
                ++j;
            }
            out.append(raw.data() + i, j - i);
            i = j;
            continue;
        }
        std::size_t n = utf8_length(raw, i);
        if (n == 0) {
            out.push_back('?');
            ++i;
            changed = true;
            continue;
        }
        out.append(raw.data() + i, n);
        i += n;
    }
    if (const std::size_t kept = without_ray_note(out); kept != out.size()) {
        out.resize(kept);
        changed = true;
    }
    return changed;
}

}  // namespace denpex
