// Launch scripts: where TORCH_NCCL_ASYNC_ERROR_HANDLING goes in each kind of file, never twice, with wording
// that depends on the launcher and the pinned PyTorch version.
#include <doctest/doctest.h>

#include <string>

#include "server/launch_scripts/async_error_handling.hpp"
#include "server/launch_scripts/document_kind.hpp"
#include "server/launch_scripts/torch_version.hpp"

using namespace denpex::server;

namespace {

// Checks, applies the fix, and checks the fixed text again: the fix must make the finding go away.
std::string fix(DocumentKind kind, const std::string& text) {
    AsyncErrorHandlingCheck c = check_async_error_handling(kind, text);
    REQUIRE(c.applies);
    REQUIRE_FALSE(c.already_set);
    REQUIRE_FALSE(c.edits.empty());
    REQUIRE_FALSE(c.sites.empty());
    const std::string fixed = apply_insertions(text, c.edits);
    AsyncErrorHandlingCheck again = check_async_error_handling(kind, fixed);
    CHECK(again.already_set);
    CHECK(again.edits.empty());
    CHECK(again.sites.empty());
    return fixed;
}

}  // namespace

TEST_CASE("document kinds: languageId first, then the file name, then the shebang") {
    CHECK(classify_document("file:///r/train.log", "log", "") == DocumentKind::log);
    CHECK(classify_document("file:///r/slurm-1234.out", "plaintext", "") == DocumentKind::log);
    CHECK(classify_document("file:///r/worker.err", "", "") == DocumentKind::log);
    CHECK(classify_document("file:///r/train.log.3", "", "") == DocumentKind::log);
    CHECK(classify_document("file:///r/job.sbatch", "plaintext", "") == DocumentKind::shell);
    CHECK(classify_document("file:///r/job.slurm", "", "") == DocumentKind::shell);
    CHECK(classify_document("file:///r/run", "", "#!/usr/bin/env bash\nsrun x\n") == DocumentKind::shell);
    CHECK(classify_document("file:///r/run", "", "#!/usr/bin/python3\n") == DocumentKind::python);
    CHECK(classify_document("file:///r/train.py", "python", "") == DocumentKind::python);
    CHECK(classify_document("file:///r/job.yaml", "yaml", "") == DocumentKind::yaml);
    CHECK(classify_document("file:///r/k8s/job.yml", "", "") == DocumentKind::yaml);
    CHECK(classify_document("file:///r/Dockerfile", "", "") == DocumentKind::dockerfile);
    CHECK(classify_document("file:///r/Dockerfile.train", "", "") == DocumentKind::dockerfile);
    CHECK(classify_document("file:///r/gpu.dockerfile", "", "") == DocumentKind::dockerfile);
    CHECK(classify_document("file:///r/notes.md", "markdown", "") == DocumentKind::other);
    CHECK(classify_document("untitled:Untitled-1", "log", "") == DocumentKind::log);
    CHECK(classify_document("file:///r/a%20b.sh", "", "") == DocumentKind::shell);
}

TEST_CASE("torch versions pinned in scripts and images") {
    auto v = [](const char* text) { return find_torch_pin(text); };
    CHECK(v("pip install torch==1.12.1 torchvision")->version == "1.12");
    CHECK(torch_era(v("pip install torch==1.12.1")) == TorchEra::before_2_0);
    CHECK(torch_era(v("pip install 'torch~=2.1.0'")) == TorchEra::v2_0_to_2_1);
    CHECK(torch_era(v("FROM pytorch/pytorch:2.3.1-cuda12.1-cudnn8-runtime")) == TorchEra::v2_2_or_later);
    CHECK(torch_era(v("image: nvcr.io/nvidia/pytorch:23.10-py3")) == TorchEra::v2_0_to_2_1);
    CHECK(torch_era(v("image: nvcr.io/nvidia/pytorch:22.12-py3")) == TorchEra::before_2_0);
    CHECK(torch_era(v("image: nvcr.io/nvidia/pytorch:24.05-py3")) == TorchEra::v2_2_or_later);
    CHECK(torch_era(v("conda install pytorch=1.13 -c pytorch")) == TorchEra::before_2_0);
    CHECK(torch_era(v("module load pytorch/1.11.0")) == TorchEra::before_2_0);
    CHECK(torch_era(v("pip install 'torch>=1.13'")) == TorchEra::unknown);   // a lower bound below 2.2 decides nothing
    CHECK(torch_era(v("pip install 'torch>=2.2'")) == TorchEra::v2_2_or_later);
    CHECK_FALSE(v("pip install torchvision==0.15.2"));
    CHECK_FALSE(v("srun python train.py"));
}

