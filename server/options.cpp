#include "server/options.hpp"

#include <limits>

#include "engine/bounded_number.hpp"

namespace denpex::server {
namespace {

std::optional<std::uint64_t> parse_number(const std::string& s, std::uint64_t max) {
    return parse_bounded<std::uint64_t>(s, 0, max);
}

}  // namespace

const char* serve_usage() {
    return "usage: denpex serve [--stdio] [--clientProcessId=PID] [--log=LEVEL] [--knowledge DIR]...\n"
           "                    [--no-builtin-knowledge] [--threads=N] [--max-message-bytes=N]\n"
           "                    [--debounce-ms=N] [--progress-threshold=BYTES] [--no-mask] [--mask-hosts]\n"
           "                    [--save-history] [--history-dir=DIR]\n"
           "\n"
           "Runs the denpex language server (LSP 3.17, JSON-RPC 2.0) on stdin/stdout. Logs go to stderr.\n"
           "  --stdio                 accepted for clients that add it; stdio is the only transport\n"
           "  --clientProcessId=PID   exit when this process dies\n"
           "  --log=LEVEL             verbose | debug | info (default) | warning | error | off\n"
           "  --knowledge DIR         add a team's knowledge entries (as `denpex diagnose --knowledge`)\n"
           "  --no-builtin-knowledge  use only the --knowledge directories (reproducible tests)\n"
           "  --threads=N             diagnosis worker threads (default: from the CPU count, 2..8)\n"
           "  --max-message-bytes=N   largest message accepted (default 268435456); larger ones are skipped\n"
           "  --debounce-ms=N         wait after the last change of a log before diagnosing it (default 300)\n"
           "  --progress-threshold=N  report work-done progress for diagnoses over N bytes (default 4194304)\n"
           "  --no-mask               answer with the logs' raw text (secrets are masked by default)\n"
           "  --mask-hosts            also replace host names and IP addresses by pseudonyms (host-1, ip-1)\n"
           "  --save-history          save each denpex/diagnose result to the local history (as diagnose --save)\n"
           "  --history-dir=DIR       the history directory (default $XDG_DATA_HOME/denpex/history)\n"
           "  -h, --help              print this help\n";
}

std::optional<std::string> parse_serve_options(const std::vector<std::string>& args, ServeOptions& out) {
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        std::string name = a, value;
        bool has_value = false;
        if (const std::size_t eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
            name = a.substr(0, eq);
            value = a.substr(eq + 1);
            has_value = true;
        }
        // Options that take a value accept "--opt=V" and "--opt V".
        auto take = [&]() -> std::optional<std::string> {
            if (has_value) return value;
            if (i + 1 >= args.size()) return std::nullopt;
            return args[++i];
        };
        if (name == "--stdio" && !has_value) continue;
        if (name == "--help" || name == "-h") {
            out.help = true;
            continue;
        }
        if (name == "--no-mask" && !has_value) {
            out.mask.secrets = false;
            continue;
        }
        if (name == "--mask-hosts" && !has_value) {
            out.mask.hosts = true;
            continue;
        }
        if (name == "--save-history" && !has_value) {
            out.save_history = true;
            continue;
        }
        if (name == "--no-builtin-knowledge" && !has_value) {
            out.builtin_knowledge = false;
            continue;
        }
        if (name == "--clientProcessId") {
            auto v = take();
            auto n = v ? parse_number(*v, std::numeric_limits<int>::max()) : std::nullopt;
            if (!n || *n == 0) return "--clientProcessId needs a process id, got '" + v.value_or("") + "'";
            out.client_pid = static_cast<long>(*n);
        } else if (name == "--log") {
            auto v = take();
            auto level = v ? parse_log_level(*v) : std::nullopt;
            if (!level) return "--log needs one of verbose, debug, info, warning, error, off; got '" + v.value_or("") + "'";
            out.log_level = *level;
        } else if (name == "--knowledge") {
            auto v = take();
            if (!v || v->empty()) return "--knowledge needs a directory";
            out.knowledge_dirs.push_back(*v);
        } else if (name == "--threads") {
            auto v = take();
            auto n = v ? parse_number(*v, 256) : std::nullopt;
            if (!n || *n == 0) return "--threads needs a number from 1 to 256, got '" + v.value_or("") + "'";
            out.threads = static_cast<unsigned>(*n);
        } else if (name == "--max-message-bytes") {
            auto v = take();
            auto n = v ? parse_number(*v, std::uint64_t{1} << 40) : std::nullopt;
            if (!n || *n < 1024) return "--max-message-bytes needs a number of bytes from 1024 to 2^40, got '" + v.value_or("") + "'";
            out.max_message_bytes = static_cast<std::size_t>(*n);
        } else if (name == "--history-dir") {
            auto v = take();
            if (!v || v->empty()) return "--history-dir needs a directory";
            out.history_dir = *v;
        } else if (name == "--debounce-ms") {
            auto v = take();
            auto n = v ? parse_number(*v, 60000) : std::nullopt;
            if (!n) return "--debounce-ms needs milliseconds from 0 to 60000, got '" + v.value_or("") + "'";
            out.debounce_ms = static_cast<unsigned>(*n);
        } else if (name == "--progress-threshold") {
            auto v = take();
            auto n = v ? parse_number(*v, std::numeric_limits<std::uint64_t>::max()) : std::nullopt;
            if (!n) return "--progress-threshold needs a number of bytes, got '" + v.value_or("") + "'";
            out.progress_threshold = *n;
        } else {
            return "unknown option '" + a + "' for serve";
        }
    }
    return std::nullopt;
}

}  // namespace denpex::server
