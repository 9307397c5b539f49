import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { MASK, maskSecrets } from '../../src/mask';

test('named secrets keep their name', () => {
  assert.equal(maskSecrets('export HF_TOKEN=hf_abc123xyz'), `export HF_TOKEN=${MASK}`);
  assert.equal(maskSecrets('WANDB_API_KEY: 0123456789abcdef'), `WANDB_API_KEY: ${MASK}`);
  assert.equal(maskSecrets('--db-password s3cr3t --lr 1e-4'), `--db-password ${MASK} --lr 1e-4`);
  assert.equal(maskSecrets('{"aws_secret_access_key": "AbC/123"}'), `{"aws_secret_access_key": "${MASK}"}`);
});

test('URL credentials and authorization headers', () => {
  assert.equal(maskSecrets('git clone https://bob:hunter2@github.com/x/y'), `git clone https://bob:${MASK}@github.com/x/y`);
  assert.equal(maskSecrets('Authorization: Bearer eyJ0eXAi0123456789'), `Authorization: Bearer ${MASK}`);
});

test('well-known token shapes anywhere', () => {
  assert.equal(maskSecrets('using ghp_' + 'a'.repeat(36) + ' now'), `using ${MASK} now`);
  assert.equal(maskSecrets('key AKIAIOSFODNN7EXAMPLE'), `key ${MASK}`);
});

test('training log lines are left alone', () => {
  const lines = [
    '4: 2023-03-14 13:58:10,579 INFO train: step 4180 loss 2.3100 lr 2.9e-04 tokens/s 41790',
    '[E ProcessGroupNCCL.cpp:737] [Rank 4] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=25517, OpType=ALLREDUCE, Timeout(ms)=1800000)',
    'num_tokens=4096 max_tokens: 2048',
    'RuntimeError: CUDA out of memory. Tried to allocate 3.12 GiB (GPU 1; 79.35 GiB total capacity)',
    'the token budget is exhausted',
    'export HF_TOKEN=$HF_TOKEN_FROM_VAULT',
    'Basic information about the run',
  ];
  for (const l of lines) assert.equal(maskSecrets(l), l);
});
