// Matcher: which knowledge signatures a line carries.
//
// Contract. Built once from a KnowledgeBase. `match(text)` runs ONE RE2::Set pass over the line (linear in
// its length, no backtracking) to learn which signatures hit; only those then run their own pattern, to
// extract named captures. A signature marked `fallback` is dropped when any non-fallback signature hit the
// same line, so a generic "uncaught Python exception" never competes with the specific message it wraps; and an
// entry that `refines` another takes the line from it (a fragmentation OOM is reported as that, not as an OOM).
// Thread-safe after construction.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/knowledge.hpp"

namespace re2 { class RE2; }

namespace denpex {

struct Hit {
    const Signature* signature = nullptr;
    std::map<std::string, std::string> captures;
};

class Matcher {
public:
    explicit Matcher(const KnowledgeBase& kb);
    ~Matcher();
    Matcher(const Matcher&) = delete;
    Matcher& operator=(const Matcher&) = delete;

    std::vector<Hit> match(std::string_view text) const;
    const std::vector<const Signature*>& signatures() const { return signatures_; }

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::vector<const Signature*> signatures_;
};

}  // namespace denpex
