// Secret masking: the one place that decides what of a log's text may leave denpex.
//
// Contract. People paste denpex's answers into tickets and chat, and training logs carry credentials (launch
// lines, environment dumps, URLs). Every surface (the text report, --json, the server's diagnostics, hovers and
// denpex/diagnose results) shows a Report, and a Report leaves the engine masked: `Engine::diagnose` applies
// `mask_report` with `DiagnoseOptions::mask` (secrets on by default). What is masked, replaced by "****":
//   - URL credentials (`scheme://user:password@host` keeps the user, `scheme://TOKEN@host` when TOKEN has a
//     token's shape);
//   - well-known token shapes: Hugging Face `hf_…`/`api_org_…`, GitHub `ghp_/gho_/ghu_/ghs_/ghr_…` and
//     `github_pat_…`, AWS access key ids (`AKIA…`, `ASIA…`), Google API keys (`AIza…`) and OAuth tokens
//     (`ya29.…`), OpenAI/Anthropic-style `sk-…`, Slack `xox?-…` and webhook paths, W&B `wandb_v1_…`/`wandb_…`
//     keys, JSON Web Tokens;
//   - values of names that say they are secrets: `password=`, `token=`, `secret=`, `api_key=`,
//     `aws_secret_access_key=`, `WANDB_API_KEY=`, `"client_secret": "…"`, `--password=V`, `--hf-token V`,
//     Azure `AccountKey=`/`SharedAccessKey=`/`sig=`; names that only count tokens (`max_tokens`,
//     `num_tokens`, `tokenizer`) and values that are numbers or shell references (`$HF_TOKEN`) stay;
//   - `Authorization:`/`Bearer`/`Basic` values, `wandb login KEY`;
//   - PEM private key blocks (whole, or what of them is on the line) and DER key bodies (`MII…`);
//   - e-mail addresses (replaced by "<email>").
// With `hosts`, host names and addresses are replaced too, each by a stable pseudonym within one Report
// (`host-1`, `host-2`, ... `ip-1`, ...), so a reader can still tell that two lines name the same node: the
// Report's host fields, those names wherever they appear in its text, IPv4/IPv6 addresses and FQDNs.
// File names (Evidence::file, the inputs) are not changed: they are what the user named, and editors use them
// as locations. Masking is idempotent and never throws for any input text.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace denpex {

struct Report;

constexpr std::string_view kMaskText = "****";

struct MaskOptions {
    bool secrets = true;   // false: --no-mask, the raw text
    bool hosts = false;    // --mask-hosts: host names and IPs too, for sharing outside the team
};

// Secrets in one piece of text (no host masking).
std::string mask_secrets(std::string_view text);

// Host names and addresses → stable pseudonyms; one HostMasker per Report.
class HostMasker {
public:
    // Registers a host name the Report names (the engine attributed it), returning its pseudonym.
    std::string pseudonym(const std::string& host);
    // Replaces registered hosts, IPv4/IPv6 addresses and FQDNs in `text`.
    std::string mask(std::string_view text);

private:
    std::map<std::string, std::string> names_;   // host -> pseudonym
    int next_host_ = 1, next_ip_ = 1;
};

// Masks every text of the Report that came from a log, as the options say.
void mask_report(Report& report, const MaskOptions& options);

}  // namespace denpex