TEST_CASE("shell: export before the torchrun line of an sbatch script, not before data preparation") {
    const std::string text =
        "#!/bin/bash\n"
        "#SBATCH --nodes=2\n"
        "#SBATCH --gpus-per-node=8\n"
        "module load cuda\n"
        "python prepare_data.py --out /scratch/data\n"
        "srun torchrun --nnodes=2 --nproc_per_node=8 \\\n"
        "    --rdzv_backend=c10d train.py --config cfg.yaml\n";
    AsyncErrorHandlingCheck c = check_async_error_handling(DocumentKind::shell, text);
    REQUIRE(c.sites.size() == 1);
    CHECK(c.sites[0].line == 5);
    CHECK(c.sites[0].launcher == "srun torchrun");
    CHECK(c.message.find("torchrun sets it to 1") != std::string::npos);
    CHECK(fix(DocumentKind::shell, text) ==
          "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gpus-per-node=8\nmodule load cuda\n"
          "python prepare_data.py --out /scratch/data\n"
          "export TORCH_NCCL_ASYNC_ERROR_HANDLING=1\n"
          "srun torchrun --nnodes=2 --nproc_per_node=8 \\\n    --rdzv_backend=c10d train.py --config cfg.yaml\n");
}

TEST_CASE("shell: keeps the indentation of a launch inside a block; srun python without torchrun") {
    const std::string text =
        "#!/bin/bash\n#SBATCH -N 4\nif [ -n \"$DEBUG\" ]; then\n  echo debug\nelse\n\tCUDA_LAUNCH_BLOCKING=0 srun python -u train.py\nfi\n";
    AsyncErrorHandlingCheck c = check_async_error_handling(DocumentKind::shell, text);
    REQUIRE(c.sites.size() == 1);
    CHECK(c.sites[0].line == 5);
    CHECK(c.sites[0].launcher == "srun python");
    CHECK(c.message.find("Without torchrun") != std::string::npos);
    CHECK(fix(DocumentKind::shell, text).find("else\n\texport TORCH_NCCL_ASYNC_ERROR_HANDLING=1\n\tCUDA_LAUNCH_BLOCKING=0 srun") !=
          std::string::npos);
}

TEST_CASE("shell: deepspeed, accelerate launch, python -m torch.distributed.run, exec and env prefixes") {
    auto line_of = [](const std::string& text) {
        auto c = check_async_error_handling(DocumentKind::shell, text);
        return c.sites.empty() ? std::string("-") : c.sites[0].launcher;
    };
    CHECK(line_of("deepspeed --num_gpus 8 train.py --deepspeed ds.json\n") == "deepspeed");
    CHECK(line_of("accelerate launch --multi_gpu train.py\n") == "accelerate launch");
    CHECK(line_of("exec python3 -m torch.distributed.run --nproc_per_node 4 train.py\n") ==
          "python -m torch.distributed.run");
    CHECK(line_of("cd /work && NCCL_DEBUG=INFO torchrun train.py\n") == "torchrun");
    CHECK(line_of("mpirun -np 16 python train.py  # NCCL\n") == "mpirun python");
    // Not distributed training: no finding.
    CHECK(line_of("python -c 'import torch; print(torch.__version__)'\n") == "-");
    CHECK(line_of("#!/bin/sh\npython scripts/plot.py results.csv\n") == "-");
    CHECK(line_of("pip install -r requirements.txt\n") == "-");
    CHECK(line_of("# torchrun train.py\necho done\n") == "-");
    CHECK(line_of("cat <<EOF > run.sh\ntorchrun train.py\nEOF\necho ok\n") == "-");   // inside a here-document
}

