#!/bin/bash
# Interactive debugging run on one allocated node (salloc first).
export OMP_NUM_THREADS=8
srun --ntasks=4 --label python train.py --config configs/llm.yaml --max-steps 100
