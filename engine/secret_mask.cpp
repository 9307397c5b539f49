#include "engine/secret_mask.hpp"

#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>
#include <vector>

#include <re2/re2.h>

#include "engine/diagnosis.hpp"
#include "engine/re2_captures.hpp"

namespace denpex {
namespace {

using Groups = std::vector<re2::StringPiece>;

// Every match of `re` in `text` replaced by what `replace` returns for its groups (group 0: the whole match).
// When it returns nullopt the match stays, and the search goes on from its second byte: a name that is no
// secret ("password reset") must not hide one inside its match ("the secret token=abc").
template <class F>
std::string replace_each(std::string_view text, const RE2& re, F&& replace) {
    if (!re.ok()) return std::string(text);
    const int n = re.NumberOfCapturingGroups() + 1;
    Groups g(static_cast<std::size_t>(n));
    const re2::StringPiece input(text.data(), text.size());
    std::string out;
    std::size_t pos = 0, copied = 0;
    while (pos <= text.size() && re.Match(input, pos, text.size(), RE2::UNANCHORED, g.data(), n)) {
        const auto start = static_cast<std::size_t>(g[0].data() - text.data());
        const std::size_t end = start + g[0].size();
        if (end == start) {   // no pattern here matches empty; never loop on one that would
            pos = start + 1;
            continue;
        }
        std::optional<std::string> replacement = replace(g);
        if (!replacement) {
            pos = start + 1;
            continue;
        }
        out.append(text.substr(copied, start - copied));
        out += *replacement;
        copied = pos = end;
    }
    if (copied == 0 && out.empty()) return std::string(text);
    out.append(text.substr(copied));
    return out;
}

std::string str(const re2::StringPiece& p) { return p.data() ? std::string(p.data(), p.size()) : std::string(); }

bool has_digit(std::string_view s) {
    return std::any_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// Names that contain a secret's word but count or describe tokens of text: `max_tokens`, `tokenizer`, ...
bool names_no_secret(std::string_view raw_name) {
    std::string name = lower(raw_name);
    name.erase(std::remove_if(name.begin(), name.end(), [](char c) { return c == '"' || c == '\''; }), name.end());
    while (!name.empty() && name.front() == '-') name.erase(0, 1);
    if (name.find("token") == std::string::npos) return false;
    if (name.find("secret") != std::string::npos || name.find("password") != std::string::npos) return false;
    for (const char* counting : {"tokenizer", "tokens", "token_type", "token_count", "token_id", "token_len",
                                 "token/s", "token_per", "tokenize", "token_embed"})
        if (name.find(counting) != std::string::npos) return true;
    return false;
}

struct Rule {
    std::unique_ptr<RE2> re;
    // Returns the replacement for one match.
    std::optional<std::string> (*replace)(const Groups&);
};

std::unique_ptr<RE2> compile(const char* pattern) {
    return std::make_unique<RE2>(pattern, latin1_pattern_options());
}

using Replaced = std::optional<std::string>;
constexpr std::nullopt_t kKeep = std::nullopt;

Replaced whole_mask(const Groups&) { return std::string(kMaskText); }

const std::vector<Rule>& secret_rules() {
    static const std::vector<Rule>* rules = [] {
        auto* r = new std::vector<Rule>();   // never freed: used until exit, from any thread
        // PEM private keys: the block, or what of it is on this line (the rest of the line).
        r->push_back({compile(R"((-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)(?:.*?)(-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$))"),
                      [](const Groups& g) -> Replaced { return str(g[1]) + std::string(kMaskText) + str(g[2]); }});
        // A DER key body (the base64 of an ASN.1 SEQUENCE: "MII..."), e.g. a key's lines pasted into a log.
        r->push_back({compile(R"(\bMII[A-Za-z0-9+/]{30,}={0,2})"), whole_mask});
        // URL credentials: scheme://user:password@ keeps the user; scheme://TOKEN@ masks a token-shaped user.
        r->push_back({compile(R"(\b([A-Za-z][A-Za-z0-9+.-]*://[^\s/:@]+):([^\s@/]+)@)"),
                      [](const Groups& g) -> Replaced {
                          if (str(g[2]) == kMaskText) return kKeep;
                          return str(g[1]) + ":" + std::string(kMaskText) + "@";
                      }});
        r->push_back({compile(R"(\b([A-Za-z][A-Za-z0-9+.-]*://)([A-Za-z0-9_.~-]{20,})@)"),
                      [](const Groups& g) -> Replaced {
                          if (!has_digit(str(g[2]))) return kKeep;
                          return str(g[1]) + std::string(kMaskText) + "@";
                      }});
        // NAME=value, NAME: value, --name=value, --name value, "name": "value", and a command printed as a Python list
        // ('--api-key', 'value': DeepSpeed's and accelerate's launchers) where the name says it is a secret.
        r->push_back({compile(R"((?i)((?:--?)?["']?[A-Za-z0-9_.-]*(?:token|secret|password|passwd|passphrase|api[_-]?key|access[_-]?key|private[_-]?key|auth[_-]?key|credentials?|session[_-]?key|account[_-]?key|sharedaccesskey|client[_-]?secret)[A-Za-z0-9_.-]*["']?)(\s*[=:]\s*|,\s*|\s+)(["']?)([^\s"',;}&)\]]+))"),
                      [](const Groups& g) -> Replaced {
                          const std::string name = str(g[1]), sep = str(g[2]), quote = str(g[3]), value = str(g[4]);
                          const bool quoted = !name.empty() && (name[0] == '\'' || name[0] == '"');
                          const bool flag = name.size() > 1 && name[quoted ? 1 : 0] == '-';
                          const bool spaces = sep.find_first_not_of(" \t") == std::string::npos;
                          // Only a quoted flag is followed by its value after a comma (a list's next item).
                          if (sep.find(',') != std::string::npos && !(flag && quoted)) return kKeep;
                          if (names_no_secret(name)) return kKeep;
                          if (spaces && !flag) return kKeep;   // "password reset" in prose: only flags take a space
                          if (value.rfind(kMaskText, 0) == 0 || value[0] == '$') return kKeep;   // masked; $HF_TOKEN
                          if (lower(name).find("token") != std::string::npos &&
                              value.find_first_not_of("0123456789.") == std::string::npos)
                              return kKeep;   // "Tokens: 1024"
                          if (value == "None" || value == "null" || value == "<redacted>") return kKeep;
                          return name + sep + quote + std::string(kMaskText);
                      }});
        // An Authorization header's value, whatever its scheme.
        r->push_back({compile(R"((?i)(\bAuthorization["']?\s*[:=]\s*["']?(?:(?:Bearer|Basic|Token|Digest|Negotiate)\s+)?)([^\s"',;]+))"),
                      [](const Groups& g) -> Replaced {
                          if (str(g[2]).rfind(kMaskText, 0) == 0) return kKeep;
                          return str(g[1]) + std::string(kMaskText);
                      }});
        // Authorization values; the value must hold a digit so that prose ("Basic information") stays.
        r->push_back({compile(R"(\b(Bearer|Basic|Token|bearer)\s+([A-Za-z0-9._~+/=-]{8,}))"),
                      [](const Groups& g) -> Replaced {
                          if (!has_digit(str(g[2]))) return kKeep;
                          return str(g[1]) + " " + std::string(kMaskText);
                      }});
        r->push_back({compile(R"(\b(wandb login\s+(?:--relogin\s+)?)([0-9a-f]{40})\b)"),
                      [](const Groups& g) -> Replaced { return str(g[1]) + std::string(kMaskText); }});
        // Azure SAS signatures in URLs.
        r->push_back({compile(R"(([?&]sig=)[^&\s"']+)"), [](const Groups& g) -> Replaced { return str(g[1]) + std::string(kMaskText); }});
        r->push_back({compile(R"((hooks\.slack\.com/services/)[A-Za-z0-9/]+)"),
                      [](const Groups& g) -> Replaced { return str(g[1]) + std::string(kMaskText); }});
        // Token shapes of the common providers.
        for (const char* shape : {
                 R"(\bgh[pousr]_[A-Za-z0-9]{20,}\b)",                               // GitHub
                 R"(\bgithub_pat_[A-Za-z0-9_]{20,}\b)",                              // GitHub fine-grained
                 R"(\bhf_[A-Za-z0-9]{20,}\b)", R"(\bapi_org_[A-Za-z0-9]{20,}\b)",    // Hugging Face
                 R"(\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|APKA)[0-9A-Z]{16}\b)",   // AWS key ids
                 R"(\bAIza[0-9A-Za-z_-]{35})",                                       // Google API key
                 R"(\bya29\.[0-9A-Za-z_-]{20,})",                                    // Google OAuth token
                 R"(\bsk-[A-Za-z0-9_-]{20,})",                                       // OpenAI / Anthropic style
                 R"(\bxox[abposr]-[A-Za-z0-9-]{10,})",                               // Slack
                 R"(\bglpat-[A-Za-z0-9_-]{20,})",                                    // GitLab
                 R"(\bnpm_[A-Za-z0-9]{30,}\b)",                                      // npm
                 R"(\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})",  // JSON Web Token
             })
            r->push_back({compile(shape), whole_mask});
        r->push_back({compile(R"(\bwandb_(?:v1_)?[A-Za-z0-9_]{20,})"),
                      [](const Groups& g) -> Replaced {
                          if (!has_digit(str(g[0]))) return kKeep;
                          return std::string(kMaskText);
                      }});
        // E-mail addresses.
        r->push_back({compile(R"(\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b)"),
                      [](const Groups&) -> Replaced { return std::string("<email>"); }});
        return r;
    }();
    return *rules;
}

bool host_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_';
}

}  // namespace

std::string mask_secrets(std::string_view text) {
    std::string out(text);
    for (const Rule& rule : secret_rules()) out = replace_each(out, *rule.re, rule.replace);
    return out;
}

std::string HostMasker::pseudonym(const std::string& host) {
    if (host.empty()) return host;
    auto it = names_.find(host);
    if (it != names_.end()) return it->second;
    const bool ip = host.find_first_not_of("0123456789.") == std::string::npos ||
                    (host.find(':') != std::string::npos && host.find_first_not_of("0123456789abcdefABCDEF:") == std::string::npos);
    const std::string name = ip ? "ip-" + std::to_string(next_ip_++) : "host-" + std::to_string(next_host_++);
    names_.emplace(host, name);
    return name;
}

std::string HostMasker::mask(std::string_view text) {
    std::string out(text);
    // The hosts the Report names, longest first, wherever they stand as a whole name.
    std::vector<std::string> known;
    for (const auto& [host, _] : names_) known.push_back(host);
    std::sort(known.begin(), known.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
    for (const std::string& host : known) {
        const std::string& alias = names_.at(host);
        std::string next;
        std::size_t from = 0;
        for (std::size_t at; (at = out.find(host, from)) != std::string::npos;) {
            const bool left = at == 0 || !host_char(out[at - 1]);
            const std::size_t end = at + host.size();
            // A trailing '.' ends a sentence, not a name.
            const bool right = end == out.size() || !host_char(out[end]) ||
                               (out[end] == '.' && (end + 1 == out.size() || !host_char(out[end + 1])));
            next.append(out, from, at - from);
            next += left && right ? alias : host;
            from = end;
        }
        next.append(out, from, std::string::npos);
        out = std::move(next);
    }
    static const RE2* ipv4 = new RE2(R"(\b(?:25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])(?:\.(?:25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])){3}\b)",
                                     latin1_pattern_options());
    static const RE2* ipv6 = new RE2(
        R"(\b(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}\b|\b[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4})*::[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4})*\b)",
        latin1_pattern_options());
    static const RE2* fqdn = new RE2(
        R"((?i)\b(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:com|net|org|io|ai|co|dev|app|cloud|internal|local|lan|corp|intra|cluster|edu|gov|us|uk|de|fr|cn|jp|kr|ru|eu)\b)",
        latin1_pattern_options());
    out = replace_each(out, *ipv4, [&](const Groups& g) -> std::optional<std::string> { return pseudonym(str(g[0])); });
    out = replace_each(out, *ipv6, [&](const Groups& g) -> std::optional<std::string> {
        const std::string a = str(g[0]);
        // "14:32:03" is a time and "c10::cuda" a namespace: an address has a digit and three groups or more.
        const auto groups = std::count(a.begin(), a.end(), ':') - (a.find("::") != std::string::npos ? 1 : 0) + 1;
        if (!has_digit(a) || groups < 3) return std::nullopt;
        return pseudonym(a);
    });
    out = replace_each(out, *fqdn, [&](const Groups& g) -> std::optional<std::string> { return pseudonym(str(g[0])); });
    return out;
}

void mask_report(Report& r, const MaskOptions& options) {
    if (!options.secrets && !options.hosts) return;
    HostMasker hosts;
    auto host_field = [&](std::optional<std::string>& h) {
        if (options.hosts && h) h = hosts.pseudonym(*h);
    };
    // Register the hosts first, in the order a reader meets them, so pseudonyms are stable in the text.
    for (Diagnosis& d : r.diagnoses) {
        host_field(d.initiating_host);
        for (CollateralRank& c : d.collateral) host_field(c.host);
    }
    for (RankState& s : r.ranks) host_field(s.host);
    auto text = [&](std::string& s) {
        if (options.secrets) s = mask_secrets(s);
        if (options.hosts) s = hosts.mask(s);
    };
    auto texts = [&](std::vector<std::string>& v) {
        for (auto& s : v) text(s);
    };
    for (Diagnosis& d : r.diagnoses) {
        text(d.initiating_process);
        for (Evidence& e : d.evidence) text(e.text);
        texts(d.reasoning);
        texts(d.missing);
        texts(d.notes);
        for (FixAdvice& f : d.fix) text(f.why);
        for (CollateralRank& c : d.collateral) {
            text(c.process);
            for (Evidence& e : c.evidence) text(e.text);
        }
    }
    for (RankState& s : r.ranks) {
        text(s.process);
        text(s.last_line.text);
    }
    texts(r.warnings);
}

}  // namespace denpex
