// Prefix scanners: hand-written recognisers for the line prefixes that occur on nearly every line.
//
// Contract. Each `scan_*` function recognises, anchored at the start of `text`, exactly the language of the
// anchored RE2 pattern quoted beside it (the reference, kept in engine/attribution.cpp), and returns the same
// captures RE2 would: an optional group that did not take part is a default string_view (null data, so
// `present()` in re2_captures.hpp reads it the same way), and `length` is the size of RE2's whole match.
// nullopt means the pattern does not match at the start of `text`. They look only at `text` (the caller passes
// the same window it would give RE2), never allocate and run in time linear in what they consume.
//
// Why exact and not "usually right": attribution decides which worker a line belongs to, and every corpus verdict
// must stay what the RE2 chain gives. Only grammars that are deterministic (each repeated class is disjoint from
// the byte that ends it, so greedy matching never has to backtrack) are written by hand; every other prefix form
// keeps its RE2 and gets a `could_be_*` pre-check below instead. tests/unit/prefix_scan_test.cpp compares the two
// paths on every corpus line, every knowledge example and generated variants.
//
// The `could_be_*` pre-checks. Each returns false only when its pattern cannot match at the start of `text`
// (a byte the pattern requires there is absent); true means "maybe": the caller then runs the RE2. They cost a
// few byte compares and save a regex call on the many lines that start with some other prefix.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace denpex {

// (\[)?(\d{4})-(\d\d)-(\d\d)[T _](\d\d):(\d\d):(\d\d)(?:[.,](\d{1,9})\d*)?(Z|[+-]\d\d(?::?\d\d)?)?(\])?
struct DateTimeParts {
    bool open = false, close = false;   // the optional `[` and `]`
    std::string_view year, month, day, hour, minute, second;
    std::string_view fraction;   // up to 9 digits; absent (null) without a fraction
    std::string_view zone;       // absent (null) without a zone
    std::size_t length = 0;
};
std::optional<DateTimeParts> scan_date_time(std::string_view text);

// ([A-Za-z0-9][A-Za-z0-9._-]*):(\d+):\d+ \[(\d+)\] ?
struct NcclHeaderParts {
    std::string_view host, pid, dev;
    std::size_t length = 0;
};
std::optional<NcclHeaderParts> scan_nccl_header(std::string_view text);

// A bracketed tag that ends in a number: `\[rank(\d+)\]: ?` (torch_rank) and `\[[A-Za-z][A-Za-z_]*(\d+)\]:`
// (tee_role).
struct NumberTagParts {
    std::string_view number;
    std::size_t length = 0;
};
std::optional<NumberTagParts> scan_torch_rank(std::string_view text);
std::optional<NumberTagParts> scan_tee_role(std::string_view text);

// \[[IWEFD](?:(\d{1,2})(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,9})\d*)?)?(?: +\d+)? [^\s:\[\]]+:\d+\] ?
// c10's glog-like header: the time fields are absent (null) in the `[E file.cpp:563] ` form.
struct GlogHeaderParts {
    std::string_view month, day, hour, minute, second, fraction;
    std::size_t length = 0;
};
std::optional<GlogHeaderParts> scan_glog_bracketed(std::string_view text);

// \[\d{1,12}\]   (line_number; the caller requires the space after it)   and   \[\d{1,6}\]:   (bare_index_tag)
// Returns the match length, 0 for no match.
std::size_t scan_line_number(std::string_view text);
std::size_t scan_bare_index_tag(std::string_view text);

// Pre-checks for the prefix forms that keep their RE2 (see the contract above).
bool could_be_mpirun_tag(std::string_view text);       // \[\d+,...
bool could_be_glog_bare(std::string_view text);        // [IWEFD]\d...
bool could_be_ompi_host_pid(std::string_view text);    // \[[A-Za-z0-9][A-Za-z0-9._-]*:\d...
bool could_be_deepspeed(std::string_view text);        // \[\d{4}-...
bool could_be_dmesg_uptime(std::string_view text);     // \[ *\+?\d...
bool could_be_ctime(std::string_view text);            // \[?(Mon|Tue|Wed|Thu|Fri|Sat|Sun) ...
bool could_be_clock(std::string_view text);            // \d\d:\d\d:\d\d...
bool could_be_stream_tag(std::string_view text);       // (?:[^\s\[\]]{1,120} )?\[(?:stderr|stdout)\] 
bool could_be_syslog(std::string_view text);           // [A-Z][a-z]{2} +...
bool could_be_srun_label(std::string_view text);       //  *\d{1,7}: 
bool could_be_pdsh_host(std::string_view text);        // [A-Za-z0-9][A-Za-z0-9.-]{0,252}: 

}  // namespace denpex
