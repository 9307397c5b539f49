// Prefix scanners: each grammar walked byte by byte in the order its RE2 pattern reads it. Every repeated class
// here is disjoint from the byte that follows it, so the greedy walk is the only way the pattern can match and
// no backtracking is needed (the property that makes these equal to RE2's leftmost-first match).
#include "engine/prefix_scan.hpp"

#include <array>

namespace denpex {
namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }
bool alpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool alnum(char c) { return digit(c) || alpha(c); }
bool upper(char c) { return c >= 'A' && c <= 'Z'; }
bool lower(char c) { return c >= 'a' && c <= 'z'; }
// [A-Za-z0-9._-]: NCCL's and Open MPI's host token.
bool host_char(char c) { return alnum(c) || c == '.' || c == '_' || c == '-'; }
// RE2's \s: [\t\n\f\r ].
bool space_class(char c) { return c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ' '; }

// A cursor over `text` that never reads past its end.
struct Cursor {
    std::string_view text;
    std::size_t i = 0;

    bool at(char c) const { return i < text.size() && text[i] == c; }
    bool eat(char c) {
        if (!at(c)) return false;
        ++i;
        return true;
    }
    bool eat(std::string_view s) {
        if (text.substr(i, s.size()) != s) return false;
        i += s.size();
        return true;
    }
    bool digit_at(std::size_t k) const { return k < text.size() && digit(text[k]); }
    // Exactly n digits.
    std::optional<std::string_view> digits(std::size_t n) {
        for (std::size_t k = 0; k < n; ++k)
            if (!digit_at(i + k)) return std::nullopt;
        const std::string_view out = text.substr(i, n);
        i += n;
        return out;
    }
    // The length of the run of digits from here (\d+ or \d*; the caller checks a bound such as \d{1,12}).
    std::size_t run_of_digits() const {
        std::size_t k = i;
        while (digit_at(k)) ++k;
        return k - i;
    }
};

// (\d\d):(\d\d):(\d\d) after the date's separator.
bool clock_parts(Cursor& c, DateTimeParts& p) {
    const auto h = c.digits(2);
    if (!h || !c.eat(':')) return false;
    const auto m = c.digits(2);
    if (!m || !c.eat(':')) return false;
    const auto s = c.digits(2);
    if (!s) return false;
    p.hour = *h, p.minute = *m, p.second = *s;
    return true;
}

// (?:[.,](\d{1,9})\d*)?(Z|[+-]\d\d(?::?\d\d)?)?(\])? : every part optional, so each greedy choice stands.
void date_time_tail(Cursor& c, DateTimeParts& p) {
    if ((c.at('.') || c.at(',')) && c.digit_at(c.i + 1)) {
        ++c.i;
        const std::size_t run = c.run_of_digits();
        p.fraction = c.text.substr(c.i, run < 9 ? run : 9);
        c.i += run;
    }
    const std::size_t zone = c.i;
    if (c.at('Z')) {
        ++c.i;
    } else if ((c.at('+') || c.at('-')) && c.digit_at(c.i + 1) && c.digit_at(c.i + 2)) {
        c.i += 3;
        if (c.at(':') && c.digit_at(c.i + 1) && c.digit_at(c.i + 2)) c.i += 3;
        else if (c.digit_at(c.i) && c.digit_at(c.i + 1)) c.i += 2;
    }
    if (c.i > zone) p.zone = c.text.substr(zone, c.i - zone);
    p.close = c.eat(']');
}

bool glog_level(char c) { return c == 'I' || c == 'W' || c == 'E' || c == 'F' || c == 'D'; }

// (\d{1,2})(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,9})\d*)? : month and day share one run of 3 or 4 digits (c10
// does not pad the month), the day being its last two.
bool glog_clock(Cursor& c, GlogHeaderParts& p) {
    const std::size_t run = c.run_of_digits();
    if (run < 3 || run > 4) return false;
    p.month = c.text.substr(c.i, run - 2);
    p.day = c.text.substr(c.i + run - 2, 2);
    c.i += run;
    if (!c.eat(' ')) return false;
    DateTimeParts clock;
    if (!clock_parts(c, clock)) return false;
    p.hour = clock.hour, p.minute = clock.minute, p.second = clock.second;
    if (c.at('.') && c.digit_at(c.i + 1)) {
        ++c.i;
        const std::size_t digits = c.run_of_digits();
        p.fraction = c.text.substr(c.i, digits < 9 ? digits : 9);
        c.i += digits;
    }
    return true;
}

