// Attribution: reading who wrote a log line, and when, off the prefixes stacked in front of it.
//
// A line reaches us wrapped in the prefixes of every layer it passed through, outermost first: a log viewer's
// line number, pdsh's `host: `, srun's `3: `, torchrun's `[default3]:`, the excepthook's `[rank3]:`, c10's
// glog header, NCCL's `host:pid:tid [dev] `, a timestamp... Which layers are present varies per cluster, so
// instead of one big pattern we keep a table of small parsers. The walk starts at column 0; at each position
// the parsers are tried in a fixed order, anchored there, and the first that matches records what it knows
// and moves the position past itself. The walk ends when no parser matches: that is `body_offset`.
// Afterwards a handful of well-known markers that live in the message text (`[Rank 3]`, `[PG 1 Rank 14]`,
// NCCL's `Init COMPLETE` line, the store-based barrier...) are searched near the start of the body.
//
// Cost. Lines can be 10 MB (a tensor dump, a progress bar without newlines) and may hold any bytes. Every
// regex here is RE2 (linear time, no backtracking), compiled once as a function-local static, and in
// Latin-1 mode so that invalid UTF-8 and NUL bytes are just bytes. No regex ever sees more than a small
// window: each prefix parser gets `kParserWindow` bytes from the current position, the walk stops after
// `kMaxPrefixes` prefixes, and the in-body markers are searched in the first `kBodyWindow` bytes of the body,
// each only after a plain substring check says it can be there. So the work per line is bounded by a
// constant, whatever the line's length.
//
// Scanners. RE2's per-call cost made this walk a third of a run, so the prefix forms found on nearly every line
// (date-times, NCCL's header, `[rankN]:`, `[roleN]:`, c10's glog header, `[N] `, `[N]:`) are read by the
// hand-written scanners of engine/prefix_scan, which accept exactly their pattern's language, and every other
// form's RE2 runs only after a byte pre-check. `Walk::how` switches both off: that is the reference path
// (engine/attribution_reference.hpp) the scanners are tested against.
//
// Precedence. The first value found for a field wins, so an outer prefix (set by the launcher, which knows)
// beats a marker in the message (which may be stale or describe another rank). The one exception is time:
// a dated time replaces an earlier year-less one, because it can be compared across files.
#include "engine/attribution.hpp"
#include "engine/attribution_reference.hpp"
#include "engine/literal_find.hpp"

#include <re2/re2.h>

#include "engine/prefix_scan.hpp"
#include "engine/process_table.hpp"
#include "engine/re2_captures.hpp"

