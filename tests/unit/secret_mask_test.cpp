// Secret masking (engine/secret_mask.hpp): a catalogue of realistic (fake) credentials as they appear in
// training logs, lines that must stay as they are, host pseudonyms, and the Report every surface shows.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "engine/report.hpp"
#include "engine/secret_mask.hpp"

using namespace denpex;

namespace {

struct Case {
    const char* line;     // a log line holding a secret
    const char* secret;   // what must not be left of it
};

// Fake values in the real formats of each provider.
const Case kCatalogue[] = {
    {"Cloning https://alice:S3cr3tPassw0rd@git.example.com/org/repo.git", "S3cr3tPassw0rd"},
    {"pip install git+https://oauth2:glpat-AbCdEfGhIjKlMnOpQrSt@gitlab.example.com/x.git", "glpat-AbCdEfGhIjKlMnOpQrSt"},
    {"redis://default:r3d1sPa55@10.0.0.7:6379/0", "r3d1sPa55"},
    {"[rank0]: huggingface_hub login with hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567", "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567"},
    {"HF_TOKEN=hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567 torchrun train.py", "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567"},
    {"org token api_org_AbCdEfGhIjKlMnOpQrStUvWxYz012345", "api_org_AbCdEfGhIjKlMnOpQrStUvWxYz012345"},
    {"git clone https://ghp_0123456789abcdefghijABCDEFGHIJ012345@github.com/o/r", "ghp_0123456789abcdefghijABCDEFGHIJ012345"},
    {"GITHUB_TOKEN is gho_0123456789abcdefghijABCDEFGHIJ012345", "gho_0123456789abcdefghijABCDEFGHIJ012345"},
    {"using github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV for pulls",
     "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"},
    {"botocore: credentials AKIAIOSFODNN7EXAMPLE from env", "AKIAIOSFODNN7EXAMPLE"},
    {"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
    {"export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
    {"AWS_SESSION_TOKEN=IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQD", "IQoJb3JpZ2luX2VjEJr"},
    {"google api key AIzaSyA1234567890abcdefghijklmnopqrstuv in config", "AIzaSyA1234567890abcdefghijklmnopqrstuv"},
    {"Authorization: Bearer ya29.a0AfH6SMBx1234567890abcdefghijklmnop", "ya29.a0AfH6SMBx1234567890abcdefghijklmnop"},
    {"\"private_key\": \"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\\n-----END PRIVATE KEY-----\\n\"",
     "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"},
    {"\"client_secret\": \"GOCSPX-AbCdEfGhIjKlMnOpQrStUvWx\"", "GOCSPX-AbCdEfGhIjKlMnOpQrStUvWx"},
    {"OPENAI_API_KEY=sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"},
    {"judge model with key sk-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd", "sk-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd"},
    {"anthropic sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"},
    {"slack notifier xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"},
    {"posting to https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", "XXXXXXXXXXXXXXXXXXXXXXXX"},
    {"WANDB_API_KEY=0123456789abcdef0123456789abcdef01234567 python train.py", "0123456789abcdef0123456789abcdef01234567"},
    {"$ wandb login 0123456789abcdef0123456789abcdef01234567", "0123456789abcdef0123456789abcdef01234567"},
    {"wandb: key wandb_v1_AbCdEfGhIjKlMnOpQrStUvWxYz012345", "wandb_v1_AbCdEfGhIjKlMnOpQrStUvWxYz012345"},
    {"curl -H 'Authorization: Bearer 0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d'", "0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d"},
    {"Authorization: Basic YWxhZGRpbjpvcGVuc2VzYW1l", "YWxhZGRpbjpvcGVuc2VzYW1l"},
    {"jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk", "dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk"},
    {"-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
     "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"},
    {"MIIEpAIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0", "MIIEpAIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0"},
    {"db connect password=hunter2 host=db1", "hunter2"},
    {"mlflow: MLFLOW_TRACKING_PASSWORD: correct-horse-battery", "correct-horse-battery"},
    {"launcher: python train.py --password=Tr0ub4dor&3 --epochs 3", "Tr0ub4dor"},
    {"launcher: python train.py --db-password Tr0ub4dor3 --epochs 3", "Tr0ub4dor3"},
    {"launcher: deepspeed train.py --hf_token hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567", "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567"},
    {"config: {'api_key': 'k-93hf83hf83hf', 'lr': 0.1}", "k-93hf83hf83hf"},
    // DeepSpeed's launcher prints the worker's command as a Python list: a flag and its value are two items.
    {"[launch.py:321:sigkill_handler] ['/usr/bin/python', '-u', 'train.py', '--local_rank=1', '--api-key', "
     "'HoWzEpTy4klumwh44YcBem6Ia', '--workspace', 'team'] exits with return code = -11",
     "HoWzEpTy4klumwh44YcBem6Ia"},
    {"token=9f8e7d6c5b4a39281706f5e4d3c2b1a0", "9f8e7d6c5b4a39281706f5e4d3c2b1a0"},
    {"secret=topsecretvalue", "topsecretvalue"},
    {"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==;EndpointSuffix=core.windows.net",
     "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA=="},
    {"blob https://acct.blob.core.windows.net/c/x.pt?sv=2022-11-02&sig=AbCd%2BEfGh%3D&se=2024", "AbCd%2BEfGh%3D"},
    {"[rank3]: ValueError: user jane.doe@example.com is not allowed", "jane.doe@example.com"},
};

// Lines with secret-sounding words or secret-like shapes that are not secrets: they must stay as they are.
const char* kUnchanged[] = {
    "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of 79.11 GiB",
    "[rank0]:[E1023 14:32:03.123456789 ProcessGroupNCCL.cpp:629] [Rank 0] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=9, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600081 milliseconds before timing out.",
    "generate(max_tokens=2048, max_new_tokens=512, tokenizer=gpt2)",
    "step 100 | loss 2.31 | Tokens: 1024 | tokens_per_sec=51234.5 | num_tokens: 4096",
    "Token indices sequence length is longer than the specified maximum sequence length",
    "see the password reset page",
    "export HF_TOKEN=$HF_TOKEN",
    "terminate called after throwing an instance of 'c10::Error'",
    "gpu-node-02:1234:5678 [0] NCCL INFO Channel 00/02 :    0   1   2   3",
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
    "Basic information about the run",
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
    "['/usr/bin/python', '-u', 'train.py', '--tokenizer', 'gpt2', '--max_tokens', '2048']",
};

bool contains(const std::string& s, const std::string& needle) { return s.find(needle) != std::string::npos; }

}  // namespace

TEST_CASE("secret masking: a catalogue of real formats, each masked") {
    for (const Case& c : kCatalogue) {
        CAPTURE(c.line);
        const std::string masked = mask_secrets(c.line);
        CAPTURE(masked);
        CHECK_FALSE(contains(masked, c.secret));
        CHECK(masked != c.line);
        CHECK(mask_secrets(masked) == masked);   // idempotent
    }
}

TEST_CASE("secret masking: what is not a secret stays, and the rest of a line is kept") {
    for (const char* line : kUnchanged) {
        CAPTURE(line);
        CHECK(mask_secrets(line) == line);
    }
    CHECK(mask_secrets("Cloning https://alice:S3cr3tPassw0rd@git.example.com/org/repo.git") ==
          "Cloning https://alice:****@git.example.com/org/repo.git");
    CHECK(mask_secrets("db connect password=hunter2 host=db1") == "db connect password=**** host=db1");
    CHECK(mask_secrets("python train.py --password hunter2 --epochs 3") == "python train.py --password **** --epochs 3");
    CHECK(mask_secrets("['train.py', '--hf-token', 'abc123def456', '--lr', '2e-6']") ==
          "['train.py', '--hf-token', '****', '--lr', '2e-6']");
    CHECK(mask_secrets("[rank3]: ValueError: user jane.doe@example.com") == "[rank3]: ValueError: user <email>");
    CHECK(mask_secrets("x -----BEGIN RSA PRIVATE KEY-----abc-----END RSA PRIVATE KEY----- y") ==
          "x -----BEGIN RSA PRIVATE KEY-----****-----END RSA PRIVATE KEY----- y");
    // Hostile input does not throw and is left alone where nothing matches.
    const std::string junk("\xff\xfe\x00\x01 token=\xff\xfe", 12);
    CHECK_NOTHROW(mask_secrets(junk));
    CHECK(mask_secrets("") == "");
}

TEST_CASE("host masking: stable pseudonyms for names the report gives, addresses and FQDNs") {
    HostMasker hosts;
    CHECK(hosts.pseudonym("gpu-node-02") == "host-1");
    CHECK(hosts.pseudonym("gpu-node-03") == "host-2");
    CHECK(hosts.pseudonym("gpu-node-02") == "host-1");
    const std::string masked = hosts.mask(
        "gpu-node-02:1234:5678 [0] NCCL WARN connect to 10.0.0.5<45123> failed; peer gpu-node-03. "
        "head node ray-head.cluster.internal at fe80::1ff:fe23:4567:890a; gpu-node-021 is another host; "
        "at 14:32:03 in c10::cuda");
    CAPTURE(masked);
    CHECK_FALSE(contains(masked, "gpu-node-02:"));
    CHECK_FALSE(contains(masked, "10.0.0.5"));
    CHECK_FALSE(contains(masked, "ray-head.cluster.internal"));
    CHECK_FALSE(contains(masked, "fe80::1ff"));
    CHECK(contains(masked, "host-1:1234:5678"));
    CHECK(contains(masked, "peer host-2."));
    CHECK(contains(masked, "ip-1<45123>"));
    CHECK(contains(masked, "gpu-node-021"));   // a longer name is another host, not host-1 with a suffix
    CHECK(contains(masked, "14:32:03"));
    CHECK(contains(masked, "c10::cuda"));
}

TEST_CASE("the Report leaves the engine masked: evidence, last lines and sentences; --no-mask shows raw text") {
    std::vector<std::string> problems;
    const Engine engine(KnowledgeBase::load_embedded(problems));
    DiagnoseInput in;
    in.texts.emplace_back(
        "node1.log",
        "[rank0]: step 1 loss 2.0 wandb: WANDB_API_KEY=0123456789abcdef0123456789abcdef01234567\n"
        "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. (job by jane.doe@example.com, "
        "data https://alice:S3cr3tPassw0rd@hub.example.com token hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567)\n");
    const Report masked = engine.diagnose(in);
    REQUIRE(masked.diagnoses.size() == 1);
    for (const std::string& out : {to_json(masked).dump(), to_text(masked)}) {
        CHECK_FALSE(contains(out, "S3cr3tPassw0rd"));
        CHECK_FALSE(contains(out, "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567"));
        CHECK_FALSE(contains(out, "jane.doe@example.com"));
        CHECK_FALSE(contains(out, "0123456789abcdef0123456789abcdef01234567"));
        CHECK(contains(out, "CUDA out of memory"));
    }
    DiagnoseOptions raw;
    raw.mask.secrets = false;
    const Report shown = engine.diagnose(in, raw);
    CHECK(contains(to_json(shown).dump(), "S3cr3tPassw0rd"));
}