// ` [^\s:\[\]]+:\d+\]`: one space, a file name up to its colon, a line number.
bool file_location(Cursor& c) {
    Cursor t = c;
    if (!t.eat(' ')) return false;
    const std::size_t start = t.i;
    while (t.i < t.text.size() && !space_class(t.text[t.i]) && t.text[t.i] != ':' && t.text[t.i] != '[' &&
           t.text[t.i] != ']')
        ++t.i;
    if (t.i == start || !t.eat(':')) return false;
    const std::size_t line = t.run_of_digits();
    if (line == 0) return false;
    t.i += line;
    if (!t.eat(']')) return false;
    c = t;
    return true;
}

// (?: +\d+)? then the file location. Leftmost-first tries the thread id first; within it only the longest runs of
// spaces and digits can be followed by the location's space, so the one alternative is the location alone.
bool glog_location(Cursor& c) {
    Cursor t = c;
    while (t.at(' ')) ++t.i;
    const std::size_t thread = t.run_of_digits();
    if (t.i > c.i && thread > 0) {
        t.i += thread;
        if (file_location(t)) {
            c = t;
            return true;
        }
    }
    return file_location(c);
}

}  // namespace

std::optional<GlogHeaderParts> scan_glog_bracketed(std::string_view text) {
    Cursor c{text};
    if (!c.eat('[') || c.i >= text.size() || !glog_level(text[c.i])) return std::nullopt;
    ++c.i;
    GlogHeaderParts p;
    // A digit here can only start the time: without it the pattern needs a space at this place.
    if (c.digit_at(c.i) && !glog_clock(c, p)) return std::nullopt;
    if (!glog_location(c)) return std::nullopt;
    c.eat(' ');
    p.length = c.i;
    return p;
}

std::optional<DateTimeParts> scan_date_time(std::string_view text) {
    Cursor c{text};
    DateTimeParts p;
    p.open = c.eat('[');
    const auto y = c.digits(4);
    if (!y || !c.eat('-')) return std::nullopt;
    const auto mo = c.digits(2);
    if (!mo || !c.eat('-')) return std::nullopt;
    const auto d = c.digits(2);
    if (!d || !(c.eat('T') || c.eat(' ') || c.eat('_'))) return std::nullopt;
    if (!clock_parts(c, p)) return std::nullopt;
    p.year = *y, p.month = *mo, p.day = *d;
    date_time_tail(c, p);
    p.length = c.i;
    return p;
}

std::optional<NcclHeaderParts> scan_nccl_header(std::string_view text) {
    if (text.empty() || !alnum(text[0])) return std::nullopt;
    Cursor c{text, 1};
    while (c.i < text.size() && host_char(text[c.i])) ++c.i;
    NcclHeaderParts p;
    p.host = text.substr(0, c.i);
    if (!c.eat(':')) return std::nullopt;
    const std::size_t pid = c.run_of_digits();
    if (pid == 0) return std::nullopt;
    p.pid = text.substr(c.i, pid);
    c.i += pid;
    if (!c.eat(':')) return std::nullopt;
    const std::size_t tid = c.run_of_digits();
    if (tid == 0) return std::nullopt;
    c.i += tid;
    if (!c.eat(" [")) return std::nullopt;
    const std::size_t dev = c.run_of_digits();
    if (dev == 0) return std::nullopt;
    p.dev = text.substr(c.i, dev);
    c.i += dev;
    if (!c.eat(']')) return std::nullopt;
    c.eat(' ');
    p.length = c.i;
    return p;
}

std::optional<NumberTagParts> scan_torch_rank(std::string_view text) {
    Cursor c{text};
    if (!c.eat("[rank")) return std::nullopt;
    const std::size_t run = c.run_of_digits();
    if (run == 0) return std::nullopt;
    NumberTagParts p;
    p.number = text.substr(c.i, run);
    c.i += run;
    if (!c.eat("]:")) return std::nullopt;
    c.eat(' ');
    p.length = c.i;
    return p;
}

