// The engine's front door: knowledge + inputs in, Report out. Used by the CLI and the server alike.
//
// Contract. An Engine owns a loaded knowledge base and its compiled matcher (built once; both immutable, so
// one Engine serves concurrent diagnoses). `diagnose()` streams every input once, in bounded memory, and
// returns the Report; it polls `cancel` between lines and reports progress in bytes (from one thread at a
// time). Large multi-file inputs are read by several threads, each over a contiguous run of files that keeps
// a node's files together; their Timelines are merged in input order, so the verdict does not depend on it.
// Timelines read on other machines (DiagnoseInput::partials, engine/partial_model.hpp) are merged after them the
// same way (engine/timeline_merge.hpp), and the result is concluded once (engine/timeline_conclude.hpp).
//
// No-throw contract. `diagnose()` does not throw because of what an input contains, and no exception ever
// leaves a reader (a thread of its own, or the caller's thread for small inputs): a std::terminate there would
// end the CLI and the server alike. Inside, every number read from a log goes through
// engine/bounded_number.hpp (bounded, checked, never throws); ranges a log states ("tasks 2-5") expand to a
// bounded number of values. Should reading one input still fail (a bug, a callback that throws, memory), the
// reader catches it at its boundary: that input gets a warning ("NAME: not read to the end: ...") in
// Report::warnings, what was read of it is kept, and the other inputs are still read. Should the reasoning
// fail, the Report has no diagnosis and says so in a warning.
//
// No diagnosis without a log. An input is taken as a training job's output only when at least one of its lines
// has that shape: a rank, local-rank, task, pid or time prefix, NCCL's host:pid:tid, a launcher's or runtime's
// own line (srun, slurmstepd, torchrun's agent, NVRM, Python logging's `LEVEL:logger:`), a Python traceback
// (its header or frames, an exception chain, an exception's report line at the start of a line), c10's glog
// header, a stated PyTorch version. When at least half of the inputs are such output, the rest (nvidia-smi's,
// a shell transcript beside the logs) count too. Otherwise the error lines of any other input
// (README prose, documentation, source code quoting an error) are not evidence: they are left out before the
// reasoning, and a warning names the input. A bare error line without any of that is not a log either.
//
// Knowledge warnings. Team entries the knowledge base refused and team patterns the matcher could not take
// (engine/knowledge.hpp, engine/matcher.hpp) are listed first in every Report's warnings ("knowledge: ..."), so a
// diagnosis made without them says so.
//
// Masking. The Report `diagnose()` returns is masked as `DiagnoseOptions::mask` says (secrets by default, hosts
// on request): it is the only way log text leaves the engine, so every surface shows masked text.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/diagnosis.hpp"
#include "engine/inputs.hpp"
#include "engine/knowledge.hpp"
#include "engine/matcher.hpp"
#include "engine/secret_mask.hpp"
#include "engine/timeline.hpp"

namespace denpex {

struct BorrowedText {
    std::string name;        // shown in evidence
    std::string path;        // may be empty; supplies path hints (node1.log, rank_3.log) as a file's path does
    std::string_view text;
};

struct DiagnoseInput {
    std::vector<InputFile> files;                              // read from disk ("-" = stdin)
    std::vector<std::pair<std::string, std::string>> texts;    // (name, text) handed over in memory
    // Texts the caller owns and keeps unchanged until diagnose() returns (an editor's open documents): read in
    // place rather than copied, so a 100 MB document is not held twice. Read after `texts`.
    std::vector<BorrowedText> borrowed_texts;
    std::vector<std::string> not_read;                         // "path (reason)" of files expand_inputs skipped
    // Timelines read elsewhere (engine/partial_model.hpp: another node's logs, as read there): merged after the
    // files and texts, in this order, as if their inputs had been read here next.
    std::vector<Timeline> partials;
};

struct DiagnoseOptions {
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(std::uint64_t bytes)> progress;
    // Inputs smaller than this are read on one thread: below it, threads cost more than they save.
    std::uint64_t parallel_min_bytes = 32u << 20;
    // Reader threads at most; 0 = one per hardware thread (capped at 8).
    unsigned max_threads = 0;
    // What of the logs' text the Report may show (engine/secret_mask.hpp): secrets masked unless turned off.
    MaskOptions mask;
};

class Engine {
public:
    explicit Engine(KnowledgeBase kb);
    const KnowledgeBase& knowledge() const { return kb_; }
    const Matcher& matcher() const { return *matcher_; }
    // The knowledge base's and the matcher's warnings, each prefixed "knowledge: ".
    const std::vector<std::string>& knowledge_warnings() const { return knowledge_warnings_; }

    // Returns false (and sets `cancelled`) when cancelled before the end.
    Report diagnose(const DiagnoseInput& input, const DiagnoseOptions& options = {}, bool* cancelled = nullptr) const;

    // diagnose()'s reading step: every file and text read, the partials merged after them, in that order; the
    // Timeline as read (not concluded: engine/timeline_conclude.hpp), with the readers' warnings and what was
    // not read, but not the knowledge warnings. `denpex scan --partial` writes this.
    Timeline collect(const DiagnoseInput& input, const DiagnoseOptions& options = {}, bool* cancelled = nullptr) const;

    // The reasoning step of diagnose(), over a Timeline already read (engine/live_diagnosis.hpp's snapshots):
    // inputs that are no job's output set aside, the verdict, then masking. Never throws because of what the
    // Timeline holds: a failed reasoning is a Report without diagnoses that says so in a warning.
    Report reason_over(Timeline t, const MaskOptions& mask) const;

    // diagnose() in two steps, for a caller that keeps what it read (an editor re-diagnosing a job when one of
    // its documents changed reads that document again, not the others). `read` is diagnose()'s reading step
    // over in-memory texts, on the calling thread, in one Collector: texts of one node (path_hints' node_key)
    // must be read together, as diagnose() keeps them together. `reason_over_parts` merges parts read that way
    // in order (engine/timeline_merge.hpp) and reasons over them as diagnose() does, knowledge warnings included.
    Timeline read(const std::vector<BorrowedText>& texts, const DiagnoseOptions& options = {},
                  bool* cancelled = nullptr) const;
    Report reason_over_parts(std::vector<Timeline> parts, const MaskOptions& mask) const;

private:
    KnowledgeBase kb_;
    std::unique_ptr<Matcher> matcher_;
    std::vector<std::string> knowledge_warnings_;
};

}  // namespace denpex