TEST_CASE("shell: already set (export, prefix, old name) means no finding and no fix; a comment does not count") {
    for (const char* text : {"export TORCH_NCCL_ASYNC_ERROR_HANDLING=1\ntorchrun train.py\n",
                             "TORCH_NCCL_ASYNC_ERROR_HANDLING=3 torchrun train.py\n",
                             "#SBATCH -N 2\nexport NCCL_ASYNC_ERROR_HANDLING=1\nsrun python train.py\n",
                             "torchrun \\\n  train.py\nexport TORCH_NCCL_ASYNC_ERROR_HANDLING=1\n"}) {
        CAPTURE(text);
        AsyncErrorHandlingCheck c = check_async_error_handling(DocumentKind::shell, text);
        CHECK(c.applies);
        CHECK(c.already_set);
        CHECK(c.edits.empty());
        CHECK(c.sites.empty());
    }
    AsyncErrorHandlingCheck commented =
        check_async_error_handling(DocumentKind::shell, "# export TORCH_NCCL_ASYNC_ERROR_HANDLING=1\ntorchrun train.py\n");
    CHECK_FALSE(commented.already_set);
    CHECK(commented.sites.size() == 1);
}

TEST_CASE("shell: a launch in a case arm gets the export at the top of the script") {
    const std::string text = "#!/bin/bash\n# launcher\nset -e\ncase $MODE in\n  multi) torchrun train.py ;;\nesac\n";
    CHECK(fix(DocumentKind::shell, text) ==
          "#!/bin/bash\n# launcher\nexport TORCH_NCCL_ASYNC_ERROR_HANDLING=1\nset -e\ncase $MODE in\n  multi) torchrun "
          "train.py ;;\nesac\n");
}

TEST_CASE("shell: a pinned PyTorch before 2.2 gets the old name too, and says so") {
    const std::string text = "#SBATCH -N 2\npip install torch==1.12.1\nsrun python train.py\n";
    AsyncErrorHandlingCheck c = check_async_error_handling(DocumentKind::shell, text);
    CHECK(c.message.find("PyTorch 1.12 (torch==1.12.1) defaults to 0") != std::string::npos);
    CHECK(c.message.find("old name NCCL_ASYNC_ERROR_HANDLING") != std::string::npos);
    CHECK(fix(DocumentKind::shell, text).find("export TORCH_NCCL_ASYNC_ERROR_HANDLING=1 NCCL_ASYNC_ERROR_HANDLING=1\nsrun") !=
          std::string::npos);
}

TEST_CASE("version-aware wording") {
    LaunchFacts srun{LaunchFacts::Torchrun::no, "this srun python launch"};
    CHECK(async_error_handling_message(srun, find_torch_pin("torch==2.4.0")).find("defaults to 3") != std::string::npos);
    CHECK(async_error_handling_message(srun, find_torch_pin("torch==2.1.2")).find("defaults to 1") != std::string::npos);
    CHECK(async_error_handling_message(srun, std::nullopt).find("PyTorch before 2.0 defaults to 0") != std::string::npos);
    LaunchFacts py{LaunchFacts::Torchrun::unknown, "init_process_group"};
    CHECK(async_error_handling_message(py, std::nullopt).find("Unless a torchrun launch sets it") != std::string::npos);
}

TEST_CASE("python: setdefault before init_process_group with its indentation, import os after the imports") {
    const std::string text =
        "\"\"\"Train the model.\n\nCalls init_process_group( in main.\n\"\"\"\n"
        "import argparse\n"
        "from datetime import timedelta\n"
        "import torch\n"
        "import torch.distributed as dist\n"
        "\n"
        "\n"
        "def main():\n"
        "    args = parse()\n"
        "    # init_process_group(backend='gloo') was too slow\n"
        "    if args.distributed:\n"
        "        dist.init_process_group(\n"
        "            backend=\"nccl\", timeout=timedelta(minutes=10))\n"
        "    train(args)\n";
    AsyncErrorHandlingCheck c = check_async_error_handling(DocumentKind::python, text);
    REQUIRE(c.sites.size() == 1);
    CHECK(c.sites[0].line == 14);
    CHECK(c.message.find("init_process_group") != std::string::npos);
    const std::string fixed = fix(DocumentKind::python, text);
    CHECK(fixed.find("import torch.distributed as dist\nimport os\n\n\ndef main") != std::string::npos);
    CHECK(fixed.find("    if args.distributed:\n        os.environ.setdefault(\"TORCH_NCCL_ASYNC_ERROR_HANDLING\", \"1\")\n"
                     "        dist.init_process_group(\n") != std::string::npos);
}