std::optional<NumberTagParts> scan_tee_role(std::string_view text) {
    Cursor c{text};
    if (!c.eat('[') || c.i >= text.size() || !alpha(text[c.i])) return std::nullopt;
    ++c.i;
    while (c.i < text.size() && (alpha(text[c.i]) || text[c.i] == '_')) ++c.i;
    const std::size_t run = c.run_of_digits();
    if (run == 0) return std::nullopt;
    NumberTagParts p;
    p.number = text.substr(c.i, run);
    c.i += run;
    if (!c.eat("]:")) return std::nullopt;
    p.length = c.i;
    return p;
}

std::size_t scan_line_number(std::string_view text) {
    Cursor c{text};
    if (!c.eat('[')) return 0;
    const std::size_t run = c.run_of_digits();
    if (run == 0 || run > 12) return 0;
    c.i += run;
    return c.eat("] ") ? c.i : 0;
}

std::size_t scan_bare_index_tag(std::string_view text) {
    Cursor c{text};
    if (!c.eat('[')) return 0;
    const std::size_t run = c.run_of_digits();
    if (run == 0 || run > 6) return 0;
    c.i += run;
    return c.eat("]:") ? c.i : 0;
}

bool could_be_mpirun_tag(std::string_view text) { return text.size() > 1 && text[0] == '[' && digit(text[1]); }

bool could_be_glog_bare(std::string_view text) {
    return text.size() > 1 && std::string_view("IWEFD").find(text[0]) != std::string_view::npos && digit(text[1]);
}

bool could_be_ompi_host_pid(std::string_view text) {
    if (text.size() < 2 || text[0] != '[' || !alnum(text[1])) return false;
    std::size_t i = 2;
    while (i < text.size() && host_char(text[i])) ++i;
    return i + 1 < text.size() && text[i] == ':' && digit(text[i + 1]);
}

bool could_be_deepspeed(std::string_view text) {
    return text.size() > 5 && text[0] == '[' && digit(text[1]) && digit(text[2]) && digit(text[3]) &&
           digit(text[4]) && text[5] == '-';
}

bool could_be_dmesg_uptime(std::string_view text) {
    if (text.empty() || text[0] != '[') return false;
    std::size_t i = 1;
    while (i < text.size() && text[i] == ' ') ++i;
    if (i < text.size() && text[i] == '+') ++i;
    return i < text.size() && digit(text[i]);
}

bool could_be_ctime(std::string_view text) {
    static constexpr std::array<std::string_view, 7> kDays = {"Mon ", "Tue ", "Wed ", "Thu ", "Fri ", "Sat ", "Sun "};
    if (!text.empty() && text[0] == '[') text.remove_prefix(1);
    const std::string_view day = text.substr(0, 4);
    for (std::string_view d : kDays)
        if (day == d) return true;
    return false;
}

bool could_be_clock(std::string_view text) {
    return text.size() > 5 && digit(text[0]) && digit(text[1]) && text[2] == ':' && digit(text[3]) &&
           digit(text[4]) && text[5] == ':';
}

bool could_be_stream_tag(std::string_view text) {
    auto tag_at = [&](std::size_t i) {
        const std::string_view t = text.substr(i, 9);
        return t == "[stderr] " || t == "[stdout] ";
    };
    if (tag_at(0)) return true;
    std::size_t run = 0;
    while (run < text.size() && run <= 120 && !space_class(text[run]) && text[run] != '[' && text[run] != ']') ++run;
    return run >= 1 && run <= 120 && run < text.size() && text[run] == ' ' && tag_at(run + 1);
}

bool could_be_syslog(std::string_view text) {
    return text.size() > 3 && upper(text[0]) && lower(text[1]) && lower(text[2]) && text[3] == ' ';
}

bool could_be_srun_label(std::string_view text) {
    std::size_t i = 0;
    while (i < text.size() && text[i] == ' ') ++i;
    std::size_t run = 0;
    while (i + run < text.size() && digit(text[i + run])) ++run;
    return run >= 1 && run <= 7 && text.substr(i + run, 2) == ": ";
}

bool could_be_pdsh_host(std::string_view text) {
    if (text.empty() || !alnum(text[0])) return false;
    std::size_t i = 1;
    while (i < text.size() && i <= 253 && (alnum(text[i]) || text[i] == '.' || text[i] == '-')) ++i;
    return i <= 253 && text.substr(i, 2) == ": ";
}

}  // namespace denpex
