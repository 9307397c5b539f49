// Knowledge base: failure entries as data.
//
// Contract. Entries are JSON documents (schema in knowledge/README.md). `KnowledgeBase::load_embedded()`
// reads the entries compiled into the binary; `add_directory()` adds a team's own. Loading validates every
// entry (required fields, enums, that every pattern compiles with RE2) and reports every problem with the
// file name instead of stopping at the first. Entries never change after loading; everything else in the
// engine holds plain pointers into them.
//
// Hostile team knowledge. A team's entry (`add_directory`, `add_json`) that is well formed but unsafe to use is
// refused, never silently: it is left out and `warnings()` says why. Refused are: an id already taken (the first
// entry of an id stays; a built-in entry is never replaced), an id or signature id longer than `kMaxIdBytes` or
// with a byte outside [a-z0-9-] (it names files in `kb export`), and a pattern whose matching automaton outgrows
// `kTeamPatternMaxMem` or runs slower than the probe allows on log-like text (`[a-z].{30}[0-9]{3}z` grows a
// DFA state per byte). Schema errors stay `problems`.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/entry_depth.hpp"
#include "engine/version_range.hpp"

namespace re2 { class RE2; }

namespace denpex {

enum class Role { initiating, collateral, context };
std::string_view to_string(Role role);

struct Condition {
    std::optional<VersionRange> torch;
    std::optional<std::string> launcher;   // "torchrun" or "!torchrun"
};

struct FixItem {
    std::string text;
    std::map<std::string, std::string> env;
    Condition when;
    bool has_condition = false;
    std::string why;
};

struct Entry;

// A signature's "marks": what its line says about the lines after it, beyond its role.
enum class Mark {
    none,
    // "failure-start": the line opens a failure report whose kind comes later (a traceback header), so a process
    // showing only this line failed in a way the logs cut off.
    failure_start,
    // "survived-report": the line opens a report of an error its process went on after (Python's "Exception
    // ignored in:", "Exception in thread ...:"); the traceback and exception below it are not a failure.
    survived_report,
    // "names-next-report": the line names, by its `local_rank` or `rank` capture, the worker whose report the same
    // writer prints next (mp.spawn's "-- Process 1 terminated with the following error:").
    names_next_report,
    // "benign-line": the line is a warning the program went on after (Python's `file.py:12: UserWarning:`); no
    // failure signature counts on it, whatever words the warning quotes.
    benign_line,
    // "handled-record": a WARNING or ERROR record that says it retries or goes on; a traceback that starts right
    // after it is the handled exception the record carries (`exc_info=True`), not a failure.
    handled_record,
    // "chain-link": Python's "During handling of the above exception, another exception occurred:"; right after a
    // survived report, the chained traceback below belongs to it too.
    chain_link,
    // "ends-attempt": the launcher gives up on this attempt and restarts the workers (torchrun's "will restart worker
    // group"): the writer's later lines belong to the next attempt.
    ends_attempt,
    // "reached-exit": the line says its process got to program exit (ProcessGroupNCCL's warning that the group was
    // not destroyed before exit): with no error of its own before it, the process finished its work.
    reached_exit,
    // "no-store": the launcher's agent could not reach the rendezvous store, so its node never started workers.
    no_store,
    // "rendezvous-incomplete": the agent's rendezvous timed out before enough nodes joined, so its node never started
    // workers (RendezvousTimeoutError).
    rendezvous_incomplete,
    // "compares-ranks": the error is a check that compares values across ranks (mmdet's "loss log variables are
    // different across GPUs", DDP's "expects same model across all ranks"): every rank may raise it, and the rank
    // that raises it is not by that the one that diverged. Which one did is read from the values compared.
    compares_ranks,
    // "interleaved-frame": a traceback frame glued to other text in one line (a caret run, a code line): two writers'
    // bytes mixed in one stream, each printing a traceback at that moment. Captures file, line and func: the same
    // frame shredded twice is two processes' reports through the same code.
    interleaved_frame,
    // "announces-rank": a worker announcing its own global rank and the world size at start-up (captures
    // announced_rank and announced_world). Two processes announcing one rank in one attempt while ranks of the world
    // are never announced were given the same rank: the launch's rank arithmetic, not a rank, failed.
    announces_rank,
    // "step-teardown": the launcher has begun to end the whole step (srun's "Terminating StepId=...", slurmstepd's
    // "*** STEP ... CANCELLED AT ... ***"): every worker's end the same stream reports after it is that teardown's
    // doing, not a failure of the worker's own.
    step_teardown,
    // "transport-on-loopback": NCCL's bootstrap or socket transport of this process uses the loopback interface (lo,
    // 127.0.0.1): with workers on two nodes or more, no node can reach another over it.
    transport_on_loopback,
    // "own-watchdog-stuck": the process's own watchdog thread made no progress (ProcessGroupNCCL's heartbeat monitor:
    // "watchdog got stuck"): blocked in a CUDA or NCCL call itself, which is not a wait on a peer. A rank showing
    // only this is no witness that the others waited for someone else: it may be the one they waited for.
    own_watchdog_stuck,
    // "size-from-peers": a traceback frame of a collective that allocates a buffer of the size its peers sent
    // (broadcast_object_list, all_gather_object, ...). An out-of-memory error right below it asking for more than the
    // whole device is the size a broken collective left behind: the stall's fallout, not a failure of its own.
    size_from_peers,
    // "death-without-cause": a runtime's record that a worker died, not saying why (Ray's "A worker died or was killed
    // while executing a task by an unexpected system error"). Where ranks waited in a collective, a waiter aborted by
    // its watchdog is recorded the same way: the record says which death the runtime saw first, not that the worker
    // failed on its own (an inference from order, like the agent's first exit).
    death_without_cause,
};

struct Signature {
    std::string id;
    Role role = Role::context;
    std::string pattern;
    std::optional<VersionRange> torch;
    std::optional<std::string> launcher;
    bool fallback = false;
    // "on_warning_lines": true: the message reaches the log as a Python warning (CUDA's "Error 802" at init), so
    // it counts even on a line a "benign-line" signature marks as a warning.
    bool on_warning_lines = false;
    // "marks": how the line changes the reading of what follows it (at most one per signature).
    Mark mark = Mark::none;
    std::vector<std::string> examples;
    std::string source;
    std::shared_ptr<const re2::RE2> regex;   // compiled once at load time
    const Entry* entry = nullptr;
};

struct Scenario {
    std::vector<std::string> initiating;
    std::vector<std::string> collateral;
};

struct Entry {
    std::string id, title, category, severity;
    std::vector<std::string> tags, affects;
    std::string what, mechanism;
    std::vector<std::string> confirm;
    std::vector<FixItem> fix;
    std::string verify;
    std::vector<std::string> prevention, related, look_for, sources;
    // Entries this one is a special case of: when both match a line, only this one counts for it.
    std::vector<std::string> refines;
    std::optional<Scenario> scenario;
    std::vector<std::string> verdicts;   // strategies whose verdict this entry names (e.g. "silent-rank")
    // "job": a failure of the whole job, not of one rank (a port already in use, the scheduler's time limit,
    // ranks disagreeing on a collective): it never has an initiating rank.
    std::string scope = "rank";
    // "ends_from_outside": the entry is a process or job ended from outside (the scheduler's limit, a cancellation,
    // a kill signal, the agent's signal). After the ranks had begun to stall it is the stall's consequence (the
    // teardown), never its cause. "reason-stated": the line says why (DUE TO TIME LIMIT); "reason-unknown": it
    // does not (the agent "Received SIGTERM"), so for the whole job it is no verdict until the sender is known.
    enum class OutsideEnd { no, reason_stated, reason_unknown };
    OutsideEnd ends_from_outside = OutsideEnd::no;
    std::vector<Signature> signatures;
    // Discriminator, cheapest confirmation, fingerprint and per-stack fixes (engine/entry_depth.hpp). Required of
    // built-in entries (the knowledge test); a team's entry may leave them out.
    EntryDepth depth;
    std::string origin;    // "builtin" or the file it was loaded from
    bool builtin = false;  // compiled into the binary (never replaced, matched by the built-in set)
};

class KnowledgeBase {
public:
    static constexpr std::size_t kMaxIdBytes = 200;
    // RE2 memory for one team pattern (its program and, in the load-time probe, its DFA).
    static constexpr std::int64_t kTeamPatternMaxMem = 8 << 20;