TEST_CASE("python: os already imported; multi-line import; statement start of a wrapped call") {
    const std::string text =
        "import os, sys\nfrom torch.distributed import (\n    init_process_group,\n    destroy_process_group,\n)\n"
        "pg = (\n    init_process_group(backend='nccl')\n)\n";
    const std::string fixed = fix(DocumentKind::python, text);
    CHECK(fixed == "import os, sys\nfrom torch.distributed import (\n    init_process_group,\n    destroy_process_group,\n)\n"
                   "os.environ.setdefault(\"TORCH_NCCL_ASYNC_ERROR_HANDLING\", \"1\")\npg = (\n    "
                   "init_process_group(backend='nccl')\n)\n");
}

TEST_CASE("python: no imports before the call; a module docstring; deepspeed.init_distributed") {
    CHECK(fix(DocumentKind::python, "#!/usr/bin/env python3\n\"\"\"Doc.\"\"\"\nimport torch.distributed as dist\ndist.init_process_group('nccl')\n") ==
          "#!/usr/bin/env python3\n\"\"\"Doc.\"\"\"\nimport torch.distributed as dist\nimport os\n"
          "os.environ.setdefault(\"TORCH_NCCL_ASYNC_ERROR_HANDLING\", \"1\")\ndist.init_process_group('nccl')\n");
    CHECK(fix(DocumentKind::python, "torch.distributed.init_process_group('nccl')\n") ==
          "import os\nos.environ.setdefault(\"TORCH_NCCL_ASYNC_ERROR_HANDLING\", \"1\")\n"
          "torch.distributed.init_process_group('nccl')\n");
    AsyncErrorHandlingCheck ds = check_async_error_handling(DocumentKind::python, "import deepspeed\ndeepspeed.init_distributed()\n");
    REQUIRE(ds.sites.size() == 1);
    CHECK(ds.sites[0].launcher == "init_distributed");
}

TEST_CASE("python: mentions in strings and comments are not calls; a set variable (any form) is respected") {
    CHECK_FALSE(check_async_error_handling(DocumentKind::python, "print('call init_process_group(')\n# init_process_group(\n").applies);
    CHECK(check_async_error_handling(DocumentKind::python,
                                     "import os\nos.environ[\"TORCH_NCCL_ASYNC_ERROR_HANDLING\"] = \"1\"\n"
                                     "dist.init_process_group('nccl')\n").already_set);
    CHECK(check_async_error_handling(DocumentKind::python,
                                     "import os\nos.putenv('NCCL_ASYNC_ERROR_HANDLING', '1')\ninit_process_group('nccl')\n")
              .already_set);
}

TEST_CASE("yaml: a PyTorchJob gets an env entry in every replica's container, in the file's own indentation") {
    const std::string text =
        "apiVersion: kubeflow.org/v1\n"
        "kind: PyTorchJob\n"
        "metadata:\n"
        "  name: llm\n"
        "spec:\n"
        "  pytorchReplicaSpecs:\n"
        "    Master:\n"
        "      replicas: 1\n"
        "      template:\n"
        "        spec:\n"
        "          containers:\n"
        "            - name: pytorch\n"
        "              image: nvcr.io/nvidia/pytorch:24.05-py3\n"
        "              command: [\"torchrun\", \"train.py\"]\n"
        "    Worker:\n"
        "      replicas: 3\n"
        "      template:\n"
        "        spec:\n"
        "          containers:\n"
        "          - name: pytorch\n"
        "            image: nvcr.io/nvidia/pytorch:24.05-py3\n"
        "            env:\n"
        "            - name: NCCL_DEBUG\n"
        "              value: INFO\n"
        "            command:\n"
        "            - torchrun\n"
        "            - train.py\n";
    AsyncErrorHandlingCheck c = check_async_error_handling(DocumentKind::yaml, text);
    REQUIRE(c.sites.size() == 2);
    CHECK(c.sites[0].line == 13);
    CHECK(c.sites[0].launcher == "container pytorch");
    CHECK(c.sites[1].line == 25);
    CHECK(c.message.find("these containers") != std::string::npos);
    CHECK(c.message.find("torchrun sets it to 1") != std::string::npos);
    const std::string fixed = fix(DocumentKind::yaml, text);
    CHECK(fixed.find("              image: nvcr.io/nvidia/pytorch:24.05-py3\n"
                     "              env:\n"
                     "                - name: TORCH_NCCL_ASYNC_ERROR_HANDLING\n"
                     "                  value: \"1\"\n"
                     "              command: [\"torchrun\", \"train.py\"]\n") != std::string::npos);
    CHECK(fixed.find("            env:\n"
                     "            - name: TORCH_NCCL_ASYNC_ERROR_HANDLING\n"
                     "              value: \"1\"\n"
                     "            - name: NCCL_DEBUG\n") != std::string::npos);
}