#include <array>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace denpex {
namespace {

// Longest text one prefix parser looks at. No real prefix is near this long; it only bounds the DFA.
constexpr std::size_t kParserWindow = 512;
// Stacked prefixes seen in practice are 5 or fewer; this stops a line of `[rank0]:` x 1e6 from costing more.
constexpr std::size_t kMaxPrefixes = 32;
// How much of the body the in-body markers are searched in. They sit at the start of the message.
constexpr std::size_t kBodyWindow = 4096;

// ---- small helpers --------------------------------------------------------------------------------------

RE2::Options pattern_options() { return latin1_pattern_options(); }


// Matches `re` anchored at the start of `text`. N is 1 + the number of capturing groups; caps[0] is the whole
// match, so its size is what the parser consumes.
template <std::size_t N>
bool match_at_start(const RE2& re, std::string_view text, std::array<re2::StringPiece, N>& caps) {
    const re2::StringPiece piece(text.data(), text.size());
    return re.Match(piece, 0, piece.size(), RE2::ANCHOR_START, caps.data(), static_cast<int>(N));
}

// Finds the leftmost match of `re` anywhere in `text`.
template <std::size_t N>
bool find_in(const RE2& re, std::string_view text, std::array<re2::StringPiece, N>& caps) {
    const re2::StringPiece piece(text.data(), text.size());
    return re.Match(piece, 0, piece.size(), RE2::UNANCHORED, caps.data(), static_cast<int>(N));
}

// Cheap first-byte test so that a parser whose prefix cannot start here skips its regex call altogether.
bool starts_with(std::string_view text, char c) { return !text.empty() && text.front() == c; }
bool starts_with_alnum(std::string_view text) {
    if (text.empty()) return false;
    const unsigned char c = static_cast<unsigned char>(text.front());
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}


// ---- timestamps ---------------------------------------------------------------------------------------------

// `123456` after the decimal point -> 0.123456. Digits past nanoseconds add nothing a log can use.
double fraction(std::string_view digits) {
    double value = 0;
    double scale = 0.1;
    for (std::size_t i = 0; i < digits.size() && i < 9; ++i) {
        value += (digits[i] - '0') * scale;
        scale /= 10;
    }
    return value;
}

std::optional<double> time_of_day(std::string_view hh, std::string_view mm, std::string_view ss,
                                  std::string_view frac) {
    const auto h = to_number<int>(hh), m = to_number<int>(mm), s = to_number<int>(ss);
    if (!h || !m || !s || *h > 23 || *m > 59 || *s > 60) return std::nullopt;   // 60: a leap second
    return *h * 3600.0 + *m * 60.0 + *s + fraction(frac);
}

// `Z`, `+02`, `+0200`, `-05:30` -> seconds east of UTC. Empty means UTC (the contract's default).
std::optional<double> utc_offset(std::string_view tz) {
    if (tz.empty() || tz == "Z") return 0.0;
    const int sign = tz[0] == '-' ? -1 : 1;
    std::string digits;
    for (char c : tz.substr(1))
        if (c != ':') digits += c;
    const auto h = to_number<int>(std::string_view(digits).substr(0, 2));
    const auto m = digits.size() > 2 ? to_number<int>(std::string_view(digits).substr(2)) : std::optional<int>(0);
    if (!h || !m || *h > 23 || *m > 59) return std::nullopt;
    return sign * (*h * 3600.0 + *m * 60.0);
}

// A full civil date and time -> seconds since the Unix epoch. std::chrono rejects impossible dates.
std::optional<Timestamp> dated(std::string_view yyyy, unsigned month, std::string_view dd, std::string_view hh,
                               std::string_view mi, std::string_view ss, std::string_view frac,
                               std::string_view tz) {
    using namespace std::chrono;
    const auto y = to_number<int>(yyyy);
    const auto d = to_number<unsigned>(dd);
    const auto clock = time_of_day(hh, mi, ss, frac);
    const auto offset = utc_offset(tz);
    if (!y || !d || !clock || !offset) return std::nullopt;
    const year_month_day ymd{year{*y}, std::chrono::month{month}, day{*d}};
    if (!ymd.ok()) return std::nullopt;
    const double days = static_cast<double>(sys_days{ymd}.time_since_epoch().count());
    Timestamp t;
    t.seconds = days * 86400.0 + *clock - *offset;
    t.has_date = true;
    return t;
}

// glog's `MMDD hh:mm:ss` has no year, so the time is counted from the start of a reference year. That year is
// non-leap so that the same month/day always maps to the same offset; 29 February is still accepted (a leap
// year's log) and lands on 1 March's offset, which only matters across that one midnight.
std::optional<Timestamp> yearless(std::string_view mm, std::string_view dd, std::string_view hh,
                                  std::string_view mi, std::string_view ss, std::string_view frac) {
    static constexpr std::array<int, 12> kDaysBefore = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
    static constexpr std::array<int, 12> kDaysIn = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const auto m = to_number<int>(mm), d = to_number<int>(dd);
    const auto clock = time_of_day(hh, mi, ss, frac);
    if (!m || !d || !clock || *m < 1 || *m > 12 || *d < 1 || *d > kDaysIn[*m - 1]) return std::nullopt;
    Timestamp t;
    t.seconds = (kDaysBefore[*m - 1] + *d - 1) * 86400.0 + *clock;
    return t;
}

std::optional<unsigned> month_number(std::string_view name) {
    static constexpr std::array<std::string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    for (unsigned i = 0; i < kMonths.size(); ++i)
        if (kMonths[i] == name) return i + 1;
    return std::nullopt;
}

struct TimeMatch {
    Timestamp time;
    std::size_t length = 0;   // bytes of `text` the timestamp (with its brackets) covers
};

// What date_time's pattern captured, from RE2 or from scan_date_time: the conversion is shared, so the two
// paths can differ only in what they recognise.
std::optional<TimeMatch> date_time_from(const DateTimeParts& p) {
    if (p.open && !p.close) return std::nullopt;   // `[2024-...` that goes on: not a bracketed timestamp
    const auto month = to_number<unsigned>(p.month);
    if (!month) return std::nullopt;
    auto t = dated(p.year, *month, p.day, p.hour, p.minute, p.second, p.fraction, p.zone);
    if (!t) return std::nullopt;
    t->whole_seconds = p.fraction.data() == nullptr;
    // A `]` we did not open belongs to whatever comes next, not to the timestamp.
    return TimeMatch{*t, p.length - (p.close && !p.open ? 1 : 0)};
}

// The reference for scan_date_time (engine/prefix_scan.hpp quotes the same pattern).
std::optional<DateTimeParts> date_time_re2(std::string_view text) {
    static const RE2 re(R"((\[)?(\d{4})-(\d\d)-(\d\d)[T _](\d\d):(\d\d):(\d\d)(?:[.,](\d{1,9})\d*)?)"
                        R"((Z|[+-]\d\d(?::?\d\d)?)?(\])?)",
                        pattern_options());
    std::array<re2::StringPiece, 11> c;
    if (!match_at_start(re, text, c)) return std::nullopt;
    DateTimeParts p;
    p.open = present(c[1]);
    p.close = present(c[10]);
    p.year = view(c[2]), p.month = view(c[3]), p.day = view(c[4]);
    p.hour = view(c[5]), p.minute = view(c[6]), p.second = view(c[7]);
    p.fraction = view(c[8]), p.zone = view(c[9]);
    p.length = c[0].size();
    return p;
}

// Dates written out: ISO 8601 (`T`), Python logging (space, `,millis`), torchrun's summary (`_`), optionally
// in brackets (Python `[...]`, DeepSpeed, NCCL >= 2.23's `[YYYY-mm-dd HH:MM:SS]`).
std::optional<TimeMatch> date_time(std::string_view text, PrefixParsing how) {
    const auto parts = how == PrefixParsing::scanner ? scan_date_time(text) : date_time_re2(text);
    return parts ? date_time_from(*parts) : std::nullopt;
}

// `dmesg` prints seconds since boot, `[ 1234.567890]`; `dmesg -H` prints `[  +0.000291]`, the delta since
// the previous kernel message, which we keep as an uptime marked `relative`.
std::optional<TimeMatch> dmesg_uptime(std::string_view text, PrefixParsing how) {
    static const RE2 re(R"(\[ *(\+)?(\d{1,12})\.(\d{6})\])", pattern_options());
    if (how == PrefixParsing::scanner && !could_be_dmesg_uptime(text)) return std::nullopt;
    std::array<re2::StringPiece, 4> c;
    if (!match_at_start(re, text, c)) return std::nullopt;
    const auto whole = to_number<long long>(view(c[2]));
    if (!whole) return std::nullopt;
    Timestamp t;
    t.seconds = static_cast<double>(*whole) + fraction(view(c[3]));
    t.uptime = true;
    t.relative = present(c[1]);
    return TimeMatch{t, c[0].size()};
}

// ctime style, as `dmesg -T` writes it: `[Mon Oct 23 14:02:03 2024]` (day padded with a space).
std::optional<TimeMatch> ctime_style(std::string_view text, PrefixParsing how) {
    if (how == PrefixParsing::scanner && !could_be_ctime(text)) return std::nullopt;
    static const RE2 re(R"((\[)?(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ([A-Z][a-z]{2}) +(\d{1,2}) (\d\d):(\d\d):(\d\d))"
                        R"( (\d{4})(\])?)",
                        pattern_options());
    std::array<re2::StringPiece, 9> c;
    if (!match_at_start(re, text, c)) return std::nullopt;
    const bool open = present(c[1]), close = present(c[8]);
    if (open && !close) return std::nullopt;
    const auto month = month_number(view(c[2]));
    if (!month) return std::nullopt;
    auto t = dated(view(c[7]), *month, view(c[3]), view(c[4]), view(c[5]), view(c[6]), {}, {});
    if (!t) return std::nullopt;
    t->whole_seconds = true;
    return TimeMatch{*t, c[0].size() - (close && !open ? 1 : 0)};
}

// glog time without the rest of the glog header: `E1023 14:02:03.123456`. c10 does not pad the month, so
// `E211 09:46:37` is 11 February: the month takes one or two digits, the day always two. Only parse_timestamp
// accepts it alone; inside a line the glog parsers below require the full header, which is far less ambiguous.
std::optional<TimeMatch> glog_time(std::string_view text) {
    static const RE2 re(R"([IWEFD](\d{1,2})(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,9})\d*)?)", pattern_options());
    std::array<re2::StringPiece, 7> c;
    if (!match_at_start(re, text, c)) return std::nullopt;
    const auto t = yearless(view(c[1]), view(c[2]), view(c[3]), view(c[4]), view(c[5]), view(c[6]));
    if (!t) return std::nullopt;
    return TimeMatch{*t, c[0].size()};
}

// Any timestamp style except bare glog, at the very start of `text`.
std::optional<TimeMatch> consume_timestamp(std::string_view text, PrefixParsing how) {
    text = text.substr(0, kParserWindow);
    if (auto t = date_time(text, how)) return t;
    if (auto t = dmesg_uptime(text, how)) return t;
    return ctime_style(text, how);
}

// ---- prefix parsers ---------------------------------------------------------------------------------------

// What the walk knows between parsers.
struct Walk {
    // srun's label and pdsh's host are added outside the process, so they can only come before anything the
    // process or a time-stamping layer wrote; once such a prefix is seen, `3: ` or `nvidia-uvm: ` further in
    // is message text.
    bool inside = false;
    bool glog_seen = false;
    // The line's rank so far came from a `[rankN]:` prefix (which torchrun's `--role rank` also prints, for the
    // local rank).
    bool rank_prefix_seen = false;
    PrefixParsing how = PrefixParsing::scanner;
    // The hand-written scanners and pre-checks apply (else every form runs its RE2: the reference).
    bool fast() const { return how == PrefixParsing::scanner; }
};

void set_time(Attribution& a, const Timestamp& t) {
    if (!a.time || (!a.time->has_date && t.has_date)) a.time = t;
}

// A parser looks at `rest` (the window at the current position) and returns how many bytes it recognised,
// 0 when it does not apply.
using Parser = std::size_t (*)(std::string_view rest, Attribution& a, Walk& walk);

// The reference for scan_torch_rank / scan_tee_role: `re`'s one group is the number.
std::optional<NumberTagParts> number_tag_re2(const RE2& re, std::string_view rest) {
    std::array<re2::StringPiece, 2> c;
    if (!match_at_start(re, rest, c)) return std::nullopt;
    return NumberTagParts{view(c[1]), c[0].size()};
}

// Log viewers and `cat -n`-like tools: `[1803] `. A bare bracketed number followed by a space is never a rank
// (the rank prefixes always say `rank` or are glued with `:`), so it is skipped without recording anything.
std::size_t line_number(std::string_view rest, Attribution&, Walk& walk) {
    static const RE2 re(R"(\[\d{1,12}\] )", pattern_options());
    if (walk.fast()) return scan_line_number(rest);
    if (!starts_with(rest, '[')) return 0;
    std::array<re2::StringPiece, 1> c;
    return match_at_start(re, rest, c) ? c[0].size() : 0;
}

// Open MPI `--tag-output`: `[jobid,rank]<stdout>:` glued to the line.
// Horovod's own launcher (gloo) writes `[rank]<stdout>:` with no job id (safe_shell_exec.prefix_connection).
std::size_t mpirun_tag(std::string_view rest, Attribution& a, Walk& walk) {
    static const RE2 re(R"(\[(?:\d+,)?(\d+)\]<(?:stdout|stderr|stddiag)>:)", pattern_options());
    if (!starts_with(rest, '[') || (walk.fast() && !could_be_mpirun_tag(rest))) return 0;
    std::array<re2::StringPiece, 2> c;
    if (!match_at_start(re, rest, c)) return 0;
    fill(a.rank, to_number<int>(view(c[1])));
    walk.inside = true;
    return c[0].size();
}

// `[rank3]:` from c10's C++ log prefix (glued) and from the Python excepthook (followed by one space, which
// belongs to the prefix: dropping it keeps a traceback's own indentation in the body).
std::size_t torch_rank(std::string_view rest, Attribution& a, Walk& walk) {
    static const RE2 re(R"(\[rank(\d+)\]: ?)", pattern_options());
    if (!starts_with(rest, '[')) return 0;
    const auto tag = walk.fast() ? scan_torch_rank(rest) : number_tag_re2(re, rest);
    if (!tag) return 0;
    const auto n = to_number<int>(tag->number);
    if (walk.rank_prefix_seen && a.rank && n && *a.rank != *n && !a.local_rank) {
        // `[rank0]:[rank8]:`: doubled prefixes name one rank; two different numbers mean the outer one was
        // torchrun's `[${role_name}${local_rank}]:` with the role "rank", so it is the local rank.
        a.local_rank = a.rank;
        a.rank = n;
    }
    fill(a.rank, n);
    walk.rank_prefix_seen = true;
    walk.inside = true;
    return tag->length;
}

// torchrun `--tee`/`--log-dir` prefix `[${role_name}${local_rank}]:`, glued to the worker's line. The role is
// `default` unless the user set one; only the number matters. `[rankN]:` is tried first, so it never lands here.
std::size_t tee_role(std::string_view rest, Attribution& a, Walk& walk) {
    static const RE2 re(R"(\[[A-Za-z][A-Za-z_]*(\d+)\]:)", pattern_options());
    if (!starts_with(rest, '[')) return 0;
    const auto tag = walk.fast() ? scan_tee_role(rest) : number_tag_re2(re, rest);
    if (!tag) return 0;
    fill(a.local_rank, to_number<int>(tag->number));
    walk.inside = true;
    return tag->length;
}

// torchrun's `--log-line-prefix-template` lets a user write `[${rank}]:` or `[${local_rank}]:`, which print
// the same `[6]:`. Which of the two it is cannot be told, so nothing is recorded; the walk only steps over it to
// read what follows (often `[rank6]:`). Alone on a line, `[0]:` opens a record of torchrun's summary: not here.
std::size_t bare_index_tag(std::string_view rest, Attribution&, Walk& walk) {
    static const RE2 re(R"(\[\d{1,6}\]:)", pattern_options());
    if (!starts_with(rest, '[')) return 0;
    std::size_t length = 0;
    if (walk.fast()) {
        length = scan_bare_index_tag(rest);
    } else if (std::array<re2::StringPiece, 1> c; match_at_start(re, rest, c)) {
        length = c[0].size();
    }
    if (length == 0 || length >= rest.size()) return 0;
    walk.inside = true;
    return length;
}

// c10's glog-like header in brackets: `[E1109 16:13:20.222288244 ProcessGroupNCCL.cpp:616] ` (newer) or
// `[E ProcessGroupNCCL.cpp:563] ` (2.2/2.3 and older: no time at all). An optional thread id is tolerated.
std::size_t glog_bracketed(std::string_view rest, Attribution& a, Walk& walk) {
    static const RE2 re(R"(\[[IWEFD](?:(\d{1,2})(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,9})\d*)?)?(?: +\d+)?)"
                        R"( [^\s:\[\]]+:\d+\] ?)",
                        pattern_options());
    if (!starts_with(rest, '[') || walk.glog_seen) return 0;
    std::optional<GlogHeaderParts> p;
    if (walk.fast()) {
        p = scan_glog_bracketed(rest);
    } else if (std::array<re2::StringPiece, 7> c; match_at_start(re, rest, c)) {
        p = GlogHeaderParts{view(c[1]), view(c[2]), view(c[3]), view(c[4]), view(c[5]), view(c[6]), c[0].size()};
    }
    if (!p) return 0;
    if (p->month.data() != nullptr) {
        const auto t = yearless(p->month, p->day, p->hour, p->minute, p->second, p->fraction);
        if (!t) return 0;   // `[E9999 ...]` is not a glog header
        set_time(a, *t);
    }
    walk.glog_seen = walk.inside = true;
    return p->length;
}

// Real glog and torch.distributed.elastic's Python logger (which imitates it):
// `E0311 19:04:26.517000 913402 site-packages/torch/.../api.py:732] `. The number is the writer's pid (for
// elastic lines that is the agent, which is still who wrote the line).
std::size_t glog_bare(std::string_view rest, Attribution& a, Walk& walk) {
    static const RE2 re(R"([IWEFD](\d{1,2})(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,9})\d*)? +(\d+) [^\s:\[\]]+:\d+\] ?)",
                        pattern_options());
    if (rest.empty() || std::string_view("IWEFD").find(rest.front()) == std::string_view::npos) return 0;
    if (walk.fast() && !could_be_glog_bare(rest)) return 0;
    std::array<re2::StringPiece, 8> c;
    if (walk.glog_seen || !match_at_start(re, rest, c)) return 0;
    const auto t = yearless(view(c[1]), view(c[2]), view(c[3]), view(c[4]), view(c[5]), view(c[6]));
    if (!t) return 0;
    set_time(a, *t);
    fill(a.pid, to_number<long>(view(c[7])));
    walk.glog_seen = walk.inside = true;
    return c[0].size();
}

// NCCL_DEBUG output: `host:pid:tid [cudaDev] `. The bracketed number is the local CUDA device, not a rank.
// NCCL >= 2.23 may put `[YYYY-mm-dd HH:MM:SS] ` in front; the timestamp parser strips that first.
std::size_t nccl_header(std::string_view rest, Attribution& a, Walk& walk) {
    static const RE2 re(R"(([A-Za-z0-9][A-Za-z0-9._-]*):(\d+):\d+ \[(\d+)\] ?)", pattern_options());
    if (!starts_with_alnum(rest)) return 0;
    std::optional<NcclHeaderParts> p;
    if (walk.fast()) {
        p = scan_nccl_header(rest);
    } else if (std::array<re2::StringPiece, 4> c; match_at_start(re, rest, c)) {
        p = NcclHeaderParts{view(c[1]), view(c[2]), view(c[3]), c[0].size()};
    }
    if (!p) return 0;
    if (!a.host) a.host = std::string(p->host);
    fill(a.pid, to_number<long>(p->pid));
    fill(a.cuda_dev, to_number<int>(p->dev));
    walk.inside = true;
    return p->length;
}

// Ray's driver-side echo of worker output: `(RayTrainWorker pid=2841, ip=10.0.3.7) `; the actor name and the
// ip are optional (`(pid=123) ` for tasks on the driver's node).
std::size_t ray_worker(std::string_view rest, Attribution& a, Walk& walk) {
    static const RE2 re(R"(\((?:[^\s()]+ )?pid=(\d+)(?:, ip=([0-9A-Fa-f.:]+))?\) ?)", pattern_options());
    if (!starts_with(rest, '(')) return 0;
    std::array<re2::StringPiece, 3> c;
    if (!match_at_start(re, rest, c)) return 0;
    fill(a.pid, to_number<long>(view(c[1])));
    if (!a.host && present(c[2])) a.host = std::string(view(c[2]));
    walk.inside = true;
    return c[0].size();
}

// Open MPI's own output prefix (its signal handler, `opal_output`): `[dgx-b3:18843] `, the writer's host and pid; and
// UCX's `[host:pid:thread:tid] ` (its "Caught signal 11" banner and backtrace; the pid left-justified in a field of
// five, `[gpu-a07:345  :0:345]`), the same two fields first.
std::size_t ompi_host_pid(std::string_view rest, Attribution& a, Walk& walk) {
    static const RE2 re(R"(\[([A-Za-z0-9][A-Za-z0-9._-]*):(\d{1,10}) {0,9}(?::\d{1,10}:\d{1,10})?\] ?)", pattern_options());
    if (!starts_with(rest, '[') || (walk.fast() && !could_be_ompi_host_pid(rest))) return 0;
    std::array<re2::StringPiece, 3> c;
    if (!match_at_start(re, rest, c)) return 0;
    if (!a.host) a.host = std::string(view(c[1]));
    fill(a.pid, to_number<long>(view(c[2])));
    walk.inside = true;
    return c[0].size();
}

// DeepSpeed's launcher: `[2024-02-09 09:09:15,164] [INFO] [launch.py:315:sigkill_handler] `. Taken as one
// prefix so that the level and source location do not end up in the body.
std::size_t deepspeed(std::string_view rest, Attribution& a, Walk& walk) {
    static const RE2 re(R"((\[\d{4}-[^\]]{1,40}\]) \[(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)\])"
                        R"( \[[^\s\]:]+:\d+:[^\s\]]*\] ?)",
                        pattern_options());
    if (!starts_with(rest, '[') || (walk.fast() && !could_be_deepspeed(rest))) return 0;
    std::array<re2::StringPiece, 2> c;
    if (!match_at_start(re, rest, c)) return 0;
    const auto t = date_time(view(c[1]), walk.how);
    if (!t || t->length != c[1].size()) return 0;
    set_time(a, t->time);
    walk.inside = true;
    return c[0].size();
}

// A timestamp on its own (Python logging, ISO 8601, NCCL's newest prefix, dmesg, torchrun's summary style),
// with the one space that separates it from what follows.
std::size_t time_prefix(std::string_view rest, Attribution& a, Walk& walk) {
    if (!starts_with(rest, '[') && !starts_with_alnum(rest)) return 0;
    const auto t = consume_timestamp(rest, walk.how);
    if (!t) return 0;
    set_time(a, t->time);
    walk.inside = true;
    std::size_t length = t->length;
    // A collector's `TIME: ` (a colon before the space) ends the stamp the same way as a bare space.
    if (length + 1 < rest.size() && rest[length] == ':' && rest[length + 1] == ' ') ++length;
    if (length < rest.size() && rest[length] == ' ') ++length;
    return length;
}

// A log collector's bare clock in front of the line (`20:18:17.476 `, `ts '%H:%M:%.S'`): no date, and the worker's
// own header after it usually has a better time, so it is passed over without setting one. Millis are required:
// `12:30: ` alone could be anything.
std::size_t clock_prefix(std::string_view rest, Attribution&, Walk& walk) {
    static const RE2 re(R"(\d\d:\d\d:\d\d[.,]\d{3,9} )", pattern_options());
    if (walk.inside || !starts_with_alnum(rest) || (walk.fast() && !could_be_clock(rest))) return 0;
    std::array<re2::StringPiece, 1> c;
    if (!match_at_start(re, rest, c)) return 0;
    return c[0].size();
}

// A collector's stream tag in front of the line: `[stderr] ` or `[stdout] `, after at most one name without spaces
// (`bench-name.node-4 [stderr] `, milabench, job runners). The worker's own prefixes follow it.
std::size_t stream_tag(std::string_view rest, Attribution&, Walk& walk) {
    static const RE2 re(R"((?:[^\s\[\]]{1,120} )?\[(?:stderr|stdout)\] )", pattern_options());
    if (walk.inside || (walk.fast() && !could_be_stream_tag(rest))) return 0;
    std::array<re2::StringPiece, 1> c;
    if (!match_at_start(re, rest, c)) return 0;
    return c[0].size();
}

// A test harness or job service that relays a child's streams line by line: accelerate's and transformers'
// `execute_subprocess_async` print `label, line` with label `stdout:` or `stderr:` (so `stderr: ` + the child's line,
// `stderr: ` alone for an empty one); job services that merge both streams into one log mark each line `[stderr]` or
// `[stdout]`, glued to it. The label names a stream, not a writer.
std::size_t harness_label(std::string_view rest, Attribution&, Walk& walk) {
    constexpr std::array<std::string_view, 4> kLabels = {"stdout:", "stderr:", "[stdout]", "[stderr]"};
    if (walk.inside || (!starts_with(rest, 's') && !starts_with(rest, '['))) return 0;
    for (std::string_view label : kLabels) {
        if (!rest.starts_with(label)) continue;
        if (rest.size() == label.size() || label.front() == '[') return label.size();   // glued: the line follows
        if (rest[label.size()] == ' ') return label.size() + 1;                           // print()'s separator
    }
    return 0;
}

// srun --label: `3: ` (right-aligned, so ` 3: ` when there are ten tasks or more). A task index, not a rank:
// with torchrun under srun one task is a whole node.
std::size_t srun_label(std::string_view rest, Attribution& a, Walk& walk) {
    static const RE2 re(R"( *(\d{1,7}): )", pattern_options());
    if (!starts_with(rest, ' ') && !starts_with_alnum(rest)) return 0;
    if (walk.fast() && !could_be_srun_label(rest)) return 0;
    std::array<re2::StringPiece, 2> c;
    if (walk.inside || a.srun_task || !match_at_start(re, rest, c)) return 0;
    a.srun_task = to_number<int>(view(c[1]));
    return c[0].size();
}

// syslog / journald's default: `Mar 12 04:17:33 dgx-a08 kernel: ` or `... python3[31873]: ` — a year-less
// time, the host, and the program (with its pid when it is not the kernel). Where kernel lines (Xid, OOM
// killer) come from, so the host is what ties them to the right node.
std::size_t syslog_header(std::string_view rest, Attribution& a, Walk& walk) {
    static const RE2 re(R"(([A-Z][a-z]{2}) +(\d{1,2}) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))? ([A-Za-z0-9][A-Za-z0-9.-]*) )"
                        R"([A-Za-z0-9_./-]+(?:\[(\d+)\])?: )",
                        pattern_options());
    if (walk.inside || rest.size() < 16 || !(rest[0] >= 'A' && rest[0] <= 'Z')) return 0;
    if (walk.fast() && !could_be_syslog(rest)) return 0;
    std::array<re2::StringPiece, 9> c;
    if (!match_at_start(re, rest, c)) return 0;
    const auto month = month_number(view(c[1]));
    if (!month) return 0;
    char mm[3];
    std::snprintf(mm, sizeof mm, "%02u", *month);
    std::string dd = std::string(view(c[2]));
    if (dd.size() == 1) dd = "0" + dd;
    const auto t = yearless(mm, dd, view(c[3]), view(c[4]), view(c[5]), view(c[6]));
    if (!t) return 0;
    set_time(a, *t);
    if (!a.host) a.host = std::string(view(c[7]));
    if (present(c[8])) fill(a.pid, to_number<long>(view(c[8])));
    walk.inside = true;
    return c[0].size();
}

// Does `token` (the text before `: `) look like a host name rather than a word of prose or an exception?
// Plain words (`slurmstepd`, `Traceback`, `RuntimeError`, `INFO`) carry no digit, '-' or '.'; exception
// classes with a module path (`torch.cuda.OutOfMemoryError`) end in Error/Exception/Warning; numbers and
// version-like `1.5` are not hosts, though IPv4 addresses are.
bool looks_like_host(std::string_view token) {
    if (token.size() < 2 || token.find_first_of("0123456789-.") == std::string_view::npos) return false;
    if (token.back() == '.' || token.back() == '-' || token.find("..") != std::string_view::npos) return false;
    for (std::string_view suffix : {"Error", "Exception", "Warning", "Interrupt", "Exit"})
        if (token.size() >= suffix.size() && token.substr(token.size() - suffix.size()) == suffix) return false;
    if (token.find_first_not_of("0123456789.") == std::string_view::npos) {
        int dots = 0;
        for (char ch : token) dots += ch == '.';
        return dots == 3;   // 10.0.3.7
    }
    // `Node-Selectors:`, `Container-ID:` (kubectl describe, HTTP-style headers): capitalised words joined by '-'
    // with no digit. Host names with capitals carry digits (`DESKTOP-7QK2M`).
    const bool capital = token.find_first_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ") != std::string_view::npos;
    if (capital && token.find_first_of("0123456789") == std::string_view::npos) return false;
    return true;
}

// pdsh (and clush, ansible's raw output...): `worker-1: ` before every line.
std::size_t pdsh_host(std::string_view rest, Attribution& a, Walk& walk) {
    static const RE2 re(R"(([A-Za-z0-9][A-Za-z0-9.-]{0,252}): )", pattern_options());
    if (!starts_with_alnum(rest) || (walk.fast() && !could_be_pdsh_host(rest))) return 0;
    std::array<re2::StringPiece, 2> c;
    if (walk.inside || a.host || !match_at_start(re, rest, c)) return 0;
    const std::string_view token = view(c[1]);
    if (!looks_like_host(token)) return 0;
    a.host = std::string(token);
    a.stream_host = a.host;
    return c[0].size();
}

// The fixed order. More specific forms come first where two could match the same text: `[rankN]:` before
// the role prefix, DeepSpeed's full header before a bare bracketed date, NCCL's `host:pid:tid` before pdsh.
constexpr std::array<Parser, 18> kParsers = {&harness_label, &line_number,    &mpirun_tag, &torch_rank,  &tee_role,
                                             &bare_index_tag, &glog_bracketed, &glog_bare, &nccl_header,
                                             &ray_worker,     &deepspeed,  &time_prefix, &clock_prefix, &stream_tag, &ompi_host_pid,
                                             &syslog_header,  &srun_label, &pdsh_host};

// ---- in-body markers ----------------------------------------------------------------------------------------

// Is a `[PG ...]` log prefix about the default (world) process group? The description says so when there is
// one (`default_pg`; `undefined` means none was set); otherwise PG id 0 / GUID 0 is the default group, and a
// bare `[Rank N]` (WorkNCCL's prefix, <= 2.6) is taken as the global rank.
bool default_group(std::string_view id, std::string_view guid, std::string_view desc) {
    if (!desc.empty() && desc != "undefined") return desc == "default_pg";
    if (!id.empty()) return id == "0";
    if (!guid.empty()) return guid == "0";
    return true;
}

// `[Rank 3]`, `[PG 1 Rank 14]`, `[PG 0 (default_pg) Rank 3]`, `[PG ID 0 PG GUID 0(default_pg) Rank 3]`,
// `[PG ID 2 PG GUID 3 Rank 3]`, `[PG GUID 0 Rank 3]`.
void process_group_marker(std::string_view body, Attribution& a) {
    static const RE2 re(R"(\[(?:PG (?:ID )?(\d+) )?(?:PG GUID ([^\s(\]]+) ?)?(?:\(([^)\]]*)\) )?Rank (\d+)\])",
                        pattern_options());
    std::array<re2::StringPiece, 5> c;
    if (!find_in(re, body, c)) return;
    const auto rank = to_number<int>(view(c[4]));
    if (default_group(view(c[1]), view(c[2]), view(c[3]))) {
        fill(a.rank, rank);
    } else {
        fill(a.pg_rank, rank);
        if (a.process_group.empty())
            a.process_group = !c[1].empty() ? "PG " + std::string(view(c[1]))
                              : !c[2].empty() ? "PG GUID " + std::string(view(c[2]))
                                              : std::string(view(c[3]));
    }
}

// torch < 2.x store-based barrier: `Rank 2: Completed store-based barrier for key:... with 4 nodes.`
void barrier_marker(std::string_view body, Attribution& a) {
    static const RE2 re(R"(\bRank (\d+): Completed store-based barrier for key:\S* with (\d+) nodes)",
                        pattern_options());
    std::array<re2::StringPiece, 3> c;
    if (!find_in(re, body, c)) return;
    fill(a.rank, to_number<int>(view(c[1])));
    fill(a.world_size, to_number<int>(view(c[2])));
}

// `Added key: store_based_barrier_key:1 to store for rank: 1`
void store_key_marker(std::string_view body, Attribution& a) {
    static const RE2 re(R"(store for rank: (\d+))", pattern_options());
    std::array<re2::StringPiece, 2> c;
    if (find_in(re, body, c)) fill(a.rank, to_number<int>(view(c[1])));
}

// The elastic agent's failure summary: `  rank      : 3 (local_rank: 1)`.
void summary_marker(std::string_view body, Attribution& a) {
    static const RE2 re(R"(\brank\s*:\s*(\d+)\s*\(local_rank:\s*(\d+)\))", pattern_options());
    std::array<re2::StringPiece, 3> c;
    if (!find_in(re, body, c)) return;
    fill(a.rank, to_number<int>(view(c[1])));
    fill(a.local_rank, to_number<int>(view(c[2])));
}

// NCCL's bus id is printed as hex without the PCI punctuation; normalise to lower case, no leading zeros.
std::string normalise_bus_id(std::string_view hex) {
    std::string out;
    for (char ch : hex) {
        const char lower = (ch >= 'A' && ch <= 'F') ? static_cast<char>(ch - 'A' + 'a') : ch;
        if (out.empty() && lower == '0') continue;
        out += lower;
    }
    return out.empty() ? "0" : out;
}

// `comm 0x.. rank 24 nranks 32 cudaDev 0 nvmlDev 0 busId 7000 commId 0x.. - Init COMPLETE`, and the same fields on
// the communicator's `- Abort COMPLETE` / `- Destroy COMPLETE` line (the watchdog's teardown). The rank is the
// rank in that communicator; for the world communicator that is the global rank, which the Timeline decides by
// keeping, per host and pid, the communicator with the most ranks.
void nccl_init_marker(std::string_view body, Attribution& a) {
    static const RE2 re(R"(\brank (\d+) nranks (\d+) cudaDev (\d+)(?: nvmlDev \d+)? busId ([0-9A-Fa-f]+))",
                        pattern_options());
    std::array<re2::StringPiece, 5> c;
    if (!find_in(re, body, c)) return;
    fill(a.comm_rank, to_number<int>(view(c[1])));
    fill(a.world_size, to_number<int>(view(c[2])));
    fill(a.cuda_dev, to_number<int>(view(c[3])));
    if (!a.bus_id) a.bus_id = normalise_bus_id(view(c[4]));
}

// `world_size=2` (launcher and framework config dumps).
void world_size_marker(std::string_view body, Attribution& a) {
    static const RE2 re(R"(\bworld_size=(\d+))", pattern_options());
    std::array<re2::StringPiece, 2> c;
    if (find_in(re, body, c)) fill(a.world_size, to_number<int>(view(c[1])));
    // vLLM's and SGLang's init_distributed_environment state the writer's own place:
    // `world_size=16 rank=15 local_rank=7 distributed_init_method=tcp://... backend=nccl`.
    static const RE2 own(R"(\bworld_size=\d+ rank=(\d+) local_rank=(\d+) distributed_init_method=)", pattern_options());
    std::array<re2::StringPiece, 3> o;
    if (find_in(own, body, o)) {
        fill(a.rank, to_number<int>(view(o[1])));
        fill(a.local_rank, to_number<int>(view(o[2])));
    }
}

// A torchrun command line echoed into the log (`$ torchrun --nnodes=2 --nproc_per_node=4 train.py`, a job script run
// with `set -x`): a fixed number of nodes (1 when not given) times the workers per node is the world. An elastic
// range (`--nnodes=1:4`) states no world, only the bounds on the nodes; `--nproc_per_node=gpu` states nothing.
void launch_command_marker(std::string_view body, Attribution& a) {
    static const RE2 launcher(R"((?:^|[\s/$+])(?:torchrun|torch\.distributed\.(?:run|launch))\s)", pattern_options());
    static const RE2 per_node(R"(--nproc[_-]per[_-]node[= ](\d+)\b)", pattern_options());
    static const RE2 nodes(R"(--nnodes[= ](\S+))", pattern_options());
    std::array<re2::StringPiece, 1> none;
    std::array<re2::StringPiece, 2> n, m;
    if (!find_in(launcher, body, none) || !find_in(per_node, body, n)) return;
    std::optional<int> node_count = 1;
    if (find_in(nodes, body, m)) {
        const std::string_view value = view(m[1]);
        node_count = to_number<int>(value);   // "1:4" is no number
        if (const std::size_t colon = value.find(':'); !node_count && colon != std::string_view::npos) {
            const auto lo = to_number<int>(value.substr(0, colon)), hi = to_number<int>(value.substr(colon + 1));
            if (lo && hi && *lo >= 1 && *lo <= *hi && *hi <= kMaxWorld) a.min_nodes = lo, a.max_nodes = hi;
        }
    }
    auto workers = to_number<int>(view(n[1]));
    if (!node_count || !workers || *node_count < 1 || *workers < 1 || *node_count > kMaxWorld / *workers) return;
    fill(a.world_size, std::optional<int>(*node_count * *workers));
    fill(a.nnodes, node_count);
}

// torchrun's launch-config dump (`Starting elastic_operator with launch configs:`), one key per line:
// `  min_nodes        : 2`.
void node_bounds_marker(std::string_view body, Attribution& a) {
    // After the logger's own `name: [INFO]` where a timestamp prefix left it in the body.
    static const RE2 re(R"((?:^|\] )\s*(min|max)_nodes\s+: (\d+)\s*$)", pattern_options());
    std::array<re2::StringPiece, 3> c;
    if (!find_in(re, body, c)) return;
    (view(c[1]) == "min" ? a.min_nodes : a.max_nodes) = to_number<int>(view(c[2]));
}

// The rendezvous endpoint on loopback: torchrun's config dump (`rdzv_endpoint    : localhost:29400`) or its
// `--rdzv-endpoint=localhost:29400` (what --standalone sets, printed under "Rendezvous info").
void rendezvous_endpoint_marker(std::string_view body, Attribution& a) {
    static const RE2 re(R"(\brdzv[_-]endpoint\s*[:=]\s*(?:localhost|127\.0\.0\.1)(?::\d+)?(?:\s|$))",
                        pattern_options());
    std::array<re2::StringPiece, 1> c;
    if (find_in(re, body, c)) a.rendezvous_on_loopback = true;
}

// Ray Train's worker set-up line: `Setting up process group for: env:// [rank=3, world_size=4]`.
void ray_train_marker(std::string_view body, Attribution& a) {
    static const RE2 re(R"(\[rank=(\d+), world_size=(\d+)\])", pattern_options());
    std::array<re2::StringPiece, 3> c;
    if (!find_in(re, body, c)) return;
    fill(a.rank, to_number<int>(view(c[1])));
    fill(a.world_size, to_number<int>(view(c[2])));
}

// A logging format that puts the rank after the level: `INFO [rank5] __main__: ...`, Python's
// `%(asctime)s - %(levelname)s - [rank 2] ...`, or `[ERROR] rank 11: ...` (the time was a prefix). Only at the
// body's start, after at most a level word (required for the bare `rank N:`), so a message that mentions `[rank5]`
// or `rank 5:` names nobody.
void level_rank_marker(std::string_view body, Attribution& a) {
    static const RE2 re(
        R"(^\s*(?:- )?(?:(?:\[?(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)\]? (?:- )?)?\[rank ?(\d+)\][: ]|)"
        R"(\[?(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)\]? (?:- )?rank (\d+): ))",
        pattern_options());
    std::array<re2::StringPiece, 3> c;
    if (match_at_start(re, body, c)) fill(a.rank, to_number<int>(view(!c[1].empty() ? c[1] : c[2])));
}

// Each marker's regex runs only when a literal it needs is present: a substring search is far cheaper than a
// DFA, and most lines hold none of these markers. The literals are searched by their rarest byte
// (engine/literal_find.hpp): a dozen needles per line made plain find() a tenth of the run.
void scan_body(std::string_view body, Attribution& a) {
    static constexpr Literal kRank("Rank "), kBarrier("store-based barrier"), kStoreKey("store for rank: "),
        kLocalRank("local_rank:"), kComplete(" COMPLETE"), kInit("Init COMPLETE"), kAbort("Abort COMPLETE"),
        kDestroy("Destroy COMPLETE"), kRayRank("[rank="), kBracketRank("[rank"), kRankWord("rank "),
        kWorldSize("world_size="), kNproc("--nproc"), kNodes("_nodes "), kRdzv("rdzv");
    body = body.substr(0, kBodyWindow);
    if (kRank.in(body)) {
        process_group_marker(body, a);
        if (kBarrier.in(body)) barrier_marker(body, a);
    }
    if (kStoreKey.in(body)) store_key_marker(body, a);
    if (kLocalRank.in(body)) summary_marker(body, a);
    if (kComplete.in(body) && (kInit.in(body) || kAbort.in(body) || kDestroy.in(body))) nccl_init_marker(body, a);
    if (kRayRank.in(body)) ray_train_marker(body, a);
    if (kBracketRank.in(body.substr(0, 32)) || kRankWord.in(body.substr(0, 24))) level_rank_marker(body, a);
    if (kWorldSize.in(body)) world_size_marker(body, a);
    if (kNproc.in(body)) launch_command_marker(body, a);
    if (kNodes.in(body.substr(0, 96))) node_bounds_marker(body, a);
    if (kRdzv.in(body)) rendezvous_endpoint_marker(body, a);
}

std::optional<Timestamp> timestamp_with(std::string_view text, PrefixParsing how) {
    if (auto t = consume_timestamp(text, how)) return t->time;
    if (auto t = glog_time(text.substr(0, kParserWindow))) return t->time;
    return std::nullopt;
}

Attribution attribute_with(std::string_view line, PrefixParsing how) {
    Attribution a;
    Walk walk;
    walk.how = how;
    std::size_t pos = 0;
    for (std::size_t steps = 0; steps < kMaxPrefixes && pos < line.size(); ++steps) {
        const std::string_view rest = line.substr(pos, kParserWindow);
        std::size_t consumed = 0;
        for (Parser parser : kParsers) {
            consumed = parser(rest, a, walk);
            if (consumed > 0) break;
        }
        if (consumed == 0) break;
        pos += consumed;
    }
    a.body_offset = pos;
    scan_body(line.substr(pos), a);
    return a;
}

}  // namespace

std::optional<Timestamp> parse_timestamp(std::string_view text) { return timestamp_with(text, PrefixParsing::scanner); }

std::optional<Timestamp> parse_timestamp_reference(std::string_view text) {
    return timestamp_with(text, PrefixParsing::reference);
}

Attribution attribute(std::string_view line) { return attribute_with(line, PrefixParsing::scanner); }

Attribution attribute_reference(std::string_view line) { return attribute_with(line, PrefixParsing::reference); }

}  // namespace denpex