    // Loads the embedded entries. Problems in embedded data are programming errors and are returned too.
    static KnowledgeBase load_embedded(std::vector<std::string>& problems);

    // Adds the *.json entries of `dir` (a team's). Returns false when the directory is unreadable.
    bool add_directory(const std::string& dir, std::vector<std::string>& problems);
    // Adds one team entry from JSON text; `origin` names it in problems and warnings. False when it was not added.
    bool add_json(std::string_view json_text, const std::string& origin, std::vector<std::string>& problems);
    // Team entries refused (see the contract above), one line each, naming the origin.
    const std::vector<std::string>& warnings() const { return warnings_; }

    const std::vector<std::unique_ptr<Entry>>& entries() const { return entries_; }
    const Entry* find(std::string_view id) const;
    // Whether `a` and `b` are the same entry or list each other as related.
    bool related(const Entry& a, const Entry& b) const;

private:
    bool add(std::string_view json_text, const std::string& origin, bool builtin, std::vector<std::string>& problems);

    std::vector<std::unique_ptr<Entry>> entries_;
    std::vector<std::string> warnings_;
};

// Whether `id` is a valid entry or signature id: 1..KnowledgeBase::kMaxIdBytes bytes of [a-z0-9-].
bool valid_knowledge_id(std::string_view id);

// Why a team pattern is too costly to match (its automaton outgrows kTeamPatternMaxMem or the probe's time
// budget on log-like text), or nullopt when it is fine. Deterministic in what it runs; the time budget is wide
// (a normal pattern takes ~1% of it).
std::optional<std::string> costly_pattern(const std::string& pattern);

}  // namespace denpex