TEST_CASE("yaml: containers that do not train are left alone; set anywhere means set") {
    const std::string web = "kind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n";
    CHECK_FALSE(check_async_error_handling(DocumentKind::yaml, web).applies);
    const std::string pod =
        "kind: Pod\nspec:\n  containers:\n  - name: train\n    image: my/trainer:1\n    args: [\"python\", \"train.py\"]\n"
        "  - name: sidecar\n    image: busybox\n";
    AsyncErrorHandlingCheck c = check_async_error_handling(DocumentKind::yaml, pod);
    REQUIRE(c.sites.size() == 1);
    CHECK(c.sites[0].launcher == "container train");
    CHECK(fix(DocumentKind::yaml, pod) ==
          "kind: Pod\nspec:\n  containers:\n  - name: train\n    image: my/trainer:1\n    env:\n"
          "      - name: TORCH_NCCL_ASYNC_ERROR_HANDLING\n        value: \"1\"\n"
          "    args: [\"python\", \"train.py\"]\n  - name: sidecar\n    image: busybox\n");
    CHECK(check_async_error_handling(DocumentKind::yaml,
                                     pod + "---\nkind: ConfigMap\ndata:\n  TORCH_NCCL_ASYNC_ERROR_HANDLING: \"1\"\n")
              .already_set);
}

TEST_CASE("dockerfile: ENV before the final stage's CMD; after FROM when there is none; old image -> both names") {
    const std::string text =
        "FROM python:3.11 AS build\nRUN pip wheel -w /w .\n\nFROM pytorch/pytorch:2.3.1-cuda12.1-cudnn8-runtime\n"
        "COPY --from=build /w /w\nRUN pip install /w/*.whl\nCMD [\"torchrun\", \"--nproc_per_node=8\", \"train.py\"]\n";
    AsyncErrorHandlingCheck c = check_async_error_handling(DocumentKind::dockerfile, text);
    REQUIRE(c.sites.size() == 1);
    CHECK(c.sites[0].line == 6);
    CHECK(c.message.find("PyTorch 2.3") != std::string::npos);
    CHECK(fix(DocumentKind::dockerfile, text).find("RUN pip install /w/*.whl\nENV TORCH_NCCL_ASYNC_ERROR_HANDLING=1\nCMD") !=
          std::string::npos);
    CHECK(fix(DocumentKind::dockerfile, "FROM nvcr.io/nvidia/pytorch:22.08-py3\nRUN pip install deepspeed") ==
          "FROM nvcr.io/nvidia/pytorch:22.08-py3\nENV TORCH_NCCL_ASYNC_ERROR_HANDLING=1 NCCL_ASYNC_ERROR_HANDLING=1\n"
          "RUN pip install deepspeed");
    CHECK(fix(DocumentKind::dockerfile, "FROM pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime") ==
          "FROM pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime\nENV TORCH_NCCL_ASYNC_ERROR_HANDLING=1\n");
    CHECK_FALSE(check_async_error_handling(DocumentKind::dockerfile, "FROM nginx\nCMD [\"nginx\"]\n").applies);
    CHECK(check_async_error_handling(DocumentKind::dockerfile,
                                     "FROM pytorch/pytorch\nENV TORCH_NCCL_ASYNC_ERROR_HANDLING=1\nCMD python t.py\n")
              .already_set);
}

TEST_CASE("files without a trailing newline and with CRLF line ends") {
    CHECK(fix(DocumentKind::shell, "torchrun train.py") == "export TORCH_NCCL_ASYNC_ERROR_HANDLING=1\ntorchrun train.py");
    const std::string crlf = fix(DocumentKind::shell, "#!/bin/bash\r\n#SBATCH -N 2\r\nsrun torchrun train.py\r\n");
    CHECK(crlf == "#!/bin/bash\r\n#SBATCH -N 2\r\nexport TORCH_NCCL_ASYNC_ERROR_HANDLING=1\r\nsrun torchrun train.py\r\n");
}

