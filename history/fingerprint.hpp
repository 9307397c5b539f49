// A failure's fingerprint: what makes two incidents "the same failure" across runs of a job.
//
// Contract. `normalise_evidence` abstracts what changes from one run to the next out of a line of evidence:
// secrets (as engine/secret_mask.hpp masks them), the host names the Report attributed (`<host>`), IPv4
// addresses (`<ip>`), paths (`<path>`), hex numbers and ids of 8+ hex digits (`<hex>`), and every other
// number (`#`: ranks, pids, sizes, times, sequence numbers); runs of white space become one space. It is a pure
// function; its output holds no number and no path, so it is safe to keep without the raw log text.
// `failure_fingerprint` is 16 lower-case hex digits (FNV-1a, 64 bits) over the failure id and the sorted,
// de-duplicated normalised evidence of the initiating lines (the collateral's when no initiating line is
// known): the same failure on another rank, host, pid or day gives the same fingerprint.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/diagnosis.hpp"

namespace denpex {

std::string normalise_evidence(std::string_view text, const std::vector<std::string>& hosts);

// The host names a Report attributes (initiators, collateral, ranks), longest first.
std::vector<std::string> report_hosts(const Report& report);

// The normalised evidence lines the fingerprint is made of, sorted and de-duplicated.
std::vector<std::string> fingerprint_lines(const Diagnosis& d, const std::vector<std::string>& hosts);

std::string failure_fingerprint(const Diagnosis& d, const std::vector<std::string>& hosts);

}  // namespace denpex
