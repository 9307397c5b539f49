// Partial models: one machine's logs, as read, written to a small file that another machine merges.
//
// Why. A large job's logs live on its nodes; copying them to one machine is the slow part. `denpex scan
// --partial OUT` reads one node's logs there (Engine::collect) and writes the Timeline as read, before it is
// concluded and reasoned over: the bounded state the engine keeps (sources, groups, events, exit records,
// per-process summaries, NCCL rank maps, topology, versions, counts, warnings). Its size follows the number of
// processes and signatures, not the logs' size. `denpex diagnose` merges partials after its own inputs
// (engine/timeline_merge.hpp), so the verdict is the one reading every log on one machine would give.
//
// Format (version 1). One compact JSON object whose first bytes are exactly kPartialMagic, then
// `"version":1`, then the body's fields in sorted order. A signature is named by its knowledge entry id, its
// signature id and its place in the entry (team entries may repeat a signature id), in the body's "signatures"
// table; events hold an index into it. Never by address. The body carries
// a digest of the knowledge that read the logs (every entry id and refinement, every signature's id, role,
// pattern, mark and version range: what decides which lines become which events); a partial written with other
// knowledge, by another format version, or naming a signature this knowledge lacks is refused.
//
// Contract. `decode` never throws and never trusts the file: every number is checked against its type's range
// and every index against the table it points into (engine/bounded_number.hpp's rule for log numbers applies to
// partials too); a refusal is one line saying why. `encode` never fails but for memory; invalid UTF-8 in names is
// replaced (U+FFFD), as the JSON views do. The codec is built once per knowledge base and is immutable.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "engine/knowledge.hpp"
#include "engine/timeline.hpp"

namespace denpex {

inline constexpr std::string_view kPartialMagic = R"({"format":"denpex-partial")";
inline constexpr int kPartialVersion = 1;

// Does a file that starts with these bytes claim to be a partial model? (Its content is checked by decode.)
bool looks_like_partial(std::string_view first_bytes);

// Where a partial was written, for the messages about it.
struct PartialOrigin {
    std::string host;      // the machine that read the logs
    std::string written_by;   // "denpex 0.1.0"
};

struct DecodedPartial {
    std::optional<Timeline> timeline;   // set on success
    PartialOrigin origin;
    std::string error;                  // one line, set on refusal
};

class PartialCodec {
public:
    explicit PartialCodec(const KnowledgeBase& kb);

    // `t` as read (Engine::collect), not concluded.
    std::string encode(const Timeline& t, const PartialOrigin& origin) const;
    DecodedPartial decode(std::string_view text) const;
    const std::string& knowledge_digest() const { return digest_; }

private:
    std::string digest_;
    std::map<std::string, const Entry*, std::less<>> entries_;   // by id (the knowledge base refuses a taken id)
};

}  // namespace denpex