TEST_CASE("logs and other documents are never launch scripts") {
    CHECK_FALSE(check_async_error_handling(DocumentKind::log, "srun torchrun train.py\n").applies);
    CHECK_FALSE(check_async_error_handling(DocumentKind::other, "srun torchrun train.py\n").applies);
}

TEST_CASE("the hang-forever setting: an effective =0 is flagged on its line and fixed by replacing the 0") {
    // Set to 0 directly, in each kind of file; the fix turns exactly that value into 1 and the finding goes away.
    const std::pair<DocumentKind, std::string> cases[] = {
        {DocumentKind::shell, "#!/bin/bash\nexport TORCH_NCCL_ASYNC_ERROR_HANDLING=0\ntorchrun --nproc_per_node=8 train.py\n"},
        {DocumentKind::python, "import os\nos.environ[\"TORCH_NCCL_ASYNC_ERROR_HANDLING\"] = \"0\"\n"
                               "import torch.distributed as dist\ndist.init_process_group(\"nccl\")\n"},
        {DocumentKind::yaml, "kind: PyTorchJob\nspec:\n  containers:\n  - name: pytorch\n    env:\n"
                             "    - name: TORCH_NCCL_ASYNC_ERROR_HANDLING\n      value: \"0\"\n"},
        {DocumentKind::dockerfile, "FROM pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime\nENV TORCH_NCCL_ASYNC_ERROR_HANDLING 0\n"
                                   "CMD [\"torchrun\", \"--nproc_per_node=8\", \"train.py\"]\n"},
    };
    for (const auto& [kind, text] : cases) {
        const AsyncErrorHandlingCheck c = check_async_error_handling(kind, text);
        REQUIRE(c.disabled);
        REQUIRE(c.sites.size() == 1);
        CHECK(c.sites.front().line == c.disabled->line);
        REQUIRE(c.edits.size() == 1);
        CHECK(c.edits.front().replace == 1);
        CHECK(text.substr(c.edits.front().offset, 1) == "0");
        CHECK(c.message.find("=0") != std::string::npos);
        const std::string fixed = apply_insertions(text, c.edits);
        CHECK(fixed.size() == text.size());
        CHECK(fixed.find("TORCH_NCCL_ASYNC_ERROR_HANDLING") != std::string::npos);
        const AsyncErrorHandlingCheck again = check_async_error_handling(kind, fixed);
        CHECK_FALSE(again.disabled);
        CHECK(again.edits.empty());
    }
    // An earlier =1 overridden by a later =0 is the hang-forever setting; a =0 overridden by a later =1 is not.
    const std::string overridden = "export TORCH_NCCL_ASYNC_ERROR_HANDLING=1\nsource env.sh\n"
                                   "export TORCH_NCCL_ASYNC_ERROR_HANDLING=0\ntorchrun --nproc_per_node=8 train.py\n";
    const AsyncErrorHandlingCheck o = check_async_error_handling(DocumentKind::shell, overridden);
    REQUIRE(o.disabled);
    CHECK(o.disabled->line == 2);
    CHECK_FALSE(check_async_error_handling(DocumentKind::shell,
                                           "export TORCH_NCCL_ASYNC_ERROR_HANDLING=0\nexport TORCH_NCCL_ASYNC_ERROR_HANDLING=1\n"
                                           "torchrun --nproc_per_node=8 train.py\n").disabled);
    // The pre-2.2 name set to 0 counts when the new name is not set; a comment never does.
    const AsyncErrorHandlingCheck old = check_async_error_handling(
        DocumentKind::shell, "NCCL_ASYNC_ERROR_HANDLING=0 torchrun --nproc_per_node=8 train.py\n");
    REQUIRE(old.disabled);
    CHECK(old.disabled->name == "NCCL_ASYNC_ERROR_HANDLING");
    CHECK_FALSE(check_async_error_handling(DocumentKind::shell, "# export TORCH_NCCL_ASYNC_ERROR_HANDLING=0\n"
                                                                "export TORCH_NCCL_ASYNC_ERROR_HANDLING=1\n"
                                                                "torchrun --nproc_per_node=8 train.py\n").disabled);
}
